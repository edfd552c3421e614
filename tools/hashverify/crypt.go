package hashverify

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"strings"
	"sync"
)

// The crypt(3) schemes of this file are written from their published
// descriptions: Poul-Henning Kamp's MD5-based crypt of FreeBSD ($1$, and
// Apache's $apr1$, which differs only in its magic string), and Ulrich
// Drepper's "Unix crypt using SHA-256 and SHA-512" ($5$, $6$), whose test
// vectors the tests check.

// cryptAlphabet is the alphabet of crypt's base 64, least significant six
// bits first.
const cryptAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// cryptEncode writes sum in crypt's base 64: groups of three bytes,
// sum[order[i]], sum[order[i+1]], sum[order[i+2]] from most to least
// significant, each written as four characters from the least significant
// six bits up; a last group of one or two bytes writes two or three.
func cryptEncode(sum []byte, order []int) string {
	var out []byte
	for i := 0; i < len(order); i += 3 {
		group := order[i:min(i+3, len(order))]
		var w uint32
		for _, j := range group {
			w = w<<8 | uint32(sum[j])
		}
		for range len(group) + 1 {
			out = append(out, cryptAlphabet[w&0x3f])
			w >>= 6
		}
	}
	return string(out)
}

// The byte orders of the three schemes' output, from their
// specifications; SHA-crypt's are computed on first use.
var (
	md5CryptOrder = []int{0, 6, 12, 1, 7, 13, 2, 8, 14, 3, 9, 15, 4, 10, 5, 11}
	sha256Order   = sync.OnceValue(func() []int { return shaCryptOrder(32, 10) })
	sha512Order   = sync.OnceValue(func() []int { return shaCryptOrder(64, 21) })
)

// shaCryptOrder is SHA-crypt's byte order: triples (i, i+step, i+2·step)
// turned by i mod 3, the other way round for SHA-256 than for SHA-512, and
// the last one or two bytes alone.
func shaCryptOrder(size, step int) []int {
	var order []int
	for i := range step {
		triple := []int{i, i + step, i + 2*step}
		turn := i % 3
		if size == 32 {
			turn = (3 - turn) % 3
		}
		order = append(order, triple[turn], triple[(turn+1)%3], triple[(turn+2)%3])
	}
	if size == 32 {
		return append(order, 31, 30) // (0, 31, 30): a 16-bit group
	}
	return append(order, 63) // (0, 0, 63): an 8-bit group
}

// md5Crypt is the MD5-based crypt with magic "$1$" or "$apr1$" and a salt
// of at most 8 characters: 1,000 rounds, fixed.
func md5Crypt(password, magic, salt []byte) string {
	alternate := md5.New()
	alternate.Write(password)
	alternate.Write(salt)
	alternate.Write(password)
	alt := alternate.Sum(nil)

	ctx := md5.New()
	ctx.Write(password)
	ctx.Write(magic)
	ctx.Write(salt)
	for n := len(password); n > 0; n -= 16 {
		ctx.Write(alt[:min(n, 16)])
	}
	for n := len(password); n > 0; n >>= 1 {
		if n&1 != 0 {
			ctx.Write([]byte{0})
		} else {
			ctx.Write(password[:1])
		}
	}
	return cryptEncode(cryptRounds(ctx, ctx.Sum(nil), password, salt, 1000), md5CryptOrder)
}

// cryptRounds runs the rounds md5-crypt and SHA-crypt share: round i
// hashes the previous sum and the password (password first in odd rounds),
// with the salt between them unless i is a multiple of 3 and the password
// again unless it is a multiple of 7. (SHA-crypt passes its P and S
// sequences as password and salt.)
func cryptRounds(h hash.Hash, sum, password, salt []byte, rounds int) []byte {
	for i := range rounds {
		h.Reset()
		if i&1 != 0 {
			h.Write(password)
		} else {
			h.Write(sum)
		}
		if i%3 != 0 {
			h.Write(salt)
		}
		if i%7 != 0 {
			h.Write(password)
		}
		if i&1 != 0 {
			h.Write(sum)
		} else {
			h.Write(password)
		}
		sum = h.Sum(sum[:0])
	}
	return sum
}

// SHA-crypt's rounds: 5,000 unless the string says rounds=N, which is
// raised to at least 1,000 (as the specification does, not refused).
const (
	shaCryptDefaultRounds = 5000
	shaCryptMinRounds     = 1000
)

