package pbe_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/tools/pbe"
)

// cheap keeps unit tests fast; the format is the same at any cost.
var cheap = pbe.Params{MemoryKiB: 256, Time: 1, Parallelism: 1}

var ctx = context.Background()

func TestRoundTrip(t *testing.T) {
	e := pbe.NewEngine(2, cheap)
	for _, text := range []string{"", "hello", "ünïcødé 🔐", strings.Repeat("a", pbe.MaxPlaintextBytes)} {
		env, err := e.Encrypt(ctx, text, "pw")
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Decrypt(ctx, env, "pw")
		if err != nil {
			t.Fatal(err)
		}
		if got != text {
			t.Fatalf("round trip of %d bytes changed the text", len(text))
		}
	}
}

func TestEnvelopeCarriesParams(t *testing.T) {
	env, err := pbe.NewEngine(1, cheap).Encrypt(ctx, "x", "pw")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := pbe.ParseEnvelope(env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := parsed.Params, cheap; got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got, want := len(parsed.Ciphertext), 1+pbe.TagSize; got != want {
		t.Fatalf("got %d ciphertext bytes, want %d", got, want)
	}
}

func TestKnownAnswerVector(t *testing.T) {
	raw, err := os.ReadFile("testdata/vector.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Password, Plaintext, Envelope string }
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	got, err := pbe.NewEngine(1, pbe.DefaultParams).Decrypt(ctx, v.Envelope, v.Password)
	if err != nil {
		t.Fatal(err)
	}
	if got != v.Plaintext {
		t.Fatalf("got %q, want %q", got, v.Plaintext)
	}
}

func TestWrongPassword(t *testing.T) {
	e := pbe.NewEngine(1, cheap)
	env, _ := e.Encrypt(ctx, "secret", "right")
	if _, err := e.Decrypt(ctx, env, "wrong"); !errors.Is(err, pbe.ErrDecryptionFailed) {
		t.Fatalf("got %v, want %v", err, pbe.ErrDecryptionFailed)
	}
}

func TestEveryByteFlipFails(t *testing.T) {
	e := pbe.NewEngine(1, cheap)
	env, _ := e.Encrypt(ctx, "secret", "pw")
	raw, _ := base64.RawURLEncoding.DecodeString(env)
	for i := range raw {
		for _, mask := range []byte{0x01, 0x80} {
			flipped := append([]byte(nil), raw...)
			flipped[i] ^= mask
			_, err := e.Decrypt(ctx, base64.RawURLEncoding.EncodeToString(flipped), "pw")
			if !errors.Is(err, pbe.ErrDecryptionFailed) && !errors.Is(err, pbe.ErrInvalidInput) {
				t.Fatalf("byte %d mask %#x: got %v", i, mask, err)
			}
		}
	}
}

func TestEveryTruncationFails(t *testing.T) {
	e := pbe.NewEngine(1, cheap)
	env, _ := e.Encrypt(ctx, "secret", "pw")
	for n := range len(env) {
		if _, err := e.Decrypt(ctx, env[:n], "pw"); err == nil {
			t.Fatalf("truncation to %d characters decrypted", n)
		}
	}
}

func TestInvalidInput(t *testing.T) {
	e := pbe.NewEngine(1, cheap)
	env, _ := e.Encrypt(ctx, "secret", "pw")
	raw, _ := base64.RawURLEncoding.DecodeString(env)
	withByte := func(i int, b byte) string {
		c := append([]byte(nil), raw...)
		c[i] = b
		return base64.RawURLEncoding.EncodeToString(c)
	}
	tests := []struct{ name, envelope, password string }{
		{"empty password", env, ""},
		{"long password", env, strings.Repeat("p", pbe.MaxPasswordBytes+1)},
		{"not base64", "***", "pw"},
		{"padded base64", env + "==", "pw"},
		{"standard alphabet", strings.NewReplacer("-", "+", "_", "/").Replace(env) + "+/", "pw"},
		{"empty", "", "pw"},
		{"unknown version", withByte(0, 2), "pw"},
		{"unknown KDF", withByte(1, 9), "pw"},
		{"zero parallelism", withByte(10, 0), "pw"},
		{"parallelism above ceiling", withByte(10, 200), "pw"},
		{"too long", strings.Repeat("A", 200_000), "pw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.Decrypt(ctx, tt.envelope, tt.password); !errors.Is(err, pbe.ErrInvalidInput) {
				t.Fatalf("got %v, want %v", err, pbe.ErrInvalidInput)
			}
		})
	}
	if _, err := e.Encrypt(ctx, strings.Repeat("a", pbe.MaxPlaintextBytes+1), "pw"); !errors.Is(err, pbe.ErrInvalidInput) {
		t.Fatalf("long plaintext: got %v, want %v", err, pbe.ErrInvalidInput)
	}
	if _, err := e.Encrypt(ctx, "x", ""); !errors.Is(err, pbe.ErrInvalidInput) {
		t.Fatalf("empty password: got %v, want %v", err, pbe.ErrInvalidInput)
	}
}

func FuzzParseEnvelope(f *testing.F) {
	env, _ := pbe.NewEngine(1, cheap).Encrypt(ctx, "seed", "pw")
	for _, s := range []string{env, "", "AQE", env[:60], "!!", strings.Repeat("A", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parsed, err := pbe.ParseEnvelope(s)
		if err != nil {
			if !errors.Is(err, pbe.ErrInvalidInput) {
				t.Fatalf("error %v does not wrap ErrInvalidInput", err)
			}
			return
		}
		if parsed.Version != pbe.Version1 || parsed.KDF != pbe.KDFArgon2id {
			t.Fatalf("accepted version %d KDF %d", parsed.Version, parsed.KDF)
		}
		if len(parsed.Header) != pbe.HeaderSize || len(parsed.Ciphertext) < pbe.TagSize {
			t.Fatalf("header %d bytes, ciphertext %d bytes", len(parsed.Header), len(parsed.Ciphertext))
		}
	})
}

func BenchmarkEncryptDefault(b *testing.B) {
	b.ReportAllocs()
	e := pbe.NewEngine(1, pbe.DefaultParams)
	for b.Loop() {
		if _, err := e.Encrypt(ctx, "attack at dawn", "pw"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestObserveWait: every key derivation reports its wait for a slot, and
// a derivation queued behind a busy slot reports a real wait.
func TestObserveWait(t *testing.T) {
	e := pbe.NewEngine(1, pbe.Params{MemoryKiB: 1024, Time: 1, Parallelism: 1})
	var mu sync.Mutex
	var waits []time.Duration
	e.ObserveWait(func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
	})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := e.Encrypt(ctx, "text", "pw"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(waits) != 3 || slices.Max(waits) <= 0 {
		t.Fatalf("waits %v: want 3, one of them queued", waits)
	}
}
