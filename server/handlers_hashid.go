package server

import (
	"net/http"

	"secutil/tools/hashid"
)

type hashIdentifierRequest struct {
	Hash string `json:"hash"`
}

func (q *hashIdentifierRequest) check() error { return required("hash", q.Hash) }

func handleHashIdentifier(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[hashIdentifierRequest](w, r)
	if err != nil {
		return nil, err
	}
	return hashid.Identify(req.Hash), nil
}
