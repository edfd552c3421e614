// Package passpolicy decides whether a new account password is acceptable,
// following NIST SP 800-63B Rev. 4 for single-factor passwords: a length
// range counted in Unicode code points, no composition rules, and a blocklist
// (common and breached passwords, context words, repetitive or sequential
// strings, and anything the strength estimator rates below fair). Each
// refusal says why, so a user can fix it.
package passpolicy

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"secutil/tools/strength"
)

const (
	MinLength = 15
	MaxLength = 256
	// MinScore is the lowest strength score (0 to 4, as /password_check
	// rates passwords) an account password may have: 2, "fair".
	MinScore = 2
)

// Refusal explains why a password was refused. Its message is meant for the user.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Lists are the password lists a new password must not be in. Either may
// be nil.
type Lists struct {
	// IsCommon reports membership of the common-password list.
	IsCommon func(password string) bool
	// Breached looks the password up in a list of breached passwords: found,
	// and how often it was seen (0 when the list has no counts).
	Breached func(password string) (count int64, found bool, err error)
}

// Check returns nil when password may be used for the account email, a
// *Refusal saying why not, or the error of a list that could not be read.
func Check(password, email string, lists Lists) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return &Refusal{"password must be valid UTF-8 text"}
	case n < MinLength:
		return &Refusal{fmt.Sprintf("password must be at least %d characters (it has %d); a few unrelated words make a long password easy to remember", MinLength, n)}
	case n > MaxLength:
		return &Refusal{fmt.Sprintf("password must be at most %d characters (it has %d)", MaxLength, n)}
	case lists.IsCommon != nil && lists.IsCommon(password):
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
	if lists.Breached != nil {
		count, found, err := lists.Breached(password)
		if err != nil {
			return err
		}
		if found {
			return &Refusal{breachedReason(count)}
		}
	}
	local, _, _ := strings.Cut(email, "@")
	if res := strength.Estimate(password, local, email); res.Score < MinScore {
		return &Refusal{fmt.Sprintf("this password is too easy to guess: it rates %d (%s) of 4, and at least %d (%s) is needed. %s",
			res.Score, res.Label, MinScore, strength.Label(MinScore), feedback(res))}
	}
	return nil
}

// breachedReason is the refusal of a password found in a breach list.
func breachedReason(count int64) string {
	seen := ""
	if count > 0 {
		seen = fmt.Sprintf(" (seen %d times)", count)
	}
	return "this password appears in a list of breached passwords" + seen + ", which attackers try first; choose another"
}

// feedback is the estimator's warning and suggestions as sentences.
func feedback(res strength.Result) string {
	var sentences []string
	if res.Warning != "" {
		sentences = append(sentences, strings.TrimSuffix(res.Warning, ".")+".")
	}
	sentences = append(sentences, res.Suggestions...)
	return strings.Join(sentences, " ")
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
