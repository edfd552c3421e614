package server

import (
	"context"

	"secutil/tools/hashverify"
)

// POST /hash_verify: does a password match a hash, and in which scheme.

type hashVerifyRequest struct {
	Password string `json:"password" required:"true" aka:"plaintext,text,pwd" doc:"at most 1024 bytes (bcrypt: 72); may be empty"`
	Hash     string `json:"hash" required:"check" aka:"hashes,digest,hash_string" doc:"a hash string in one of the schemes of the operation's description, at most 1024 bytes"`
}

func (q *hashVerifyRequest) check() error { return required("hash", q.Hash) }

type hashVerifyResponse struct {
	Match      bool     `json:"match" required:"true"`
	Scheme     string   `json:"scheme" required:"true" doc:"the scheme that matched or, when none did, the hash's (for a bare hex digest, the likeliest of candidates)"`
	Format     string   `json:"format,omitempty" doc:"how the string is written: modular crypt, PHC, passlib, Django, Werkzeug, libsodium or hex"`
	Candidates []string `json:"candidates,omitempty" doc:"a hex digest whose length fits several schemes: every scheme tried, likeliest first"`
}

// verifyHash compares a password with a hash. The hash's costs are checked
// against the bounds before any work (hashverify.Parse), and the slow
// schemes run in a key-derivation slot (inSlotIf), as /hash_generator's
// slow hashes do.
func (s *Server) verifyHash(ctx context.Context, req hashVerifyRequest) (hashVerifyResponse, error) {
	h, err := hashverify.Parse(req.Hash)
	if err != nil {
		return hashVerifyResponse{}, err
	}
	var res hashverify.Result
	if slotErr := s.inSlotIf(ctx, h.Slow(), func() { res, err = h.Verify(req.Password) }); slotErr != nil {
		return hashVerifyResponse{}, slotErr
	}
	if err != nil {
		return hashVerifyResponse{}, err
	}
	return hashVerifyResponse{Match: res.Match, Scheme: res.Scheme, Format: res.Format, Candidates: res.Candidates}, nil
}
