// Package passhash hashes account passwords with argon2id and verifies them in
// constant time. Hashes are PHC strings so parameters can be raised later
// without breaking existing accounts.
package passhash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	MemoryKiB   uint32
	Time        uint32
	Parallelism uint8
}

// Default follows OWASP's password storage recommendation for argon2id
// (m=19 MiB, t=2, p=1): about 30 ms a hash on one core.
var Default = Params{MemoryKiB: 19 * 1024, Time: 2, Parallelism: 1}

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
	key := derive(password, salt, p)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Parallelism, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches the PHC string encoded.
func Verify(password, encoded string) (bool, error) {
	p, salt, want, err := parse(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Parallelism, uint32(len(want)))
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
	return argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Parallelism, keyLen)
}

func parse(encoded string) (Params, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return Params{}, nil, nil, ErrMalformed
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Parallelism); err != nil {
		return Params{}, nil, nil, ErrMalformed
	}
	if p.MemoryKiB == 0 || p.Time == 0 || p.Parallelism == 0 ||
		p.MemoryKiB > maxParams.MemoryKiB || p.Time > maxParams.Time || p.Parallelism > maxParams.Parallelism {
		return Params{}, nil, nil, ErrMalformed
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return Params{}, nil, nil, ErrMalformed
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return Params{}, nil, nil, ErrMalformed
	}
	return p, salt, key, nil
}
