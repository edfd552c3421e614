package server

import (
	"net/http"

	"secutil/tools/hashid"
)

type hashIdentifierRequest struct {
	Hash string `json:"hash"`
}

func (q *hashIdentifierRequest) check() error { return required("hash", q.Hash) }

// hashIdentifierResponse: estimate is the single most likely name; candidates
// rank every format the input fits, with hashcat and John names.
type hashIdentifierResponse struct {
	Estimate   string             `json:"estimate"`
	Candidates []hashid.Candidate `json:"candidates"`
}

func handleHashIdentifier(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[hashIdentifierRequest](w, r)
	if err != nil {
		return nil, err
	}
	candidates := hashid.Identify(req.Hash)
	estimate := "unknown"
	if len(candidates) > 0 {
		estimate = candidates[0].Name
	}
	return hashIdentifierResponse{Estimate: estimate, Candidates: candidates}, nil
}
