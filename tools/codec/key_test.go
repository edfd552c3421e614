package codec_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"secutil/tools/codec"
)

func TestGenerateKeyFormats(t *testing.T) {
	t.Parallel()
	decode := map[string]func(string) ([]byte, error){
		"":                    hex.DecodeString,
		codec.KeyHex:          hex.DecodeString,
		codec.KeyBase64:       base64.StdEncoding.Strict().DecodeString,
		codec.KeyBase64URL:    base64.RawURLEncoding.Strict().DecodeString,
		" Base64URL ":         base64.RawURLEncoding.Strict().DecodeString,
		codec.KeyAlphanumeric: nil,
		"ALPHANUMERIC":        nil,
	}
	for format, dec := range decode {
		for _, length := range []int{codec.MinKeyBytes, 17, codec.DefaultKeyBytes, codec.MaxKeyBytes} {
			key, err := codec.GenerateKey(length, format)
			if err != nil {
				t.Fatalf("%q %d: %v", format, length, err)
			}
			if dec == nil {
				if !regexp.MustCompile(`^[A-Za-z0-9]+$`).MatchString(key) || len(key) != codec.AlphanumericLength(length) {
					t.Errorf("%q %d: %q", format, length, key)
				}
				continue
			}
			raw, err := dec(key)
			if err != nil || len(raw) != length {
				t.Errorf("%q %d: %q decodes to %d bytes, %v", format, length, key, len(raw), err)
			}
		}
	}
	a, _ := codec.GenerateKey(16, codec.KeyAlphanumeric)
	b, _ := codec.GenerateKey(16, codec.KeyAlphanumeric)
	if a == b {
		t.Fatalf("two keys are equal: %q", a)
	}
}

// TestAlphanumericLength: the length is the fewest characters that hold
// 8·length bits, checked in whole numbers: 62^k ≥ 2^(8·length) > 62^(k-1).
func TestAlphanumericLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ length, want int }{{16, 22}, {32, 43}, {64, 86}, {1024, 1376}} {
		if got := codec.AlphanumericLength(tc.length); got != tc.want {
			t.Errorf("AlphanumericLength(%d) = %d, want %d", tc.length, got, tc.want)
		}
	}
	for length := codec.MinKeyBytes; length <= codec.MaxKeyBytes; length++ {
		k := codec.AlphanumericLength(length)
		bits := new(big.Int).Lsh(big.NewInt(1), uint(8*length))
		enough := new(big.Int).Exp(big.NewInt(62), big.NewInt(int64(k)), nil)
		fewer := new(big.Int).Exp(big.NewInt(62), big.NewInt(int64(k-1)), nil)
		if enough.Cmp(bits) < 0 || fewer.Cmp(bits) >= 0 {
			t.Fatalf("length %d: %d characters is not the fewest that hold %d bits", length, k, 8*length)
		}
	}
}

func TestGenerateKeyRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		length int
		format string
		want   string
	}{
		{15, "hex", "the length must be from 16 to 1024 bytes; got 15"},
		{1025, "hex", "got 1025"},
		{0, "hex", "got 0"},
		{32, "base32", `the format must be hex, base64, base64url or alphanumeric; got "base32"`},
	} {
		_, err := codec.GenerateKey(tc.length, tc.format)
		if !errors.Is(err, codec.ErrInvalidParameter) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d %q: %v, want %q", tc.length, tc.format, err, tc.want)
		}
	}
}

func TestBase64DecodeTo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, output, answer, as string
	}{
		{"Zm9v", "", "foo", codec.OutputText},
		{"/w==", "", "ff", codec.OutputHex},                 // binary: hex unless asked otherwise
		{"AAEC/w", "", "000102ff", codec.OutputHex},         // unpadded
		{"Zm9v", "hex", "666f6f", codec.OutputHex},          // text as hex when asked
		{"+/8=", "base64url", "-_8", codec.OutputBase64URL}, // re-encoded URL-safe, unpadded
		{"Zm9v", "Text", "foo", codec.OutputText},
	} {
		got, err := codec.Base64DecodeTo(tc.in, tc.output)
		if err != nil || got.Answer != tc.answer || got.Output != tc.as {
			t.Errorf("Base64DecodeTo(%q, %q) = %+v, %v; want %q as %s", tc.in, tc.output, got, err, tc.answer, tc.as)
		}
	}
	if _, err := codec.Base64DecodeTo("/w==", "text"); !errors.Is(err, codec.ErrInvalidBase64) || !strings.Contains(err.Error(), "binary data") {
		t.Errorf("binary data as text: %v", err)
	}
	if _, err := codec.Base64DecodeTo("Zm9v!", "hex"); !errors.Is(err, codec.ErrInvalidBase64) {
		t.Errorf("bad base64 as hex: %v", err)
	}
	if _, err := codec.Base64DecodeTo("Zm9v", "binary"); !errors.Is(err, codec.ErrInvalidParameter) || !strings.Contains(err.Error(), "text, hex or base64url") {
		t.Errorf("unknown output: %v", err)
	}
}

func FuzzBase64DecodeTo(f *testing.F) {
	f.Add("/w==", "")
	f.Add("Zm9v", "base64url")
	f.Fuzz(func(t *testing.T, in, output string) {
		got, err := codec.Base64DecodeTo(in, output)
		if err != nil {
			return
		}
		hexForm, errHex := codec.Base64DecodeTo(in, "hex")
		urlForm, errURL := codec.Base64DecodeTo(in, "base64url")
		if errHex != nil || errURL != nil {
			t.Fatalf("%q decodes as %q but not as hex (%v) or base64url (%v)", in, output, errHex, errURL)
		}
		a, _ := hex.DecodeString(hexForm.Answer)
		b, _ := base64.RawURLEncoding.DecodeString(urlForm.Answer)
		if string(a) != string(b) || (got.Output == codec.OutputText && got.Answer != string(a)) {
			t.Fatalf("%q: the forms disagree: %+v %+v %+v", in, got, hexForm, urlForm)
		}
	})
}
