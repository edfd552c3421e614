package closest

import (
	"strings"
	"testing"
)

var routes = []string{"/api/v1/base64", "/api/v1/hash_lookup", "/api/v1/hash_lookup_site", "/api/v1/jwt_decode", "/docs", "/tools", "/login", "/health"}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, want string
	}{
		{"/api/v1/bas64", "/api/v1/base64"},
		{"/api/v1/base46", "/api/v1/base64"},
		{"/api/v1/hash_lookups", "/api/v1/hash_lookup"},
		{"/api/v1/hash_lookup_sit", "/api/v1/hash_lookup_site"},
		{"/tool", "/tools"},
		{"/doc", "/docs"},
		{"/healt", "/health"},
		{"/tolos", "/tools"}, // a swap is one edit, within a short name's bound
		{"/lgoin", "/login"}, // the same
		{"/hlaeth", ""},      // two swaps are two edits
		{"/api/v1/hash_lookup", "/api/v1/hash_lookup"},
		{"/nothing-like-it", ""},
		{"/", ""},
		{"", ""},
		{"/x", ""},
		{strings.Repeat("/tools", 20), ""},
	} {
		got, ok := Match(c.name, routes)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}

// Flags and commands are short: one edit finds them.
func TestMatchShortNames(t *testing.T) {
	t.Parallel()
	flags := []string{"db", "email", "password", "plan", "admin", "addr", "hash-db"}
	for _, c := range []struct{ name, want string }{
		{"dbb", "db"}, {"bd", "db"}, {"mail", "email"}, {"emial", "email"}, {"pasword", "password"},
		{"plna", "plan"}, {"addmin", "admin"}, {"hashdb", "hash-db"}, {"d", "db"}, {"x", ""}, {"verbose", ""},
	} {
		if got, _ := Match(c.name, flags); got != c.want {
			t.Errorf("Match(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 10, 0}, {"a", "", 10, 1}, {"kitten", "sitting", 10, 3}, {"flaw", "lawn", 10, 2}, {"abc", "abc", 10, 0},
		{"ab", "ba", 10, 1}, {"ca", "abc", 10, 3}, // optimal string alignment: no edit of a swapped pair
		{"sevre", "serve", 10, 1}, {"vesrion", "version", 10, 1},
		{"kitten", "sitting", 2, 3}, {"abcdef", "a", 2, 3}, // past the limit: limit+1
		{strings.Repeat("a", MaxLen+1), strings.Repeat("a", MaxLen+1), 5, 6}, // past the length cap
		{strings.Repeat("a", MaxLen), strings.Repeat("a", MaxLen), 5, 0},
	} {
		if got := Distance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
		if got := Distance(c.b, c.a, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d (symmetric)", c.b, c.a, c.limit, got, c.want)
		}
	}
}

// slowDistance is the optimal string alignment distance from its
// definition, over the whole table, without a limit or a cap.
func slowDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// FuzzDistance: within the length cap, Distance is the distance of the
// whole table when that is within the limit, and limit+1 otherwise; the
// early stops never change an answer.
func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting", 2)
	f.Add("ab", "ba", 1)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		limit = abs(limit % 12)
		if len(a) > MaxLen || len(b) > MaxLen {
			if got := Distance(a, b, limit); got != limit+1 {
				t.Fatalf("Distance of a name past MaxLen = %d, want %d", got, limit+1)
			}
			return
		}
		want := min(slowDistance(a, b), limit+1)
		if got := Distance(a, b, limit); got != want {
			t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	})
}

// FuzzMatch: a match is one of the candidates, within the bound, and a
// candidate itself always matches itself.
func FuzzMatch(f *testing.F) {
	f.Add("/api/v1/bas64")
	f.Add("")
	f.Fuzz(func(t *testing.T, name string) {
		got, ok := Match(name, routes)
		if !ok {
			if got != "" {
				t.Fatalf("no match but %q", got)
			}
			return
		}
		if d := slowDistance(name, got); d > 1+(len(name)-1)/8 {
			t.Fatalf("Match(%q) = %q at distance %d", name, got, d)
		}
		for _, r := range routes {
			if m, _ := Match(r, routes); m != r {
				t.Fatalf("Match(%q) = %q", r, m)
			}
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	for b.Loop() {
		Match("/api/v1/hash_lookup_sit", routes)
	}
}
