// Package passhash hashes account passwords with argon2id and verifies them in
// constant time. Hashes are PHC strings so parameters can be raised later
// without breaking existing accounts.
package passhash

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"runtime"

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

// slots bounds concurrent argon2 work: each call holds MemoryKiB of RAM.
var slots = make(chan struct{}, 2*runtime.NumCPU())

// Hash returns the PHC string of password under p.
func Hash(password string, p Params) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return argon2id.PHC(p, salt, derive(password, salt, p)), nil
}

// Verify reports whether password matches the PHC string encoded.
func Verify(password, encoded string) (bool, error) {
	p, salt, want, err := parse(encoded)
	if err != nil {
		return false, err
	}
	got := p.Key([]byte(password), salt, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is verified against when an account does not exist, so that a
// login for an unknown email costs the same time as one for a known email.
var dummyHash, _ = Hash("secutil-timing-equaliser", Default)

// VerifyNothing spends the time of one Verify and always fails.
func VerifyNothing(password string) {
	_, _ = Verify(password, dummyHash)
}

func derive(password string, salt []byte, p Params) []byte {
	slots <- struct{}{}
	defer func() { <-slots }()
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
