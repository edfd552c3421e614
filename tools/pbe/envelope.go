// Package pbe encrypts text under a password: argon2id derives a 32-byte key
// for XChaCha20-Poly1305, and the result is a versioned, self-describing
// envelope encoded as unpadded base64url. docs/ENVELOPE.md describes the
// format byte by byte.
package pbe

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"

	"secutil/tools/argon2id"
)

// Envelope format constants.
const (
	Version1     = 1 // the only format version so far
	KDFArgon2id  = 1 // the only key-derivation function so far
	SaltSize     = 16
	NonceSize    = chacha20poly1305.NonceSizeX // 24
	TagSize      = chacha20poly1305.Overhead   // 16
	KeySize      = chacha20poly1305.KeySize    // 32
	HeaderSize   = 1 + 1 + 4 + 4 + 1 + SaltSize + NonceSize
	MinEnvelope  = HeaderSize + TagSize
	MaxEnvelope  = HeaderSize + MaxPlaintextBytes + TagSize
	maxEncodedSz = (MaxEnvelope*8 + 5) / 6
)

// MaxPlaintextBytes is the largest plaintext Encrypt accepts (and therefore
// the largest Decrypt can return).
const MaxPlaintextBytes = 64 << 10

// MaxPasswordBytes bounds the password so hashing it costs nothing notable.
const MaxPasswordBytes = 1024

var (
	// ErrDecryptionFailed means the password is wrong or the envelope was
	// altered; the two are indistinguishable by design.
	ErrDecryptionFailed = errors.New("decryption failed")
	// ErrInvalidInput is wrapped by every error about malformed input:
	// bad base64, truncation, unknown version or KDF, parameters out of
	// bounds, empty or too long password, too long plaintext.
	ErrInvalidInput = errors.New("invalid input")
)

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidInput, fmt.Sprintf(format, args...))
}

// Params are the argon2id cost parameters stored in every envelope, the
// type account passwords and hash generation use too.
type Params = argon2id.Params

// DefaultParams are used by the server for new envelopes: 64 MiB, 3 passes,
// one lane.
var DefaultParams = Params{MemoryKiB: 64 * 1024, Time: 3, Parallelism: 1}

// MaxParams bounds the parameters an Engine may be configured with (and
// so, since an engine decrypts nothing costlier than it encrypts, the
// envelopes any engine opens).
var MaxParams = Params{MemoryKiB: 256 * 1024, Time: 10, Parallelism: 4}

// Envelope is a parsed envelope. Header holds the raw header bytes, which
// are the AEAD additional data.
type Envelope struct {
	Version    uint8
	KDF        uint8
	Params     Params
	Salt       [SaltSize]byte
	Nonce      [NonceSize]byte
	Ciphertext []byte // ciphertext followed by the 16-byte tag
	Header     []byte
}

var encoding = base64.RawURLEncoding

// marshal lays the envelope out as bytes; Header is recomputed.
func (env *Envelope) marshal() []byte {
	out := make([]byte, 0, HeaderSize+len(env.Ciphertext))
	out = append(out, env.Version, env.KDF)
	out = binary.BigEndian.AppendUint32(out, env.Params.MemoryKiB)
	out = binary.BigEndian.AppendUint32(out, env.Params.Time)
	out = append(out, env.Params.Parallelism)
	out = append(out, env.Salt[:]...)
	out = append(out, env.Nonce[:]...)
	env.Header = out[:HeaderSize:HeaderSize]
	return append(out, env.Ciphertext...)
}

// ParseEnvelope decodes and checks the structure of an envelope string. It
// does not bound the parameters; Engine.Decrypt does.
func ParseEnvelope(s string) (Envelope, error) {
	if len(s) > maxEncodedSz {
		return Envelope{}, invalid("envelope longer than %d characters", maxEncodedSz)
	}
	raw, err := encoding.DecodeString(s)
	if err != nil {
		return Envelope{}, invalid("envelope is not unpadded base64url")
	}
	if len(raw) < MinEnvelope {
		return Envelope{}, invalid("envelope too short (%d bytes, need at least %d)", len(raw), MinEnvelope)
	}
	env := Envelope{Version: raw[0], KDF: raw[1]}
	if env.Version != Version1 {
		return Envelope{}, invalid("unknown envelope version %d", env.Version)
	}
	if env.KDF != KDFArgon2id {
		return Envelope{}, invalid("unknown key-derivation function %d", env.KDF)
	}
	env.Params = Params{
		MemoryKiB:   binary.BigEndian.Uint32(raw[2:6]),
		Time:        binary.BigEndian.Uint32(raw[6:10]),
		Parallelism: raw[10],
	}
	if !env.Params.Usable() {
		return Envelope{}, invalid("argon2id parameters out of range")
	}
	copy(env.Salt[:], raw[11:11+SaltSize])
	copy(env.Nonce[:], raw[11+SaltSize:HeaderSize])
	env.Header = raw[:HeaderSize:HeaderSize]
	env.Ciphertext = raw[HeaderSize:]
	return env, nil
}
