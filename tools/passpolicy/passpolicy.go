// Package passpolicy decides whether a new account password is acceptable,
// following NIST SP 800-63B Rev. 4 for single-factor passwords: a length
// range counted in Unicode code points, no composition rules, and a blocklist
// (common passwords, context words, repetitive or sequential strings). Each
// refusal says why, so a user can fix it.
package passpolicy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	MinLength = 15
	MaxLength = 256
)

// Refusal explains why a password was refused. Its message is meant for the user.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Check returns nil when password may be used for the account email, else a
// *Refusal. isCommon reports membership of the common-password list.
func Check(password, email string, isCommon func(string) bool) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return &Refusal{"password must be valid UTF-8 text"}
	case n < MinLength:
		return &Refusal{fmt.Sprintf("password must be at least %d characters (it has %d); a few unrelated words make a long password easy to remember", MinLength, n)}
	case n > MaxLength:
		return &Refusal{fmt.Sprintf("password must be at most %d characters (it has %d)", MaxLength, n)}
	case isCommon != nil && isCommon(password):
		return &Refusal{"this password is in the list of commonly used passwords; choose another"}
	case repetitiveOrSequential(password):
		return &Refusal{"password is a repeated or sequential pattern (like aaaa… or 1234…); choose another"}
	}
	folded := strings.ToLower(password)
	for _, word := range contextWords(email) {
		if strings.Contains(folded, word) {
			return &Refusal{fmt.Sprintf("password must not contain %q, which is easy to guess from your account", word)}
		}
	}
	return nil
}

// contextWords are the words an attacker tries first against this account.
func contextWords(email string) []string {
	words := []string{"secutil"}
	local, _, _ := strings.Cut(strings.ToLower(email), "@")
	if utf8.RuneCountInString(local) >= 4 {
		words = append(words, local)
	}
	return words
}

// repetitiveOrSequential catches one repeated unit ("abcabc…", "aaaa…") and
// runs with a constant step ("123456…", "zyxw…").
func repetitiveOrSequential(s string) bool {
	r := []rune(s)
	for unit := 1; unit <= 4 && unit < len(r); unit++ {
		repeats := true
		for i := unit; i < len(r); i++ {
			if r[i] != r[i-unit] {
				repeats = false
				break
			}
		}
		if repeats {
			return true
		}
	}
	step := r[1] - r[0]
	if step != 1 && step != -1 {
		return false
	}
	for i := 2; i < len(r); i++ {
		if r[i]-r[i-1] != step {
			return false
		}
	}
	return true
}
