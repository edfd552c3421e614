package hashid

import (
	"crypto/sha256"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// base58Check encodes payload with its checksum as Bitcoin writes
// addresses: a '1' for each leading zero byte, then the value in base 58.
func base58Check(payload []byte) string {
	first := sha256.Sum256(payload)
	second := sha256.Sum256(first[:])
	b := append(append([]byte{}, payload...), second[:4]...)
	var digits []byte
	for v, r := new(big.Int).SetBytes(b), new(big.Int); v.Sign() > 0; {
		v.QuoRem(v, big.NewInt(58), r)
		digits = append(digits, base58Alphabet[r.Int64()])
	}
	for i := 0; i < len(b) && b[i] == 0; i++ {
		digits = append(digits, '1')
	}
	for i, j := 0, len(digits)-1; i < j; i, j = i+1, j-1 {
		digits[i], digits[j] = digits[j], digits[i]
	}
	return string(digits)
}

// TestBase58CheckValid: an address whose checksum verifies is told from
// one with a digit changed, whatever its leading zero bytes.
func TestBase58CheckValid(t *testing.T) {
	t.Parallel()
	if !base58CheckValid("1BoatSLRHtKNngkdXEeobR76b53LETtpyT") || base58CheckValid("1BoatSLRHtKNngkdXEeobR76b53LETtpyU") {
		t.Error("1BoatSLRHtKNngkdXEeobR76b53LETtpyT")
	}
	rng := rand.New(rand.NewPCG(58, 1))
	for n := range 300 {
		payload := make([]byte, 1+n%30)
		for i := range payload {
			payload[i] = byte(rng.Uint32())
		}
		for i := range min(n%4, len(payload)) {
			payload[i] = 0
		}
		s := base58Check(payload)
		if !base58CheckValid(s) {
			t.Fatalf("%x: %q does not verify", payload, s)
		}
		i := rng.IntN(len(s))
		other := base58Alphabet[(strings.IndexByte(base58Alphabet, s[i])+1+rng.IntN(57))%58]
		if changed := s[:i] + string(other) + s[i+1:]; base58CheckValid(changed) {
			t.Fatalf("%q (from %q) verifies", changed, s)
		}
	}
	if base58CheckValid(strings.Repeat("1", 64)) || base58CheckValid(strings.Repeat("z", 65)) {
		t.Error("all ones, or too long, verify")
	}
}
