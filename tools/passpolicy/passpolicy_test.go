package passpolicy_test

import (
	"errors"
	"strings"
	"testing"

	"secutil/tools/passpolicy"
)

func isCommon(p string) bool { return p == "passwordpassword1" }

// breached stands in for a Pwned Passwords file: counts by password.
var breached = map[string]int64{"orange staple winter flute": 3, "listed without a count here": 0}

func inBreachFile(p string) (int64, bool, error) {
	count, found := breached[p]
	return count, found, nil
}

var lists = passpolicy.Lists{IsCommon: isCommon, Breached: inBreachFile}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, password, email string
		ok                    bool
		reason                string
	}{
		{"long passphrase", "violet tram ladder cinema", "ann@example.com", true, ""},
		{"too short", "short pass", "ann@example.com", false, "at least 15"},
		{"counts code points not bytes", "ééééé ééééé éééé", "ann@example.com", true, ""},
		{"too long", strings.Repeat("ab", 129), "ann@example.com", false, "at most 256"},
		{"common", "passwordpassword1", "ann@example.com", false, "commonly used"},
		{"repeated", "abcabcabcabcabcabc", "ann@example.com", false, "repeated or sequential"},
		{"sequential", "abcdefghijklmnop", "ann@example.com", false, "repeated or sequential"},
		{"email local part", "my name is annabel really", "annabel@example.com", false, `"annabel"`},
		{"service name", "I love SecUtil very much", "ann@example.com", false, `"secutil"`},
		{"invalid utf8", "\xff\xfe" + strings.Repeat("x", 20), "ann@example.com", false, "UTF-8"},
		{"in the breach file", "orange staple winter flute", "ann@example.com", false, "breached passwords (seen 3 times)"},
		{"in a breach list without counts", "listed without a count here", "ann@example.com", false, "breached passwords, which"},
		// The estimator's own verdicts, with its feedback in the refusal.
		{"doubled word", "passwordpassword", "ann@example.com", false, "rates 0 (very weak) of 4, and at least 2 (fair) is needed. Repeats like"},
		{"digits", "123456789012345", "ann@example.com", false, "rates 1 (weak) of 4"},
		{"keyboard row", "qwertyuiopasdfg", "ann@example.com", false, "This is similar to a commonly used password."},
		{"capital and digits", "Password1234567", "ann@example.com", false, "Capitalization doesn't help very much"},
		{"l33t repeat", "p@ssw0rdp@ssw0rd", "ann@example.com", false, "Avoid repeated words and characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := passpolicy.Check(tc.password, tc.email, lists)
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var r *passpolicy.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("got %v, want a *Refusal", err)
			}
			if !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("reason %q does not mention %q", r.Reason, tc.reason)
			}
		})
	}
}

func TestCheckReportsAnUnreadableBreachList(t *testing.T) {
	broken := errors.New("read error")
	err := passpolicy.Check("violet tram ladder cinema", "ann@example.com", passpolicy.Lists{
		Breached: func(string) (int64, bool, error) { return 0, false, broken }})
	if !errors.Is(err, broken) {
		t.Fatalf("got %v, want the list's error", err)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("violet tram ladder cinema", "a@b.c")
	f.Fuzz(func(t *testing.T, password, email string) {
		_ = passpolicy.Check(password, email, lists)
	})
}
