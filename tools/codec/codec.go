// Package codec holds the base64 tool and the random key generator.
package codec

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrInvalidBase64 is wrapped by every decoding error.
var ErrInvalidBase64 = errors.New("invalid base64")

// Base64Encode encodes text with the standard, padded alphabet.
func Base64Encode(text string) string {
	return base64.StdEncoding.EncodeToString([]byte(text))
}

// Base64Decode accepts the standard and URL-safe alphabets, padded or not,
// with surrounding white space and line breaks (as in MIME bodies). The
// result must be UTF-8 text, since the API answers with a JSON string.
func Base64Decode(text string) (string, error) {
	cleaned := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, text)
	unpadded := strings.TrimRight(cleaned, "=")
	if len(cleaned)-len(unpadded) > 2 {
		return "", fmt.Errorf("%w: more than two '=' padding characters", ErrInvalidBase64)
	}
	cleaned = unpadded
	raw, err := base64.RawStdEncoding.DecodeString(cleaned)
	if err != nil {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return "", fmt.Errorf("%w: unexpected character or length at byte %d of the cleaned input", ErrInvalidBase64, int64(corrupt))
		}
		return "", fmt.Errorf("%w: %v", ErrInvalidBase64, err)
	}
	if !utf8.Valid(raw) {
		return "", fmt.Errorf("%w: the decoded bytes are not UTF-8 text (binary data cannot be returned as a JSON string)", ErrInvalidBase64)
	}
	return string(raw), nil
}

// RandomKey returns 256 bits from crypto/rand as 64 lower-case hex characters.
func RandomKey() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
