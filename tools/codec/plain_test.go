package codec_test

import (
	"strings"
	"testing"

	"secutil/tools/codec"
)

// TestBase64ErrorsInPlainWords: a refusal says what is wrong with the
// text in words a person who pasted it can act on, with no byte offsets
// of an internal form.
func TestBase64ErrorsInPlainWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"aGVsbG8*":   `character 8 ('*', not counting spaces and line breaks) is not one base64 uses`,
		"aGV sbG8*":  `character 8 ('*'`,
		"aGVsbG8===": "more than two '=' signs",
		"aGVsb":      "its length is not one base64 can have",
		"/w==":       "binary data, not UTF-8 text",
	} {
		_, err := codec.Base64Decode(in)
		if err == nil || !strings.HasPrefix(err.Error(), "this is not base64") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "cleaned input") {
			t.Errorf("%q: %v speaks of the cleaned input", in, err)
		}
	}
}
