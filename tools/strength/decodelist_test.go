package strength

import (
	"bytes"
	"compress/gzip"
	"slices"
	"testing"
)

func TestDecodeList(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"one\n", []string{"one"}},
		{"one\ntwo\n", []string{"one", "two"}},
		{"one\n\nthree", []string{"one", "", "three"}},
	} {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(c.text))
		zw.Close()
		got, err := decodeList(gz.String())
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("decodeList(%q) = %q, %v; want %q", c.text, got, err, c.want)
		}
	}
	if _, err := decodeList("not gzip"); err == nil {
		t.Error("decodeList of text that is not gzip: no error")
	}
}
