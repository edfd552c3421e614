package breach

import (
	"strings"
	"testing"
)

// fixedSuffixes yields the given suffixes, which must be in descending order.
func fixedSuffixes(suffixes ...string) func([]byte) bool {
	return func(buf []byte) bool {
		if len(suffixes) == 0 {
			return false
		}
		copy(buf, suffixes[0])
		suffixes = suffixes[1:]
		return true
	}
}

// TestMergePadding covers the merge's edges with chosen padding, including
// a padding suffix equal to a real one, which random padding makes too
// unlikely to test: it is dropped, and the answer stays well formed.
func TestMergePadding(t *testing.T) {
	for _, tc := range []struct {
		name, real string
		pads       []string // descending
		want       string
	}{
		{"no real lines", "", []string{"CC", "AA"}, "AA:0\r\nCC:0"},
		{"pads around", "BB:5", []string{"CC", "AA"}, "AA:0\r\nBB:5\r\nCC:0"},
		{"pads after", "AA:1\r\nBB:2", []string{"DD", "CC"}, "AA:1\r\nBB:2\r\nCC:0\r\nDD:0"},
		{"pads before", "CC:1\r\nDD:22", []string{"BB", "AA"}, "AA:0\r\nBB:0\r\nCC:1\r\nDD:22"},
		{"interleaved", "AB:1\r\nCD:2\r\nEF:3", []string{"FF", "DD", "BB", "00"}, "00:0\r\nAB:1\r\nBB:0\r\nCD:2\r\nDD:0\r\nEF:3\r\nFF:0"},
		{"duplicate dropped", "AB:1\r\nCD:2", []string{"CD", "00"}, "00:0\r\nAB:1\r\nCD:2"},
		{"first line duplicated", "AB:1\r\nCD:2", []string{"EE", "AB"}, "AB:1\r\nCD:2\r\nEE:0"},
		{"all duplicated", "AB:1\r\nCD:2", []string{"CD", "AB"}, "AB:1\r\nCD:2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := 0
			if tc.real != "" {
				lines = strings.Count(tc.real, "\r\n") + 1
			}
			got := mergePadding([]byte("kept"+tc.real), len("kept"), lines, len(tc.pads), 2, fixedSuffixes(tc.pads...))
			if want := "kept" + tc.want; string(got) != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
}
