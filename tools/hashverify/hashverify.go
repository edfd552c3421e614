// Package hashverify tells whether a password matches a hash string, and
// which scheme the hash is in: bcrypt ($2a$, $2b$, $2y$); argon2i and
// argon2id (PHC strings, v=19); scrypt ($scrypt$ of passlib and
// tools/hashgen, $7$ of libsodium, Django's scrypt$ and Werkzeug's
// scrypt:); PBKDF2 with SHA-1, SHA-256 or SHA-512 (PHC, passlib, Django and
// Werkzeug strings); md5-crypt ($1$, Apache's $apr1$); sha256-crypt ($5$)
// and sha512-crypt ($6$); and unsalted hex digests (every fast digest of
// tools/hashgen: MD5, NTLM, SHA-1, SHA-2, SHA-3, ...). A hex string whose
// length fits several digests (32 digits: MD5, NTLM or MD4) is tried with
// each, and the answer names the one that matched.
//
// The work a hash asks for is bounded before any is done: bcrypt, argon2
// and scrypt costs within tools/hashgen's bounds (the ones hash generation
// has), PBKDF2 within MaxPBKDF2Work and SHA-crypt within MaxCryptRounds;
// a hash past them is an *InvalidError that says which bound. Derived
// values are compared in constant time.
package hashverify

import (
	"crypto/subtle"
	"fmt"
	"strings"
)

// Bounds on the inputs. The password bound also bounds SHA-crypt and
// md5-crypt, whose rounds hash the password again each time.
const (
	MaxPasswordBytes = 1024
	MaxHashBytes     = 1024
	// MaxPBKDF2Work bounds iterations × blocks (a block per hash output of
	// derived key): 4,000,000, about a second of one core for SHA-256.
	MaxPBKDF2Work = 4_000_000
	// MaxCryptRounds bounds SHA-crypt's rounds= (the specification allows
	// 999,999,999), and MaxCryptWork bounds rounds × (password bytes + 64),
	// for each round hashes the password again: about 1.5 s of one core for
	// sha512-crypt, which at 1,000,000 rounds takes a password of up to 86
	// bytes, at the default 5,000 one of up to MaxPasswordBytes.
	MaxCryptRounds = 1_000_000
	MaxCryptWork   = 150_000_000
)

// Result is the answer of Verify.
type Result struct {
	Match bool
	// Scheme is the scheme that matched or, when none did, the scheme of
	// the hash (for a bare hex digest, the likeliest of Candidates).
	Scheme string
	// Format is the string form: "modular crypt", "PHC", "passlib",
	// "Django", "Werkzeug", "libsodium" or "hex".
	Format string
	// Candidates lists, for a hex digest whose length fits several
	// schemes, every scheme tried, likeliest first; nil otherwise.
	Candidates []string
}

// Hash is a parsed hash string, checked against the bounds but not yet
// compared with any password.
type Hash struct {
	schemes []string
	format  string
	slow    bool
	// refuse, when set, says why the scheme cannot take a password (past
	// MaxPasswordBytes, which Verify checks for every scheme).
	refuse func(password []byte) error
	// match returns the index in schemes of the scheme under which
	// password matches, or -1.
	match func(password []byte) int
}

// Scheme returns the scheme of h: for a hex digest that fits several, the
// likeliest.
func (h *Hash) Scheme() string { return h.schemes[0] }

// Slow reports whether verifying against h is costly by design (bcrypt,
// argon2, scrypt, PBKDF2, SHA-crypt): a server runs those in bounded
// slots. Digests and md5-crypt (1,000 MD5 rounds) are fast.
func (h *Hash) Slow() bool { return h.slow }

// Verify compares password with h. A password longer than
// MaxPasswordBytes is an *InvalidError, and so is one longer than bcrypt's
// 72 bytes for a bcrypt hash, or one that would take a SHA-crypt hash's
// rounds past MaxCryptWork.
func (h *Hash) Verify(password string) (Result, error) {
	if len(password) > MaxPasswordBytes {
		return Result{}, &InvalidError{Msg: fmt.Sprintf("the password is longer than %d bytes (%d)", MaxPasswordBytes, len(password))}
	}
	if h.refuse != nil {
		if err := h.refuse([]byte(password)); err != nil {
			return Result{}, err
		}
	}
	res := Result{Scheme: h.schemes[0], Format: h.format}
	if len(h.schemes) > 1 {
		res.Candidates = h.schemes
	}
	if i := h.match([]byte(password)); i >= 0 {
		res.Match, res.Scheme = true, h.schemes[i]
	}
	return res, nil
}

