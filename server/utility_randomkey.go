package server

import (
	"context"

	"secutil/tools/codec"
)

// POST /generate_random_key: 256 random bits as hex.

type randomKeyResponse struct {
	RandomKey string `json:"random_key" doc:"64 hex characters (256 bits)"`
}

func generateRandomKey(context.Context, noRequest) (randomKeyResponse, error) {
	key, err := codec.RandomKey()
	if err != nil {
		return randomKeyResponse{}, err
	}
	return randomKeyResponse{RandomKey: key}, nil
}
