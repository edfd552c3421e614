// Package passhash hashes account passwords with argon2id and verifies them in
// constant time. Hashes are PHC strings so parameters can be raised later
// without breaking existing accounts.
package passhash

import (
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"secutil/tools/argon2id"
)

// Params are argon2id cost parameters, the type the encryption envelope
// and hash generation use too.
type Params = argon2id.Params

// Default follows OWASP's password storage recommendation for argon2id
// (m=19 MiB, t=2, p=1): about 30 ms a hash on one core.
var Default = argon2id.OWASP

// maxParams bounds what Verify accepts from a stored string, so a corrupted
// or planted row cannot make a login burn gigabytes.
var maxParams = Params{MemoryKiB: 256 * 1024, Time: 10, Parallelism: 8}

const (
	saltLen = 16
	keyLen  = 32
)

// ErrMalformed means a stored hash is not an argon2id PHC string we accept.
var ErrMalformed = errors.New("passhash: malformed argon2id hash")

// slots bounds concurrent argon2 work, hashing and verifying alike: each
// call holds MemoryKiB of RAM.
var slots = make(chan struct{}, 2*runtime.NumCPU())

// waiting counts the calls waiting for a slot, and derivations the keys
// derived since the process started: the tests read both.
var waiting, derivations atomic.Int64

// Hash returns the PHC string of password under p, or under Default when
// p is zero: the server and the user commands leave the costs unset
// unless a test or an operator chose them.
func Hash(password string, p Params) (string, error) {
	p = cmp.Or(p, Default)
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return argon2id.PHC(p, salt, derive(password, salt, p, keyLen)), nil
}

// Verify reports whether password matches the PHC string encoded.
func Verify(password, encoded string) (bool, error) {
	p, salt, want, err := parse(encoded)
	if err != nil {
		return false, err
	}
	got := derive(password, salt, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is verified against when an account does not exist, so that a
// login for an unknown email costs the same time as one for a known email.
// It is made on the first such login, not at start: a command that never
// verifies a password (secutil version) pays no key derivation.
var dummyHash = sync.OnceValue(func() string {
	h, _ := Hash("secutil-timing-equaliser", Default)
	return h
})

// VerifyNothing spends the time of one Verify, waiting for a slot as Verify
// does, and always fails.
func VerifyNothing(password string) {
	_, _ = Verify(password, dummyHash())
}

// derive computes a key of keyLen bytes once a slot is free.
func derive(password string, salt []byte, p Params, keyLen uint32) []byte {
	waiting.Add(1)
	slots <- struct{}{}
	waiting.Add(-1)
	defer func() { <-slots }()
	derivations.Add(1)
	return p.Key([]byte(password), salt, keyLen)
}

// parse reads a stored hash, refusing parameters and lengths outside what
// Hash writes or a sane past default could have written.
func parse(encoded string) (Params, []byte, []byte, error) {
	p, salt, key, err := argon2id.ParsePHC(encoded)
	if err != nil || p.MemoryKiB == 0 || p.Time == 0 || p.Parallelism == 0 || !p.Within(maxParams) ||
		len(salt) < 8 || len(key) < 16 || len(key) > 64 {
		return Params{}, nil, nil, ErrMalformed
	}
	return p, salt, key, nil
}
