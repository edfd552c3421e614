package codec

import (
	"bytes"
	"strings"
	"testing"
)

// TestAlphanumericWithoutBias: fed each byte value once, the rejection
// draw gives every character exactly four times, so with uniform bytes
// every character is equally likely; the eight bytes from 248 up are
// dropped, not folded onto the first characters.
func TestAlphanumericWithoutBias(t *testing.T) {
	t.Parallel()
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	// n+n/16+8 bytes are read at a time: 248 characters read 279 bytes,
	// the 256 values and then 23 more that must not be needed.
	stream := append(every, bytes.Repeat([]byte{255}, 23)...)
	key, err := alphanumericKey(bytes.NewReader(stream), 248)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range alphanumeric {
		if n := strings.Count(key, string(c)); n != 4 {
			t.Fatalf("%q appears %d times in %q, want 4", c, n, key)
		}
	}
}
