package pbe

import (
	"context"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Engine encrypts and decrypts envelopes. Key derivations go through a
// semaphore so that, however many requests arrive, at most `concurrency`
// argon2id computations (each MemoryKiB of RAM) run at once; other
// memory-hard work can share it through WithSlot. It decrypts only
// envelopes that cost no more than the ones it writes.
type Engine struct {
	params Params
	slots  chan struct{}
	random io.Reader
	// deriveKey is argon2id; tests swap it to observe concurrency.
	deriveKey func(password, salt []byte, p Params) []byte
	// waitObserver is told how long each holder of a slot waited for it.
	waitObserver atomic.Pointer[func(time.Duration)]
}

// ObserveWait sets fn to be told how long each key derivation (or other
// WithSlot work) waited for a free slot (nil removes it): the semaphore's
// queueing, for monitoring.
func (e *Engine) ObserveWait(fn func(time.Duration)) { e.waitObserver.Store(&fn) }

// NewEngine returns an Engine that writes envelopes with p and runs at most
// concurrency key derivations at a time (values below 1 mean 1). It panics
// if p cannot be used or exceeds MaxParams, as that is a programming error.
func NewEngine(concurrency int, p Params) *Engine {
	if !p.Usable() || !p.Within(MaxParams) {
		panic(fmt.Sprintf("pbe: unusable parameters %+v", p))
	}
	return &Engine{
		params:    p,
		slots:     make(chan struct{}, max(concurrency, 1)),
		random:    rand.Reader,
		deriveKey: argon2idKey,
	}
}

func argon2idKey(password, salt []byte, p Params) []byte {
	return p.Key(password, salt, KeySize)
}

// WithSlot waits for a free key-derivation slot (or for ctx to end, whose
// error it then returns) and runs work while holding it, so that other
// memory-hard work (the slow hashes of hash generation) shares the bound.
func (e *Engine) WithSlot(ctx context.Context, work func()) error {
	start := time.Now()
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.slots }()
	if fn := e.waitObserver.Load(); fn != nil && *fn != nil {
		(*fn)(time.Since(start))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	work()
	return nil
}

// key derives the key in a slot.
func (e *Engine) key(ctx context.Context, password string, salt []byte, p Params) (key []byte, err error) {
	err = e.WithSlot(ctx, func() { key = e.deriveKey([]byte(password), salt, p) })
	return key, err
}

func checkPassword(password string) error {
	if password == "" {
		return invalid("password is empty")
	}
	if len(password) > MaxPasswordBytes {
		return invalid("password longer than %d bytes", MaxPasswordBytes)
	}
	return nil
}

// aeadFor derives the envelope's key from password (waiting for a KDF slot)
// and returns its XChaCha20-Poly1305 AEAD.
func (e *Engine) aeadFor(ctx context.Context, password string, env Envelope) (cipher.AEAD, error) {
	key, err := e.key(ctx, password, env.Salt[:], env.Params)
	if err != nil {
		return nil, err
	}
	return chacha20poly1305.NewX(key)
}

// Encrypt seals plaintext under password and returns the envelope string.
func (e *Engine) Encrypt(ctx context.Context, plaintext, password string) (string, error) {
	if err := checkPassword(password); err != nil {
		return "", err
	}
	if len(plaintext) > MaxPlaintextBytes {
		return "", invalid("text longer than %d bytes", MaxPlaintextBytes)
	}
	env := Envelope{Version: Version1, KDF: KDFArgon2id, Params: e.params}
	if _, err := io.ReadFull(e.random, env.Salt[:]); err != nil {
		return "", err
	}
	if _, err := io.ReadFull(e.random, env.Nonce[:]); err != nil {
		return "", err
	}
	aead, err := e.aeadFor(ctx, password, env)
	if err != nil {
		return "", err
	}
	// marshal returns exactly the header with no spare capacity, so Seal
	// appends into a fresh buffer and never overwrites the additional data.
	header := env.marshal()
	out := aead.Seal(header, env.Nonce[:], []byte(plaintext), header)
	return encoding.EncodeToString(out), nil
}

// Decrypt opens an envelope. Malformed envelopes, and envelopes that ask
// for more memory, passes or lanes than the engine's own parameters, fail
// with ErrInvalidInput before any key derivation: a crafted envelope cannot
// make a decryption cost more than an encryption. A wrong password or any
// tampering fails with ErrDecryptionFailed, after the key derivation.
func (e *Engine) Decrypt(ctx context.Context, envelope, password string) (string, error) {
	if err := checkPassword(password); err != nil {
		return "", err
	}
	env, err := ParseEnvelope(envelope)
	if err != nil {
		return "", err
	}
	if !env.Params.Within(e.params) {
		return "", invalid("the envelope's argon2id costs (%d KiB, t=%d, p=%d) exceed this server's own (%d KiB, t=%d, p=%d)",
			env.Params.MemoryKiB, env.Params.Time, env.Params.Parallelism, e.params.MemoryKiB, e.params.Time, e.params.Parallelism)
	}
	aead, err := e.aeadFor(ctx, password, env)
	if err != nil {
		return "", err
	}
	plaintext, err := aead.Open(nil, env.Nonce[:], env.Ciphertext, env.Header)
	if err != nil {
		return "", ErrDecryptionFailed
	}
	return string(plaintext), nil
}
