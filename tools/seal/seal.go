// Package seal encrypts small values (such as client IP addresses in the
// audit log) under a 32-byte server key with AES-256-GCM.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeySize is the required server key length in bytes (AES-256).
const KeySize = 32

// MaxSealedLen bounds the sealed text Open accepts, so a caller cannot make
// it decode an arbitrarily large string.
const MaxSealedLen = 4096

var (
	// ErrMalformed means the sealed text is not base64url or too short to hold
	// a nonce and a tag.
	ErrMalformed = errors.New("seal: malformed sealed value")
	// ErrAuthentication means the key is wrong or the sealed value was altered.
	ErrAuthentication = errors.New("seal: authentication failed")
	// ErrKeySize means the key is not KeySize bytes.
	ErrKeySize = fmt.Errorf("seal: key must be %d bytes", KeySize)
)

var encoding = base64.RawURLEncoding

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, ErrKeySize
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal encrypts plaintext and returns base64url(nonce || ciphertext || tag)
// without padding. Every call draws a fresh random nonce.
func Seal(key, plaintext []byte) (string, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return encoding.EncodeToString(aead.Seal(nonce, nonce, plaintext, nil)), nil
}

// Open reverses Seal. It returns ErrMalformed for text that cannot be a
// sealed value and ErrAuthentication when the key is wrong or the value was
// tampered with.
func Open(key []byte, sealed string) ([]byte, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) > MaxSealedLen {
		return nil, ErrMalformed
	}
	raw, err := encoding.DecodeString(sealed)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrMalformed
	}
	nonce, ciphertext := raw[:aead.NonceSize()], raw[aead.NonceSize():]
	plaintext, err := aead.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		return nil, ErrAuthentication
	}
	return plaintext, nil
}
