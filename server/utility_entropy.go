package server

import (
	"context"

	"secutil/tools/strength"
)

// POST /entropy: a password's entropy and the time to guess it by brute
// force. Its request is /password_check's (utility_strength.go).

type entropyResponse struct {
	Entropy            float64 `json:"entropy"`
	EstimateBruteForce string  `json:"estimate_brute_force" doc:"half the keyspace at 10^10 guesses/s"`
}

func measureEntropy(_ context.Context, req passwordRequest) (entropyResponse, error) {
	bits, _ := strength.Entropy(req.Password)
	return entropyResponse{Entropy: bits, EstimateBruteForce: strength.BruteForceTime(req.Password)}, nil
}
