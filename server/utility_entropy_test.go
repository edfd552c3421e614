package server_test

import (
	"html"
	"net/url"
	"strings"
	"testing"

	"secutil/store"
)

func TestEntropy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	m := e.post("/api/entropy", map[string]string{"password": "abc"}, "X-API-Key", key).want(200).json()
	// 3 × log2(26) = 14.10 bits.
	if m["entropy"] != 14.1 || m["estimate_brute_force"] != "less than a second" {
		t.Fatalf("entropy: %v", m)
	}
	if m := e.post("/api/v1/entropy", map[string]string{"password": "Tr0ub4dor&3xQ!vZ9pL"}, "X-API-Key", key).want(200).json(); m["estimate_brute_force"] != "centuries" {
		t.Fatalf("entropy: %v", m)
	}
	e.post("/api/entropy", map[string]string{}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/entropy", map[string]string{"password": "x"}).wantError(401, "unauthorized")
}

// TestEntropySaysWhatItMeasuresBesideStrength: for "aaaaaaaaaaaaaaaa"
// entropy's brute force says centuries and the strength check less than
// a second. The entropy panel shows both, each with what it assumes, and
// the strength panel says what its two figures mean.
func TestEntropySaysWhatItMeasuresBesideStrength(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanPro)
	session := e.sessionCookie("ann@example.com")
	form := url.Values{"password": {"aaaaaaaaaaaaaaaa"}}
	panel := html.UnescapeString(panelOf(t, e.browse("POST", "/entropy", form, session).want(200).body, "tool-entropy"))
	for _, want := range []string{
		`<strong id="entropy-brute-force">centuries</strong>: half of all the strings of 16 characters from a set of 26, at 10¹⁰ guesses a second. This is what entropy measures: the password as if each character were picked at random.`,
		`<strong id="entropy-guessing">less than a second</strong>: words, names, dates, repeats and sequences first, at 10⁴ guesses a second. This is the strength check's estimate (score 0 of 4, very weak)`,
	} {
		if !strings.Contains(panel, want) {
			t.Errorf("the entropy panel lacks %q:\n%s", want, panel)
		}
	}
	panel = html.UnescapeString(panelOf(t, e.browse("POST", "/password_check", form, session).want(200).body, "tool-strength"))
	for _, want := range []string{"<dt>Time to guess</dt><dd>less than a second <span class=\"muted\">trying words", "as if each character were picked at random"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the strength panel lacks %q:\n%s", want, panel)
		}
	}
}
