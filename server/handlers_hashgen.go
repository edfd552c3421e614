package server

import (
	"net/http"

	"secutil/tools/hashgen"
)

type hashGeneratorRequest struct {
	Algorithm string `json:"algorithm"`
	Plaintext string `json:"plaintext" required:"true"`
}

func (q *hashGeneratorRequest) check() error { return required("algorithm", q.Algorithm) }

type hashGeneratorResponse struct {
	Algorithm string `json:"algorithm"`
	Hash      string `json:"hash"`
}

// handleHashGenerator hashes plaintext (which may be empty: the empty
// string has a hash like any other) with a named algorithm. The slow
// password hashes take a key-derivation slot of /secure_encrypt's engine,
// so however many arrive, their memory stays bounded.
func (s *Server) handleHashGenerator(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[hashGeneratorRequest](w, r)
	if err != nil {
		return nil, err
	}
	var name, hash string
	generate := func() { name, hash, err = hashgen.Generate(req.Algorithm, req.Plaintext) }
	if hashgen.Slow(req.Algorithm) {
		if slotErr := s.Crypto.WithSlot(r.Context(), generate); slotErr != nil {
			return nil, slotErr
		}
	} else {
		generate()
	}
	if err != nil {
		return nil, err
	}
	return hashGeneratorResponse{Algorithm: name, Hash: hash}, nil
}
