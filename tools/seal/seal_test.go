package seal_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"secutil/tools/seal"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, seal.KeySize) }

func TestRoundTrip(t *testing.T) {
	for _, msg := range []string{"", "203.0.113.7", "2001:db8::1", strings.Repeat("x", 1000)} {
		sealed, err := seal.Seal(key(1), []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		got, err := seal.Open(key(1), sealed)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != msg {
			t.Fatalf("got %q, want %q", got, msg)
		}
	}
}

func TestFreshNonce(t *testing.T) {
	a, _ := seal.Seal(key(1), []byte("same"))
	b, _ := seal.Seal(key(1), []byte("same"))
	if a == b {
		t.Fatal("two seals of the same value are identical")
	}
}

func TestOpenErrors(t *testing.T) {
	good, err := seal.Seal(key(1), []byte("198.51.100.1"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := []byte(good)
	if flipped[20] == 'A' {
		flipped[20] = 'B'
	} else {
		flipped[20] = 'A'
	}
	tests := []struct {
		name   string
		key    []byte
		sealed string
		want   error
	}{
		{"wrong key", key(2), good, seal.ErrAuthentication},
		{"tampered", key(1), string(flipped), seal.ErrAuthentication},
		{"not base64", key(1), "!!!!", seal.ErrMalformed},
		{"padded", key(1), good + "=", seal.ErrMalformed},
		{"too short", key(1), good[:20], seal.ErrMalformed},
		{"empty", key(1), "", seal.ErrMalformed},
		{"too long", key(1), strings.Repeat("A", seal.MaxSealedLen+1), seal.ErrMalformed},
		{"short key", key(1)[:16], good, seal.ErrKeySize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := seal.Open(tt.key, tt.sealed); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSealRejectsBadKey(t *testing.T) {
	if _, err := seal.Seal(nil, []byte("x")); !errors.Is(err, seal.ErrKeySize) {
		t.Fatalf("got %v, want %v", err, seal.ErrKeySize)
	}
}

func FuzzOpen(f *testing.F) {
	good, _ := seal.Seal(key(1), []byte("192.0.2.1"))
	for _, s := range []string{good, "", "AAAA", "!!", good[:30]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sealed string) {
		pt, err := seal.Open(key(1), sealed)
		if err != nil {
			if !errors.Is(err, seal.ErrMalformed) && !errors.Is(err, seal.ErrAuthentication) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// Only seals made under the key open; the sole one here holds 192.0.2.1.
		if string(pt) != "192.0.2.1" {
			t.Fatalf("forged value opened: %q", pt)
		}
	})
}

func BenchmarkSealOpen(b *testing.B) {
	b.ReportAllocs()
	k := key(1)
	for b.Loop() {
		s, _ := seal.Seal(k, []byte("203.0.113.7"))
		if _, err := seal.Open(k, s); err != nil {
			b.Fatal(err)
		}
	}
}
