package passgen

import (
	"bytes"
	"strings"
	"testing"
)

// TestUniformRejects: a draw at or above the largest multiple of n under
// 2^32 is drawn again rather than folded onto the low numbers.
func TestUniformRejects(t *testing.T) {
	t.Parallel()
	// 2^32 mod 3 is 1, so 0xffffffff is the one value rejected for n=3.
	got, err := uniform(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 5}), 3)
	if err != nil || got != 2 {
		t.Fatalf("uniform = %d, %v; want 5 mod 3 after one rejection", got, err)
	}
	// 0xfffffffe is below the limit: 4294967294 mod 3 = 2.
	if got, _ := uniform(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xfe}), 3); got != 2 {
		t.Fatalf("uniform = %d", got)
	}
}

// TestBrokenSourceIsAnError: a source that never gives an acceptable
// draw, or ends, is an error, not an endless loop.
func TestBrokenSourceIsAnError(t *testing.T) {
	t.Parallel()
	allOnes := Generator{Random: bytes.NewReader(bytes.Repeat([]byte{0xff}, 4*maxRejections))}
	if _, err := allOnes.Passphrase(DefaultPassphraseOptions()); err == nil || !strings.Contains(err.Error(), "rejected") {
		t.Fatalf("a source of 0xff: %v", err)
	}
	// All zeros is always 'a': never a digit too.
	zeros := Generator{Random: bytes.NewReader(make([]byte, 4*8*maxAttempts))}
	if _, err := zeros.Password(PasswordOptions{Length: 8, Lower: true, Digits: true}); err == nil || !strings.Contains(err.Error(), "lacked a class") {
		t.Fatalf("a source of zeros: %v", err)
	}
	if _, err := (Generator{Random: bytes.NewReader(nil)}).Password(DefaultPasswordOptions()); err == nil {
		t.Fatal("an empty source gave a password")
	}
}