// Verify parses hash and compares password with it.
func Verify(password, hash string) (Result, error) {
	h, err := Parse(hash)
	if err != nil {
		return Result{}, err
	}
	return h.Verify(password)
}

// Parse reads a hash string (surrounding white space ignored) and checks
// its costs against the bounds. A string in none of the schemes is an
// *UnsupportedError; one in a scheme but malformed or past a bound, an
// *InvalidError.
func Parse(hash string) (*Hash, error) {
	s := strings.TrimSpace(hash)
	if len(s) > MaxHashBytes {
		return nil, &InvalidError{Msg: fmt.Sprintf("a hash string is at most %d bytes; this one has %d", MaxHashBytes, len(s))}
	}
	for _, p := range parsers {
		if strings.HasPrefix(s, p.prefix) {
			return p.parse(s)
		}
	}
	if isHex(s) {
		return parseHex(s)
	}
	if s == "" {
		return nil, &UnsupportedError{Detail: "the hash is empty"}
	}
	return nil, &UnsupportedError{}
}

// parsers are tried in order; the first whose prefix the string has reads
// it, so a longer prefix comes before a shorter one it starts with.
var parsers = []struct {
	prefix string
	parse  func(string) (*Hash, error)
}{
	{"$2", parseBcrypt},
	{"$argon2", parseArgon2},
	{"$scrypt$", parsePasslibScrypt},
	{"$7$", parseLibsodiumScrypt},
	{"$pbkdf2", parseModularPBKDF2},
	{"$1$", parseMD5Crypt},
	{"$apr1$", parseMD5Crypt},
	{"$5$", parseSHACrypt},
	{"$6$", parseSHACrypt},
	{"pbkdf2_", parseDjangoPBKDF2},
	{"scrypt$", parseDjangoScrypt},
	{"pbkdf2:", parseWerkzeugPBKDF2},
	{"scrypt:", parseWerkzeugScrypt},
}

// single is a Hash of one scheme.
func single(scheme, format string, slow bool, match func(password []byte) bool) *Hash {
	return &Hash{schemes: []string{scheme}, format: format, slow: slow,
		match: func(password []byte) int {
			if match(password) {
				return 0
			}
			return -1
		}}
}

// equal compares two derived values in constant time (in their length,
// which the hash string already shows).
func equal[T string | []byte](a, b T) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// schemeForms names every scheme and the strings it is read from, for
// UnsupportedError.
const schemeForms = "bcrypt ($2a$, $2b$, $2y$), argon2i and argon2id (PHC, $argon2id$v=19$m=…,t=…,p=…$salt$hash), " +
	"scrypt ($scrypt$ln=…, $7$, Django scrypt$, Werkzeug scrypt:), " +
	"PBKDF2 with SHA-1, SHA-256 or SHA-512 ($pbkdf2-sha256$ of PHC and passlib, Django pbkdf2_sha256$, Werkzeug pbkdf2:sha256:), " +
	"md5-crypt ($1$, $apr1$), sha256-crypt ($5$), sha512-crypt ($6$), " +
	"and unsalted hex digests (MD5, NTLM, MD4, SHA-1, SHA-2, SHA-3, BLAKE2, RIPEMD-160, CRC-32)"

// UnsupportedError is a hash string in no scheme Verify knows. Its message
// names the schemes it knows.
type UnsupportedError struct {
	// Detail says what the string is when it is known but not verifiable
	// (argon2d, a bcrypt $2x$); empty otherwise.
	Detail string
}

func (e *UnsupportedError) Error() string {
	detail := e.Detail
	if detail == "" {
		detail = "this is not a hash in a scheme that can be verified"
	}
	return detail + "; the schemes that can be: " + schemeForms
}

// InvalidError is a hash string in a known scheme that is malformed or
// asks for more work than the bounds allow, or a password the scheme
// cannot take.
type InvalidError struct {
	Scheme string // empty when the scheme is not known
	Msg    string
}

func (e *InvalidError) Error() string { return e.Msg }

func invalid(scheme, format string, args ...any) error {
	return &InvalidError{Scheme: scheme, Msg: fmt.Sprintf(format, args...)}
}
