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
var ErrInvalidBase64 = errors.New("this is not base64")

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
		return "", fmt.Errorf("%w: it ends in more than two '=' signs, and base64 pads with at most two", ErrInvalidBase64)
	}
	cleaned = unpadded
	raw, err := base64.RawStdEncoding.DecodeString(cleaned)
	if err != nil {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return "", fmt.Errorf("%w: %s", ErrInvalidBase64, explainCorrupt(cleaned, int(corrupt)))
		}
		return "", fmt.Errorf("%w: %v", ErrInvalidBase64, err)
	}
	if !utf8.Valid(raw) {
		return "", fmt.Errorf("%w of text: it decodes to binary data, not UTF-8 text, and only text can be shown here", ErrInvalidBase64)
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

// explainCorrupt says in words why base64.CorruptInputError stopped at
// byte offset of cleaned (the input without spaces and line breaks):
// a character outside the alphabet, or a length no whole number of
// characters can have.
func explainCorrupt(cleaned string, offset int) string {
	if offset < len(cleaned) {
		r, _ := utf8.DecodeRuneInString(cleaned[offset:])
		position := utf8.RuneCountInString(cleaned[:offset]) + 1
		if r != utf8.RuneError && !strings.ContainsRune(base64Alphabet, r) {
			return fmt.Sprintf("character %d (%q, not counting spaces and line breaks) is not one base64 uses: letters, digits, + / - _ and = at the end", position, r)
		}
	}
	return "its length is not one base64 can have: one character too many or too few (a character lost in copying?)"
}

// base64Alphabet is every character Base64Decode accepts after cleaning.
const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_="
