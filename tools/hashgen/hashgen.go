// Package hashgen computes the hashes offered by /hash_generator: plain
// digests as lower-case hex, and the salted password hashes (bcrypt,
// argon2id, scrypt) as their standard encoded strings, at default costs or
// at costs the caller chooses within the bounds of bounds.go, which
// package hashverify applies to the hashes it is given too.
package hashgen

import (
	"cmp"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"math/bits"
	"strings"
	"unicode/utf16"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"

	//lint:ignore SA1019 MD4 and NTLM are legacy formats users ask for by name, not used for security
	"golang.org/x/crypto/md4"
	//lint:ignore SA1019 RIPEMD-160 is a legacy format users ask for by name, not used for security
	"golang.org/x/crypto/ripemd160"
	"golang.org/x/crypto/scrypt"

	"secutil/tools/argon2id"
)

// MaxPlaintextBytes bounds the input of any algorithm.
const MaxPlaintextBytes = 64 << 10

// Default costs of the salted algorithms, used where Options leaves a
// field zero.
const (
	BcryptCost = 10
	// scrypt N=2^15, r=8, p=1.
	ScryptLogN = 15
	ScryptR    = 8
	ScryptP    = 1
)

// Argon2 is argon2id at OWASP's minimum recommendation: m=19 MiB, t=2, p=1.
var Argon2 = argon2id.OWASP

type algorithm struct {
	name string
	// digest is set for unsalted hashes, salted for the password hashes.
	digest func([]byte) []byte
	salted func([]byte, Options) (string, error)
	// uses says which Options fields the algorithm reads.
	uses optionSet
}

func fromHash(newHash func() hash.Hash) func([]byte) []byte {
	return func(b []byte) []byte {
		h := newHash()
		h.Write(b)
		return h.Sum(nil)
	}
}

// algorithms in the order the OpenAPI document lists them.
var algorithms = []algorithm{
	{name: "md5", digest: fromHash(md5.New)},
	{name: "sha1", digest: fromHash(sha1.New)},
	{name: "sha224", digest: fromHash(sha256.New224)},
	{name: "sha256", digest: fromHash(sha256.New)},
	{name: "sha384", digest: fromHash(sha512.New384)},
	{name: "sha512", digest: fromHash(sha512.New)},
	{name: "sha512_224", digest: fromHash(sha512.New512_224)},
	{name: "sha512_256", digest: fromHash(sha512.New512_256)},
	{name: "sha3_224", digest: func(b []byte) []byte { s := sha3.Sum224(b); return s[:] }},
	{name: "sha3_256", digest: func(b []byte) []byte { s := sha3.Sum256(b); return s[:] }},
	{name: "sha3_384", digest: func(b []byte) []byte { s := sha3.Sum384(b); return s[:] }},
	{name: "sha3_512", digest: func(b []byte) []byte { s := sha3.Sum512(b); return s[:] }},
	{name: "blake2b_256", digest: func(b []byte) []byte { s := blake2b.Sum256(b); return s[:] }},
	{name: "blake2b_512", digest: func(b []byte) []byte { s := blake2b.Sum512(b); return s[:] }},
	{name: "blake2s_256", digest: func(b []byte) []byte { s := blake2s.Sum256(b); return s[:] }},
	{name: "ripemd160", digest: fromHash(ripemd160.New)},
	{name: "md4", digest: fromHash(md4.New)},
	{name: "ntlm", digest: NTLM},
	{name: "crc32", digest: func(b []byte) []byte { return binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)) }},
	{name: "bcrypt", salted: bcryptHash, uses: usesBcrypt},
	{name: "argon2id", salted: argon2idHash, uses: usesArgon2},
	{name: "scrypt", salted: scryptHash, uses: usesScrypt},
}

var byName = func() map[string]*algorithm {
	m := make(map[string]*algorithm, len(algorithms))
	for i := range algorithms {
		m[squash(algorithms[i].name)] = &algorithms[i]
	}
	return m
}()

// squash folds case and drops '-' and '_', so "SHA-256", "sha_256" and
// "Sha256" name the same algorithm; "sha3-512" stays distinct from
// "sha512" because its digit 3 survives.
func squash(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	// A byte loop, not a strings.Replacer: building one costs ~7 kB, and
	// byName squashes every name at package init.
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '-' && c != '_' && c != ' ' {
			out = append(out, c)
		}
	}
	return string(out)
}

// Algorithms lists the canonical names.
func Algorithms() []string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return names
}

// UnknownAlgorithmError names the allowed values.
type UnknownAlgorithmError struct{ Name string }

func (e *UnknownAlgorithmError) Error() string {
	return fmt.Sprintf("unknown algorithm %q; allowed: %s (case-insensitive, '-' and '_' ignored)",
		truncate(e.Name, 40), strings.Join(Algorithms(), ", "))
}