// shaCrypt is Drepper's SHA-crypt over newHash (SHA-256 or SHA-512) with a
// salt of at most 16 bytes.
func shaCrypt(newHash func() hash.Hash, password, salt []byte, rounds int) []byte {
	b := newHash()
	b.Write(password)
	b.Write(salt)
	b.Write(password)
	sumB := b.Sum(nil)
	size := len(sumB)

	a := newHash()
	a.Write(password)
	a.Write(salt)
	for n := len(password); n > 0; n -= size {
		a.Write(sumB[:min(n, size)])
	}
	for n := len(password); n > 0; n >>= 1 {
		if n&1 != 0 {
			a.Write(sumB)
		} else {
			a.Write(password)
		}
	}
	sumA := a.Sum(nil)

	// The P and S sequences: the password's and the salt's lengths of the
	// digests of the password len(password) times and of the salt
	// 16+sumA[0] times.
	dp := newHash()
	for range len(password) {
		dp.Write(password)
	}
	pSeq := repeatTo(dp.Sum(nil), len(password))
	ds := newHash()
	for range 16 + int(sumA[0]) {
		ds.Write(salt)
	}
	sSeq := repeatTo(ds.Sum(nil), len(salt))

	return cryptRounds(newHash(), sumA, pSeq, sSeq, rounds)
}

// repeatTo returns n bytes of sum repeated.
func repeatTo(sum []byte, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, sum[:min(len(sum), n-len(out))]...)
	}
	return out
}

// parseMD5Crypt reads $1$salt$hash and $apr1$salt$hash.
func parseMD5Crypt(s string) (*Hash, error) {
	magic, scheme := "$1$", "md5_crypt"
	if strings.HasPrefix(s, "$apr1$") {
		magic, scheme = "$apr1$", "apr1_md5_crypt"
	}
	salt, sum, ok := strings.Cut(s[len(magic):], "$")
	if !ok || len(salt) > 8 || len(sum) != 22 || !inCryptAlphabet(sum) {
		return nil, malformed(scheme, magic+"salt$hash, with a salt of at most 8 characters and a hash of 22")
	}
	return single(scheme, "modular crypt", false, func(password []byte) bool {
		return equal(md5Crypt(password, []byte(magic), []byte(salt)), sum)
	}), nil
}

// parseSHACrypt reads $5$[rounds=N$]salt$hash and the same with $6$.
func parseSHACrypt(s string) (*Hash, error) {
	scheme, newHash, order, size := "sha256_crypt", sha256.New, sha256Order, 43
	if s[1] == '6' {
		scheme, newHash, order, size = "sha512_crypt", sha512.New, sha512Order, 86
	}
	rest := s[3:]
	rounds := shaCryptDefaultRounds
	if r, ok := strings.CutPrefix(rest, "rounds="); ok {
		digits, after, _ := strings.Cut(r, "$")
		n, ok := number(digits)
		if !ok {
			return nil, malformed(scheme, s[:3]+"rounds=N$salt$hash, N a whole number")
		}
		if n > MaxCryptRounds {
			return nil, beyond(scheme, fmt.Errorf("rounds must be at most %d; got %d", MaxCryptRounds, n))
		}
		rounds, rest = max(n, shaCryptMinRounds), after
	}
	salt, sum, ok := strings.Cut(rest, "$")
	if !ok || len(salt) > 16 || len(sum) != size || !inCryptAlphabet(sum) {
		return nil, malformed(scheme, fmt.Sprintf("%s[rounds=N$]salt$hash, with a salt of at most 16 characters and a hash of %d", s[:3], size))
	}
	h := single(scheme, "modular crypt", true, func(password []byte) bool {
		return equal(cryptEncode(shaCrypt(newHash, password, []byte(salt), rounds), order()), sum)
	})
	h.refuse = func(password []byte) error {
		if rounds*(len(password)+64) > MaxCryptWork {
			return invalid(scheme, "at %d rounds this %s hash takes a password of at most %d bytes here, for each round hashes it again; this one has %d",
				rounds, scheme, MaxCryptWork/rounds-64, len(password))
		}
		return nil
	}
	return h, nil
}

func inCryptAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(cryptAlphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}
