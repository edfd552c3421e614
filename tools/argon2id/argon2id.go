// Package argon2id holds the argon2id cost parameters shared by account
// passwords (tools/passhash), the encryption envelope (tools/pbe) and hash
// generation (tools/hashgen), and the PHC string form that passwords and
// generated hashes are written in. Each user keeps its own bounds.
package argon2id

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	MemoryKiB   uint32
	Time        uint32
	Parallelism uint8
}

// OWASP is OWASP's password storage recommendation for argon2id
// (m=19 MiB, t=2, p=1): about 30 ms a hash on one core.
var OWASP = Params{MemoryKiB: 19 * 1024, Time: 2, Parallelism: 1}

// Key derives keyLen bytes from password and salt under p.
func (p Params) Key(password, salt []byte, keyLen uint32) []byte {
	return argon2.IDKey(password, salt, p.Time, p.MemoryKiB, p.Parallelism, keyLen)
}

// Usable reports whether argon2id can run with p as given (RFC 9106: at
// least one pass, one lane, and 8 KiB of memory per lane).
func (p Params) Usable() bool {
	return p.Time >= 1 && p.Parallelism >= 1 && p.MemoryKiB >= 8*uint32(p.Parallelism)
}

// Within reports whether no cost of p is above the same cost of ceiling.
func (p Params) Within(ceiling Params) bool {
	return p.MemoryKiB <= ceiling.MemoryKiB && p.Time <= ceiling.Time && p.Parallelism <= ceiling.Parallelism
}

var b64 = base64.RawStdEncoding

// PHC returns the PHC string of a derived key:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>, salt and key in unpadded base64.
func PHC(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Parallelism, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// ErrNotPHC means a string is not an argon2id PHC string of version 19.
var ErrNotPHC = errors.New("not an argon2id v=19 PHC string")

// ParsePHC splits a PHC string written by PHC into its parts. It checks the
// form only; the caller bounds the parameters and the lengths.
func ParsePHC(s string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return Params{}, nil, nil, ErrNotPHC
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Parallelism); err != nil {
		return Params{}, nil, nil, ErrNotPHC
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil {
		return Params{}, nil, nil, ErrNotPHC
	}
	if key, err = b64.DecodeString(parts[5]); err != nil {
		return Params{}, nil, nil, ErrNotPHC
	}
	return p, salt, key, nil
}
