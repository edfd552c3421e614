// Package codec holds the base64 tool and the random key generator.
//
// Base64Decode answers text only; Base64DecodeTo answers binary data too,
// as hex or as unpadded base64url. GenerateKey draws a key of a chosen
// number of bytes from crypto/rand and writes it as hex, base64,
// base64url or alphanumeric characters.
package codec

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
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
	raw, err := base64DecodeBytes(text)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(raw) {
		return "", fmt.Errorf("%w of text: it decodes to binary data, not UTF-8 text, and only text can be shown here", ErrInvalidBase64)
	}
	return string(raw), nil
}

// ErrInvalidParameter is wrapped by the errors about a parameter: a key
// length or format, or a decoding output, outside the allowed values.
var ErrInvalidParameter = errors.New("invalid parameter")

// The forms Base64DecodeTo writes decoded bytes in.
const (
	OutputText      = "text"      // the bytes as UTF-8 text; binary data is refused
	OutputHex       = "hex"       // lower-case hex, two digits a byte
	OutputBase64URL = "base64url" // the URL-safe alphabet without padding (RFC 4648 §5)
)

// Decoded is what Base64DecodeTo answers: the decoded bytes written as
// Output says.
type Decoded struct {
	Answer string
	Output string // OutputText, OutputHex or OutputBase64URL
}

// Base64DecodeTo decodes text as Base64Decode does and writes the bytes in
// the form output names: OutputText, OutputHex, OutputBase64URL, or ""
// for text when the bytes are UTF-8 and hex when they are not. Binary
// data is refused only when output is OutputText.
func Base64DecodeTo(text, output string) (Decoded, error) {
	output = strings.ToLower(strings.TrimSpace(output))
	switch output {
	case "", OutputText, OutputHex, OutputBase64URL:
	default:
		return Decoded{}, fmt.Errorf("%w: the output must be %s, %s or %s; got %.40q",
			ErrInvalidParameter, OutputText, OutputHex, OutputBase64URL, output)
	}
	if output == OutputText {
		answer, err := Base64Decode(text)
		return Decoded{Answer: answer, Output: OutputText}, err
	}
	raw, err := base64DecodeBytes(text)
	if err != nil {
		return Decoded{}, err
	}
	switch {
	case output == OutputBase64URL:
		return Decoded{Answer: base64.RawURLEncoding.EncodeToString(raw), Output: OutputBase64URL}, nil
	case output == "" && utf8.Valid(raw):
		return Decoded{Answer: string(raw), Output: OutputText}, nil
	default:
		return Decoded{Answer: hex.EncodeToString(raw), Output: OutputHex}, nil
	}
}

// base64DecodeBytes decodes text leniently, as Base64Decode documents.
func base64DecodeBytes(text string) ([]byte, error) {
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
		return nil, fmt.Errorf("%w: it ends in more than two '=' signs, and base64 pads with at most two", ErrInvalidBase64)
	}
	cleaned = unpadded
	raw, err := base64.RawStdEncoding.DecodeString(cleaned)
	if err != nil {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return nil, fmt.Errorf("%w: %s", ErrInvalidBase64, explainCorrupt(cleaned, int(corrupt)))
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidBase64, err)
	}
	return raw, nil
}

// RandomKey returns 256 bits from crypto/rand as 64 lower-case hex
// characters: GenerateKey(DefaultKeyBytes, KeyHex).
func RandomKey() (string, error) {
	return GenerateKey(DefaultKeyBytes, KeyHex)
}

// Bounds and default of GenerateKey's length, in bytes of randomness:
// under 16 bytes (128 bits) a key can be searched for.
const (
	DefaultKeyBytes = 32
	MinKeyBytes     = 16
	MaxKeyBytes     = 1024
)

// The formats GenerateKey writes a key in.
const (
	KeyHex          = "hex"          // lower-case hex, two characters a byte
	KeyBase64       = "base64"       // the standard alphabet, padded
	KeyBase64URL    = "base64url"    // the URL-safe alphabet, unpadded
	KeyAlphanumeric = "alphanumeric" // A-Z, a-z and 0-9, each equally likely
)

// alphanumeric is KeyAlphanumeric's alphabet.
const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// GenerateKey returns length bytes of crypto/rand (MinKeyBytes to
// MaxKeyBytes) written in format (KeyHex, KeyBase64, KeyBase64URL or
// KeyAlphanumeric; "" is KeyHex). An alphanumeric key has as many
// characters as hold at least 8·length bits, ⌈8·length / log2 62⌉ (43 for
// 32 bytes), each drawn without modulo bias.
func GenerateKey(length int, format string) (string, error) {
	if length < MinKeyBytes || length > MaxKeyBytes {
		return "", fmt.Errorf("%w: the length must be from %d to %d bytes; got %d", ErrInvalidParameter, MinKeyBytes, MaxKeyBytes, length)
	}
	var encode func([]byte) string
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", KeyHex:
		encode = hex.EncodeToString
	case KeyBase64:
		encode = base64.StdEncoding.EncodeToString
	case KeyBase64URL:
		encode = base64.RawURLEncoding.EncodeToString
	case KeyAlphanumeric:
		return alphanumericKey(rand.Reader, AlphanumericLength(length))
	default:
		return "", fmt.Errorf("%w: the format must be %s, %s, %s or %s; got %.40q",
			ErrInvalidParameter, KeyHex, KeyBase64, KeyBase64URL, KeyAlphanumeric, format)
	}
	b := make([]byte, length)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return encode(b), nil
}

// AlphanumericLength is the number of alphanumeric characters GenerateKey
// writes for a key of length bytes: the fewest that hold 8·length bits.
// (8·length / log2 62 is never a whole number, so rounding is safe.)
func AlphanumericLength(length int) int {
	return int(math.Ceil(float64(8*length) / math.Log2(float64(len(alphanumeric)))))
}

// alphanumericKey draws n characters of alphanumeric from random by
// rejection: a byte under 248 (4 × 62) picks byte % 62, so every character
// is equally likely; the others, 3% of draws, are drawn again.
func alphanumericKey(random io.Reader, n int) (string, error) {
	const limit = 256 - 256%len(alphanumeric)
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/16+8)
	for len(out) < n {
		if _, err := io.ReadFull(random, buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, alphanumeric[int(b)%len(alphanumeric)])
			}
		}
	}
	return string(out), nil
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
