package passpolicy_test

import (
	"errors"
	"strings"
	"testing"

	"secutil/tools/passpolicy"
)

func isCommon(p string) bool { return p == "passwordpassword1" }

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
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := passpolicy.Check(tc.password, tc.email, isCommon)
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

func FuzzCheck(f *testing.F) {
	f.Add("violet tram ladder cinema", "a@b.c")
	f.Fuzz(func(t *testing.T, password, email string) {
		_ = passpolicy.Check(password, email, isCommon)
	})
}
