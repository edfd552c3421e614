package server_test

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"secutil/store"
	"secutil/tools/passgen"
)

// TestGeneratePasswordRoute: a password of the length and classes asked
// for, look-alikes left out when asked, and a passphrase of N words with
// its separator, case and digit; each answer says its entropy, and a
// passphrase credits its word list.
func TestGeneratePasswordRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	post := func(body any) map[string]any {
		t.Helper()
		return e.post("/api/v1/generate_password", body, "X-API-Key", key).want(200).json()
	}

	m := post(nil)
	if pw := m["password"].(string); len(pw) != passgen.DefaultLength || m["mode"] != "password" || m["word_list"] != nil {
		t.Errorf("defaults: %v", m)
	}
	m = post(map[string]any{"length": 40, "symbols": false, "upper": false, "no_look_alikes": true})
	pw := m["password"].(string)
	if !regexp.MustCompile(`^[a-z0-9]{40}$`).MatchString(pw) || strings.ContainsAny(pw, passgen.LookAlikes) {
		t.Errorf("40 lower case and digits without look-alikes: %q", pw)
	}
	want, _ := passgen.PasswordEntropy(passgen.PasswordOptions{Length: 40, Lower: true, Digits: true, NoLookAlikes: true})
	if got := m["entropy_bits"].(float64); math.Abs(got-want) > 0.005 {
		t.Errorf("entropy_bits %v, want %.2f", got, want)
	}
	if m := post(map[string]any{"length": 4, "lower": false, "upper": false, "symbols": false}); !regexp.MustCompile(`^[0-9]{4}$`).MatchString(m["password"].(string)) {
		t.Errorf("a 4-digit PIN: %v", m)
	}

	m = post(map[string]any{"mode": "passphrase", "words": 5, "separator": ".", "case": "title", "digit": true})
	phrase := m["password"].(string)
	if !regexp.MustCompile(`^([A-Z][a-z-]*[0-9]?\.){4}[A-Z][a-z-]*[0-9]?$`).MatchString(phrase) || len(regexp.MustCompile(`[0-9]`).FindAllString(phrase, -1)) != 1 {
		t.Errorf("5 title-case words joined by dots with one digit: %q", phrase)
	}
	if m["mode"] != "passphrase" || !strings.Contains(m["word_list"].(string), "EFF") || !strings.Contains(m["word_list"].(string), "CC BY 3.0 US") {
		t.Errorf("the word list is not credited: %v", m)
	}
	want, _ = passgen.PassphraseEntropy(passgen.PassphraseOptions{Words: 5, Separator: ".", Case: "title", Digit: true})
	if got := m["entropy_bits"].(float64); math.Abs(got-want) > 0.005 {
		t.Errorf("entropy_bits %v, want %.2f", got, want)
	}
	if m := post(map[string]any{"mode": "passphrase", "separator": ""}); strings.ContainsAny(m["password"].(string), "- ") {
		t.Errorf("an empty separator: %v", m)
	}

	before := e.usage(a.ID)
	for body, want := range map[string]string{
		`{"length": 3}`: "length",
		`{"lower": false, "upper": false, "digits": false, "symbols": false}`: "class",
		`{"mode": "passphrase", "words": 100}`:                                "words",
		`{"mode": "passphrase", "case": "wavy"}`:                              "case",
		`{"mode": "passphrase", "separator": "\n"}`:                           "separator",
		`{"words": 6}`:                         `"words"`, // a passphrase option without mode passphrase
		`{"mode": "passphrase", "length": 20}`: `"length"`,
		`{"mode": "pin"}`:                      `"mode"`,
	} {
		msg := e.post("/api/v1/generate_password", body, "X-API-Key", key).wantError(400, "invalid_request")["error"].(string)
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %q does not say %s", body, msg, want)
		}
	}
	if after := e.usage(a.ID); after != before {
		t.Errorf("refused calls counted: usage %d → %d", before, after)
	}
}
