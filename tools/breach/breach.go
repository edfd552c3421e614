// Package breach answers "has this password appeared in a breach?" offline:
// from a Pwned Passwords download (HEX:COUNT lines sorted by hash, searched
// in place by interpolation over byte offsets, memory independent of the
// file size) or from an embedded word list.
package breach

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"secutil/tools/hashgen"
)

// Kind is the hash a breach source is keyed by. (The constants are KindSHA1
// and KindNTLM because SHA1 and NTLM name the hash functions.)
type Kind int

const (
	KindSHA1 Kind = iota // 20-byte SHA-1 of the UTF-8 password
	KindNTLM             // 16-byte MD4 of the UTF-16LE password
)

// DigestLen is the digest length in bytes for the kind.
func (k Kind) DigestLen() int {
	if k == KindNTLM {
		return 16
	}
	return 20
}

// hexLen is the number of hex digits of the kind's digest.
func (k Kind) hexLen() int { return 2 * k.DigestLen() }

// Hash returns the kind's digest of password: SHA1 or NTLM.
func (k Kind) Hash(password string) []byte {
	if k == KindNTLM {
		return NTLM(password)
	}
	return SHA1(password)
}

func (k Kind) String() string {
	if k == KindNTLM {
		return "NTLM"
	}
	return "SHA-1"
}

// PrefixLen is the number of hex digits in a range query (Pwned Passwords range API semantics).
const PrefixLen = 5

// MaxRangeEntries bounds the entries a Range call returns. The real Pwned
// Passwords corpus holds about a thousand hashes per 5-hex prefix, so this is
// far above any honest file; a larger range yields ErrRangeTooLarge.
const MaxRangeEntries = 10000

// MaxPasswordBytes bounds the password accepted by ParseQuery.
const MaxPasswordBytes = 1024

var (
	ErrRangeTooLarge = fmt.Errorf("range holds more than %d entries", MaxRangeEntries)
	ErrDigestLength  = errors.New("breach: digest length does not match the source's hash kind")
	ErrBadPrefix     = fmt.Errorf("the range prefix (prefix) must be exactly %d hex digits of a SHA-1 hash", PrefixLen)
	ErrQueryFields   = errors.New("give exactly one of password, sha1, ntlm or prefix")
	ErrBadSHA1       = errors.New("the SHA-1 hash (sha1) must be exactly 40 hex digits")
	ErrBadNTLM       = errors.New("the NTLM hash (ntlm) must be exactly 32 hex digits")
	ErrLongPassword  = fmt.Errorf("password longer than %d bytes", MaxPasswordBytes)
)

// RangeEntry is one hash of a range: the hex digits after the prefix (upper-case) and its count.
type RangeEntry struct {
	Suffix string `json:"suffix"`
	Count  int64  `json:"count"`
}

// SHA1 returns the SHA-1 digest of the password's UTF-8 bytes.
func SHA1(password string) []byte {
	sum := sha1.Sum([]byte(password))
	return sum[:]
}

// NTLM returns the NT hash: MD4 of the password encoded as UTF-16LE.
func NTLM(password string) []byte { return hashgen.NTLM([]byte(password)) }

// Query is a parsed /data_breach request: either a full digest of Kind or a range Prefix.
type Query struct {
	Digest []byte
	Prefix string // upper-case, PrefixLen hex digits; set only for range queries
	Kind   Kind
}

// ParseQuery validates a request carrying exactly one of a password (hashed
// with SHA-1), a SHA-1 hex digest, an NTLM hex digest or a 5-hex range prefix
// (a SHA-1 range). Empty strings count as absent.
func ParseQuery(password, sha1hex, ntlmhex, prefix string) (Query, error) {
	set := 0
	for _, s := range []string{password, sha1hex, ntlmhex, prefix} {
		if s != "" {
			set++
		}
	}
	if set != 1 {
		return Query{}, ErrQueryFields
	}
	switch {
	case password != "":
		if len(password) > MaxPasswordBytes {
			return Query{}, ErrLongPassword
		}
		return Query{Digest: SHA1(password), Kind: KindSHA1}, nil
	case sha1hex != "":
		d, ok := decodeHex(sha1hex, KindSHA1.hexLen())
		if !ok {
			return Query{}, ErrBadSHA1
		}
		return Query{Digest: d, Kind: KindSHA1}, nil
	case ntlmhex != "":
		d, ok := decodeHex(ntlmhex, KindNTLM.hexLen())
		if !ok {
			return Query{}, ErrBadNTLM
		}
		return Query{Digest: d, Kind: KindNTLM}, nil
	default:
		p, err := normalizePrefix(prefix)
		if err != nil {
			return Query{}, err
		}
		return Query{Prefix: p, Kind: KindSHA1}, nil
	}
}

func decodeHex(s string, digits int) ([]byte, bool) {
	if len(s) != digits {
		return nil, false
	}
	d, err := hex.DecodeString(s)
	return d, err == nil
}

// normalizePrefix checks a range prefix and returns it upper-cased.
func normalizePrefix(prefix string) (string, error) {
	if len(prefix) != PrefixLen {
		return "", ErrBadPrefix
	}
	for i := 0; i < len(prefix); i++ {
		if !isHex(prefix[i]) {
			return "", ErrBadPrefix
		}
	}
	return strings.ToUpper(prefix), nil
}

// hexDigit marks the bytes that are hex digits. A table lookup is several
// times faster than comparisons on random digits, whose branches the CPU
// cannot predict, and a range answer checks some 40,000 of them.
var hexDigit = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = true
	}
	return t
}()

func isHex(c byte) bool { return hexDigit[c] }

// upperInPlace upper-cases the hex digits of b.
func upperInPlace(b []byte) {
	for i, c := range b {
		b[i] = upperDigit[c]
	}
}

// upperDigit maps a-f to A-F and every other byte to itself.
var upperDigit = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - ('a' - 'A')
	}
	return t
}()

// hexValue maps each hex digit, either case, to its value.
var hexValue = func() (t [256]byte) {
	for i, c := range []byte("0123456789ABCDEF") {
		t[c] = byte(i)
		t[upperDigit[c]|0x20] = byte(i) // lower case: A-F to a-f, digits unchanged
	}
	return t
}()

func upperHex(digest []byte) string { return string(appendUpperHex(nil, digest)) }

// appendUpperHex appends digest in upper-case hex to dst.
func appendUpperHex(dst, digest []byte) []byte {
	for _, b := range digest {
		dst = append(dst, hexPairs[b][:]...)
	}
	return dst
}
