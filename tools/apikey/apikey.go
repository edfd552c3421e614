// Package apikey makes and recognises secutil API keys and session tokens.
//
// A key is "sk_" + 40 base62 characters from crypto/rand + 6 base62
// characters of the CRC32 of those 40, so a secret scanner can recognise a
// key offline and a typo is rejected before any database work. Only the
// SHA-256 of a key is ever stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"hash/crc32"
	"strings"
)

const (
	Prefix       = "sk_"
	randomLen    = 40
	checksumLen  = 6
	Length       = len(Prefix) + randomLen + checksumLen
	alphabet     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	hintRandomLn = 4
)

// New returns a fresh API key.
func New() string {
	var b strings.Builder
	b.Grow(Length)
	b.WriteString(Prefix)
	random := randomBase62(randomLen)
	b.WriteString(random)
	sum := checksum(random)
	b.Write(sum[:])
	return b.String()
}

// WellFormed reports whether key has the shape and checksum of a key. It is
// a cheap filter; only the store decides whether a key is live.
func WellFormed(key string) bool {
	if len(key) != Length || !strings.HasPrefix(key, Prefix) {
		return false
	}
	random := key[len(Prefix) : len(Prefix)+randomLen]
	for i := 0; i < len(random); i++ {
		if !inAlphabet[random[i]] {
			return false
		}
	}
	sum := checksum(random)
	return key[len(Prefix)+randomLen:] == string(sum[:]) // compared without a copy
}

// inAlphabet marks the base62 characters; WellFormed runs on every API call.
var inAlphabet = func() (in [256]bool) {
	for i := 0; i < len(alphabet); i++ {
		in[alphabet[i]] = true
	}
	return in
}()

// Hash is the only form in which a key or token is stored.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// Hint is the part of a key that may be shown again later ("sk_AbCd…").
func Hint(key string) string {
	if len(key) < len(Prefix)+hintRandomLn {
		return Prefix + "…"
	}
	return key[:len(Prefix)+hintRandomLn] + "…"
}

// NewToken returns a 256-bit random token for sessions, base64url.
func NewToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // Go's crypto/rand never fails on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func checksum(s string) (out [checksumLen]byte) {
	n := crc32.ChecksumIEEE([]byte(s))
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = alphabet[n%62]
		n /= 62
	}
	return out
}

// randomBase62 draws uniformly by rejecting bytes ≥ 248 (= 4×62), avoiding
// modulo bias.
func randomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		for _, c := range buf {
			if c < 248 && len(out) < n {
				out = append(out, alphabet[c%62])
			}
		}
	}
	return string(out)
}