// InputError reports a plaintext the algorithm cannot take.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Slow reports whether name is one of the password hashes (bcrypt,
// argon2id, scrypt), costly in time and, for two of them, memory by design;
// false for fast digests and unknown names.
func Slow(name string) bool {
	a, ok := byName[squash(name)]
	return ok && a.salted != nil
}

// Canonical returns the canonical name of an algorithm name or alias.
func Canonical(name string) (string, bool) {
	a, ok := byName[squash(name)]
	if !ok {
		return "", false
	}
	return a.name, true
}

// Generate hashes plaintext with algorithm at the default costs and
// returns the canonical name and the hash.
func Generate(name, plaintext string) (canonical, encoded string, err error) {
	return GenerateWith(name, plaintext, Options{})
}

// GenerateWith is Generate with the costs of opts. A cost outside the
// bounds (MinBcryptCost..MaxBcryptCost and the like), or one the algorithm
// does not take (a bcrypt cost for sha256), is an *InputError; the bounds
// are checked before any work.
func GenerateWith(name, plaintext string, opts Options) (canonical, encoded string, err error) {
	a, ok := byName[squash(name)]
	if !ok {
		return "", "", &UnknownAlgorithmError{Name: name}
	}
	if extra := opts.set() &^ a.uses; extra != 0 {
		return "", "", &InputError{fmt.Sprintf("%s does not take %s", a.name, extra.describe())}
	}
	if len(plaintext) > MaxPlaintextBytes {
		return "", "", &InputError{fmt.Sprintf("plaintext is longer than %d bytes", MaxPlaintextBytes)}
	}
	if a.digest != nil {
		return a.name, hex.EncodeToString(a.digest([]byte(plaintext))), nil
	}
	encoded, err = a.salted([]byte(plaintext), opts)
	return a.name, encoded, err
}

// NTLM is MD4 over the UTF-16LE encoding of the password (invalid UTF-8
// becomes U+FFFD), the hash Windows stores.
func NTLM(b []byte) []byte {
	units := utf16.Encode([]rune(string(b)))
	le := make([]byte, 2*len(units))
	for i, u := range units {
		binary.LittleEndian.PutUint16(le[2*i:], u)
	}
	h := md4.New()
	h.Write(le)
	return h.Sum(nil)
}

// bcryptHash refuses more than 72 bytes rather than silently hashing a
// prefix, which would make two different passwords collide.
func bcryptHash(b []byte, opts Options) (string, error) {
	cost := cmp.Or(opts.BcryptCost, BcryptCost)
	if err := CheckBcryptCost(cost); err != nil {
		return "", err
	}
	if len(b) > 72 {
		return "", &InputError{"bcrypt takes at most 72 bytes of plaintext; this has " + fmt.Sprint(len(b))}
	}
	h, err := bcrypt.GenerateFromPassword(b, cost)
	if err != nil {
		return "", err
	}
	// Go writes the $2a$ tag; $2b$ (OpenBSD's fix for long inputs, which
	// cannot occur at ≤ 72 bytes) is the tag current libraries write. The
	// hash is identical, and every verifier accepts both.
	return "$2b$" + strings.TrimPrefix(string(h), "$2a$"), nil
}

func salt() ([]byte, error) {
	s := make([]byte, 16)
	_, err := rand.Read(s)
	return s, err
}

var b64 = base64.RawStdEncoding

// argon2idHash returns the PHC string $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func argon2idHash(b []byte, opts Options) (string, error) {
	m := cmp.Or(opts.Argon2MemoryKiB, int(Argon2.MemoryKiB))
	t := cmp.Or(opts.Argon2Time, int(Argon2.Time))
	p := cmp.Or(opts.Argon2Parallelism, int(Argon2.Parallelism))
	if err := CheckArgon2(m, t, p); err != nil {
		return "", err
	}
	params := argon2id.Params{MemoryKiB: uint32(m), Time: uint32(t), Parallelism: uint8(p)}
	s, err := salt()
	if err != nil {
		return "", err
	}
	return argon2id.PHC(params, s, params.Key(b, s, 32)), nil
}

// scryptHash returns the PHC-style string $scrypt$ln=15,r=8,p=1$salt$hash
// (the format of passlib and the PHC reference).
func scryptHash(b []byte, opts Options) (string, error) {
	n := cmp.Or(opts.ScryptN, 1<<ScryptLogN)
	r := cmp.Or(opts.ScryptR, ScryptR)
	p := cmp.Or(opts.ScryptP, ScryptP)
	if err := CheckScrypt(n, r, p); err != nil {
		return "", err
	}
	s, err := salt()
	if err != nil {
		return "", err
	}
	key, err := scrypt.Key(b, s, n, r, p, 32)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$scrypt$ln=%d,r=%d,p=%d$%s$%s", bits.TrailingZeros(uint(n)), r, p, b64.EncodeToString(s), b64.EncodeToString(key)), nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
