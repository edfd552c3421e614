// Package passcheck vets passwords in bulk, as `secutil check` does for a
// file of them: for each, the strength estimate's score and label, the
// charset entropy, whether it is in the embedded common-password list, and
// how often a breach corpus has seen it. Check rates one password;
// AddBreached fills in the breach counts of many in one batch lookup, which
// reads a sorted Pwned Passwords file once per batch instead of once per
// password.
package passcheck

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"secutil/tools/breach"
	"secutil/tools/strength"
)

// Result is the check of one password. The JSON field names are the API's.
type Result struct {
	// Score is the strength estimate's, 0 (guessed at once) to 4, and
	// Label its name.
	Score int    `json:"score"`
	Label string `json:"label"`
	// Entropy is the charset entropy in bits (strength.Entropy).
	Entropy float64 `json:"entropy"`
	// Common: the password, as typed or lower-cased, is in the embedded
	// common-password list.
	Common bool `json:"common"`
	// Breached is how often the breach corpus has seen the password (0:
	// never), nil when no corpus was asked.
	Breached *int64 `json:"breached"`
}

// Errors for passwords Check does not rate.
var (
	ErrTooLong = fmt.Errorf("longer than %d characters", strength.MaxPasswordLength)
	ErrNotUTF8 = errors.New("not valid UTF-8")
)

// Check rates one password; Breached is left nil. A password longer than
// strength.MaxPasswordLength runes, or not UTF-8, is refused (ErrTooLong,
// ErrNotUTF8): the estimate's work grows with the length.
func Check(password string) (Result, error) {
	switch {
	case !utf8.ValidString(password):
		return Result{}, ErrNotUTF8
	case utf8.RuneCountInString(password) > strength.MaxPasswordLength:
		return Result{}, ErrTooLong
	}
	score, common := strength.ScoreAndCommon(password)
	entropy, _ := strength.Entropy(password)
	return Result{
		Score:   score,
		Label:   strength.Label(score),
		Entropy: entropy,
		Common:  common,
	}, nil
}

// AddBreached looks every password up in src in one batch (hashed as src's
// kind: SHA-1 or NTLM) and sets the Breached count of its result:
// results[i] is passwords[i]'s. A source without counts (a word list)
// answers 0 for a password it holds: use it only where "seen" is enough.
// skip, when not nil, leaves out the passwords it reports true for (those
// Check refused); their results keep a nil count.
func AddBreached(ctx context.Context, src breach.Source, passwords []string, results []Result, skip func(i int) bool) error {
	if len(results) != len(passwords) {
		return fmt.Errorf("passcheck: %d results for %d passwords", len(results), len(passwords))
	}
	kind := src.Kind()
	size := kind.DigestLen()
	all := make([]byte, 0, size*len(passwords)) // the batch's digests, one allocation
	digests := make([][]byte, 0, len(passwords))
	asked := make([]int, 0, len(passwords))
	for i, p := range passwords {
		if skip == nil || !skip(i) {
			all = append(all, kind.Hash(p)...)
			digests = append(digests, all[len(all)-size:])
			asked = append(asked, i)
		}
	}
	if len(digests) == 0 {
		return nil
	}
	hits, err := src.CountMany(ctx, digests, nil)
	if err != nil {
		return err
	}
	counts := make([]int64, len(hits)) // one allocation for the batch's counts
	for k, i := range asked {
		counts[k] = hits[k].Count
		results[i].Breached = &counts[k]
	}
	return nil
}
