package server

import (
	"context"

	"secutil/tools/hashgen"
)

// POST /hash_generator: a text hashed with the algorithm named.

type hashGeneratorRequest struct {
	Algorithm string `json:"algorithm" required:"check" doc:"md5, sha1, sha224, sha256, sha384, sha512, sha512_224, sha512_256, sha3_*, blake2b_256/512, blake2s_256, ripemd160, md4, ntlm, crc32, bcrypt, argon2id, scrypt"`
	Plaintext string `json:"plaintext" required:"true"`
}

func (q *hashGeneratorRequest) check() error { return required("algorithm", q.Algorithm) }

type hashGeneratorResponse struct {
	Algorithm string `json:"algorithm"`
	Hash      string `json:"hash"`
}

// generateHash hashes plaintext (which may be empty: the empty
// string has a hash like any other) with a named algorithm. The slow
// password hashes take a key-derivation slot of /secure_encrypt's engine,
// so however many arrive, their memory stays bounded.
func (s *Server) generateHash(ctx context.Context, req hashGeneratorRequest) (hashGeneratorResponse, error) {
	var name, hash string
	var err error
	generate := func() { name, hash, err = hashgen.Generate(req.Algorithm, req.Plaintext) }
	if hashgen.Slow(req.Algorithm) {
		if slotErr := s.Crypto.WithSlot(ctx, generate); slotErr != nil {
			return hashGeneratorResponse{}, slotErr
		}
	} else {
		generate()
	}
	if err != nil {
		return hashGeneratorResponse{}, err
	}
	return hashGeneratorResponse{Algorithm: name, Hash: hash}, nil
}
