package server

import (
	"context"

	"secutil/tools/hashgen"
)

// POST /hash_generator: a text hashed with the algorithm named, the
// password hashes at the costs asked for, within the server's bounds.

type hashGeneratorRequest struct {
	Algorithm string `json:"algorithm" required:"check" aka:"alg,type,hash_type" doc:"md5, sha1, sha224, sha256, sha384, sha512, sha512_224, sha512_256, sha3_*, blake2b_256/512, blake2s_256, ripemd160, md4, ntlm, crc32, bcrypt, argon2id, scrypt"`
	Plaintext string `json:"plaintext" required:"true" aka:"text,password,input"`
	// The costs: 0 or absent takes the default; a cost of another
	// algorithm than the one named is refused.
	Cost        int `json:"cost" aka:"rounds,work_factor" maximum:"14" doc:"bcrypt's cost, 4 to 14 (default 10)"`
	Memory      int `json:"memory" aka:"m,memory_kib" maximum:"262144" doc:"argon2id's memory in KiB, at least 8 × parallelism, at most 262144 (256 MiB), and memory × time at most 1048576 (default 19456: 19 MiB)"`
	Time        int `json:"time" aka:"t,iterations,passes" maximum:"10" doc:"argon2id's passes, 1 to 10 (default 2)"`
	Parallelism int `json:"parallelism" aka:"lanes,threads" maximum:"8" doc:"argon2id's lanes, 1 to 8 (default 1)"`
	N           int `json:"n" aka:"cost_n" maximum:"1048576" doc:"scrypt's N, a power of two from 2 to 1048576 (default 32768), with 128 × N × r at most 256 MiB and 128 × N × r × p at most 512 MiB"`
	R           int `json:"r" aka:"block_size" maximum:"32" doc:"scrypt's r, 1 to 32 (default 8)"`
	P           int `json:"p" maximum:"16" doc:"scrypt's p, 1 to 16 (default 1)"`
}

func (q *hashGeneratorRequest) check() error { return required("algorithm", q.Algorithm) }

type hashGeneratorResponse struct {
	Algorithm string `json:"algorithm"`
	Hash      string `json:"hash"`
}

// generateHash hashes plaintext (which may be empty: the empty
// string has a hash like any other) with a named algorithm, the slow
// password hashes in a key-derivation slot (inSlotIf).
func (s *Server) generateHash(ctx context.Context, req hashGeneratorRequest) (hashGeneratorResponse, error) {
	opts := hashgen.Options{
		BcryptCost:      req.Cost,
		Argon2MemoryKiB: req.Memory, Argon2Time: req.Time, Argon2Parallelism: req.Parallelism,
		ScryptN: req.N, ScryptR: req.R, ScryptP: req.P,
	}
	var name, hash string
	var err error
	generate := func() { name, hash, err = hashgen.GenerateWith(req.Algorithm, req.Plaintext, opts) }
	if slotErr := s.inSlotIf(ctx, hashgen.Slow(req.Algorithm), generate); slotErr != nil {
		return hashGeneratorResponse{}, slotErr
	}
	if err != nil {
		return hashGeneratorResponse{}, err
	}
	return hashGeneratorResponse{Algorithm: name, Hash: hash}, nil
}

// inSlotIf runs work, in a key-derivation slot of /secure_encrypt's engine
// when slow: the password hashes (made or verified) then share the slots,
// one per CPU, so however many arrive their memory stays bounded. It
// returns the slot's error when none came free before ctx ended.
func (s *Server) inSlotIf(ctx context.Context, slow bool, work func()) error {
	if !slow {
		work()
		return nil
	}
	return s.Crypto.WithSlot(ctx, work)
}
