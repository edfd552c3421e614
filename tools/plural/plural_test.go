package plural

import "testing"

func TestCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0 calls"}, {1, "1 call"}, {2, "2 calls"}, {-1, "-1 call"}, {11, "11 calls"}, {1000000, "1000000 calls"},
	} {
		if got := Count(c.n, "call", "calls"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// An int64 count (the hash index's words and entries) reads the same.
func TestCountInt64(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{1: "1 word", 0: "0 words", 1 << 40: "1099511627776 words"} {
		if got := Count(n, "word", "words"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzCount(f *testing.F) {
	f.Add(1)
	f.Fuzz(func(t *testing.T, n int) {
		got := Count(n, "second", "seconds")
		if (n == 1 || n == -1) != (got[len(got)-1] != 's') {
			t.Errorf("Count(%d) = %q", n, got)
		}
	})
}
