package codec_test

import (
	"errors"
	"regexp"
	"testing"

	"secutil/tools/codec"
)

// Vectors from RFC 4648 §10.
func TestBase64RFC4648(t *testing.T) {
	for plain, encoded := range map[string]string{
		"": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy",
	} {
		if got := codec.Base64Encode(plain); got != encoded {
			t.Errorf("Encode(%q) = %q, want %q", plain, got, encoded)
		}
		if got, err := codec.Base64Decode(encoded); err != nil || got != plain {
			t.Errorf("Decode(%q) = %q, %v", encoded, got, err)
		}
	}
}

func TestBase64DecodeIsLenient(t *testing.T) {
	for in, want := range map[string]string{
		"Zm9vYmE":         "fooba",    // unpadded
		" Zm9v\r\nYmFy\n": "foobar",   // MIME line breaks
		"-_8=":            "\xfb\xff", // URL alphabet: decodes, but is not UTF-8 (below)
		"w6nDqMOq":        "éèê",
		"PDw_Pz4-":        "<<??>>", // URL alphabet
		"PDw/Pz4+":        "<<??>>", // standard alphabet
	} {
		got, err := codec.Base64Decode(in)
		if want == "\xfb\xff" {
			if !errors.Is(err, codec.ErrInvalidBase64) {
				t.Errorf("Decode(%q) accepted binary output", in)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Decode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestBase64DecodeRejects(t *testing.T) {
	for _, in := range []string{"Zm9v!", "Z", "Zm9vY", "====", "Zm9v\x00"} {
		if _, err := codec.Base64Decode(in); !errors.Is(err, codec.ErrInvalidBase64) {
			t.Errorf("Decode(%q) error = %v", in, err)
		}
	}
}

func TestRandomKey(t *testing.T) {
	a, err := codec.RandomKey()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := codec.RandomKey()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a) || a == b {
		t.Fatalf("keys %q %q", a, b)
	}
}

func FuzzBase64(f *testing.F) {
	f.Add("hello")
	f.Add("Zm9v\n")
	f.Fuzz(func(t *testing.T, s string) {
		if got, err := codec.Base64Decode(codec.Base64Encode(s)); err == nil && got != s {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
		codec.Base64Decode(s)
	})
}
