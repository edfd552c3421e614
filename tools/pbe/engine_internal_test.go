package pbe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// vectorParams keep the committed known-answer vector cheap to check.
var vectorParams = Params{MemoryKiB: 1024, Time: 2, Parallelism: 1}

type vector struct {
	Password  string `json:"password"`
	Plaintext string `json:"plaintext"`
	Salt      string `json:"salt_hex"`
	Nonce     string `json:"nonce_hex"`
	Envelope  string `json:"envelope"`
}

// fixedRandom yields salt 00..0f then nonce 10..27, as in docs/ENVELOPE.md.
func fixedRandom() *bytes.Reader {
	b := make([]byte, SaltSize+NonceSize)
	for i := range b {
		b[i] = byte(i)
	}
	return bytes.NewReader(b)
}

// TestVectorIsReproducible proves the encoder still writes exactly the
// committed envelope. Set SECUTIL_WRITE_VECTOR=1 to (re)create the file.
func TestVectorIsReproducible(t *testing.T) {
	e := NewEngine(1, vectorParams)
	e.random = fixedRandom()
	v := vector{Password: "correct horse battery staple", Plaintext: "attack at dawn"}
	got, err := e.Encrypt(context.Background(), v.Plaintext, v.Password)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SECUTIL_WRITE_VECTOR") == "1" {
		v.Salt, v.Nonce, v.Envelope = "000102030405060708090a0b0c0d0e0f", "101112131415161718191a1b1c1d1e1f2021222324252627", got
		out, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile("testdata/vector.json", append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile("testdata/vector.json")
	if err != nil {
		t.Fatal(err)
	}
	var want vector
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if got != want.Envelope {
		t.Fatalf("got %s, want %s", got, want.Envelope)
	}
}

// countKDF wraps the engine's key derivation to record how many run at once.
func countKDF(e *Engine) (calls, peak *atomic.Int32) {
	calls, peak = new(atomic.Int32), new(atomic.Int32)
	var running atomic.Int32
	inner := e.deriveKey
	e.deriveKey = func(password, salt []byte, p Params) []byte {
		calls.Add(1)
		now := running.Add(1)
		for {
			old := peak.Load()
			if now <= old || peak.CompareAndSwap(old, now) {
				break
			}
		}
		defer running.Add(-1)
		return inner(password, salt, p)
	}
	return calls, peak
}

func TestConcurrencyBounded(t *testing.T) {
	e := NewEngine(2, Params{MemoryKiB: 256, Time: 1, Parallelism: 1})
	calls, peak := countKDF(e)
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if _, err := e.Encrypt(context.Background(), "secret", "pw"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, want := calls.Load(), int32(100); got != want {
		t.Fatalf("got %d KDF calls, want %d", got, want)
	}
	if got := peak.Load(); got > 2 || got < 1 {
		t.Fatalf("got %d KDF running at once, want 1 or 2", got)
	}
}

func TestCancelledWhileWaiting(t *testing.T) {
	e := NewEngine(1, Params{MemoryKiB: 256, Time: 1, Parallelism: 1})
	e.slots <- struct{}{} // the only slot is busy
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Encrypt(ctx, "x", "pw"); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want %v", err, context.Canceled)
	}
}

// TestCeilingCheckedBeforeKDF: an envelope could name costs far above what
// the server writes (about 7 s of CPU each); now nothing above the engine's
// own parameters gets a key derivation.
func TestCeilingCheckedBeforeKDF(t *testing.T) {
	own := Params{MemoryKiB: 256, Time: 2, Parallelism: 2}
	e := NewEngine(1, own)
	env, err := e.Encrypt(context.Background(), "x", "pw")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := encoding.DecodeString(env)
	for _, p := range []Params{
		{MemoryKiB: own.MemoryKiB + 1, Time: 1, Parallelism: 1},
		{MemoryKiB: MaxParams.MemoryKiB, Time: MaxParams.Time, Parallelism: MaxParams.Parallelism}, // about 7 s of CPU
		{MemoryKiB: 4 << 20, Time: 1, Parallelism: 1},                                              // 4 GiB
		{MemoryKiB: 64, Time: own.Time + 1, Parallelism: 1},
		{MemoryKiB: 64, Time: 1, Parallelism: own.Parallelism + 1},
	} {
		crafted := Envelope{Version: Version1, KDF: KDFArgon2id, Params: p, Ciphertext: raw[HeaderSize:]}
		calls, _ := countKDF(e)
		if _, err := e.Decrypt(context.Background(), encoding.EncodeToString(crafted.marshal()), "pw"); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("params %+v: got %v, want %v", p, err, ErrInvalidInput)
		}
		if n := calls.Load(); n != 0 {
			t.Fatalf("params %+v: KDF ran %d times", p, n)
		}
	}
	// At or below its own costs, an envelope is worked on (and a cheaper
	// one, written by an older setting, still opens).
	cheaper := NewEngine(1, Params{MemoryKiB: 64, Time: 1, Parallelism: 1})
	old, _ := cheaper.Encrypt(context.Background(), "old", "pw")
	if got, err := e.Decrypt(context.Background(), old, "pw"); err != nil || got != "old" {
		t.Fatalf("a cheaper envelope: %q, %v", got, err)
	}
}

func TestWithSlotSharesTheBound(t *testing.T) {
	e := NewEngine(1, Params{MemoryKiB: 64, Time: 1, Parallelism: 1})
	release := make(chan struct{})
	held := make(chan struct{})
	go e.WithSlot(context.Background(), func() { close(held); <-release })
	<-held
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Encrypt(ctx, "x", "pw"); !errors.Is(err, context.Canceled) {
		t.Fatalf("an encryption ran beside other work holding the only slot: %v", err)
	}
	ran := false
	if err := e.WithSlot(ctx, func() { ran = true }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("WithSlot ran work without a slot: %v", err)
	}
	close(release)
	if err := e.WithSlot(context.Background(), func() { ran = true }); err != nil || !ran {
		t.Fatalf("after release: %v, ran %v", err, ran)
	}
}

// FuzzDecrypt decrypts arbitrary envelopes with an engine of tiny costs, so
// every accepted input stays cheap; only the seed envelope may open.
func FuzzDecrypt(f *testing.F) {
	e := NewEngine(1, Params{MemoryKiB: 256, Time: 2, Parallelism: 2})
	good, err := e.Encrypt(context.Background(), "fuzz", "pw")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{good, good[:40], "", "AQ", good + "A"} {
		f.Add(s, "pw")
	}
	f.Fuzz(func(t *testing.T, envelope, password string) {
		got, err := e.Decrypt(context.Background(), envelope, password)
		if err != nil {
			if !errors.Is(err, ErrInvalidInput) && !errors.Is(err, ErrDecryptionFailed) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if got != "fuzz" || password != "pw" {
			t.Fatalf("opened %q from a forged envelope", got)
		}
	})
}
