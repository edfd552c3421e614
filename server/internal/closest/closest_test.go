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
		{"/api/v1/base46", "/api/v1/base64"}, // a swap is two edits; the name is long enough
		{"/api/v1/hash_lookups", "/api/v1/hash_lookup"},
		{"/api/v1/hash_lookup_sit", "/api/v1/hash_lookup_site"},
		{"/tool", "/tools"},
		{"/doc", "/docs"},
		{"/healt", "/health"},
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

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"abc", "abc", 0},
	} {
		if got := distance(c.a, c.b, 10); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
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
		if d := distance(name, got, MaxLen); d > 1+(len(name)-1)/8 {
			t.Fatalf("Match(%q) = %q at distance %d", name, got, d)
		}
		for _, r := range routes {
			if m, _ := Match(r, routes); m != r {
				t.Fatalf("Match(%q) = %q", r, m)
			}
		}
	})
}
