// Package strength estimates password strength the way zxcvbn 4.4.2 does:
// it finds the patterns a guesser would try (common passwords, words and
// names, l33t spellings, reversed words, keyboard walks, sequences,
// repeats, years and dates), searches for the cheapest way to cover the
// password with them, and turns the guess count into a 0..4 score with
// English feedback. It also offers the simpler charset entropy and
// brute-force figures, and a common-password lookup.
package strength

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
)

// Bounds on the work one call can cause.
const (
	// MaxPasswordLength is the longest password (in runes) callers should
	// accept; HTTP handlers reject longer ones with 400. Estimate itself
	// searches patterns only in the first MaxPasswordLength runes and counts
	// any rest as bruteforce characters.
	MaxPasswordLength = 256
	// MaxUserInputs is how many user inputs Estimate considers; each is
	// truncated to MaxPasswordLength runes.
	MaxUserInputs = 64
)

// Result is the strength estimate of one password.
type Result struct {
	Guesses      float64  `json:"guesses"`
	GuessesLog10 float64  `json:"guesses_log10"`
	Score        int      `json:"score"` // 0..4
	Label        string   `json:"label"`
	Warning      string   `json:"warning"`     // may be ""
	Suggestions  []string `json:"suggestions"` // never nil
	Sequence     []Match  `json:"sequence"`
	Length       int      `json:"length"` // runes
	CharsetSize  int      `json:"charset_size"`
	Entropy      float64  `json:"entropy"`
	CrackTime    string   `json:"crack_time"` // offline slow hash at 1e4 guesses/s
}

// Offline attack rates used for the human-readable times.
const (
	slowHashGuessesPerSecond = 1e4
	fastHashGuessesPerSecond = 1e10
)

// Estimate rates password. userInputs (names, e-mail, site name...) are
// treated as one more dictionary, ranked in the order given.
func Estimate(password string, userInputs ...string) Result {
	s := getScratch()
	defer putScratch(s)
	a, guesses, matches := s.estimate(password, userInputTrie(userInputs))
	seq := make([]Match, len(matches))
	for k := range matches {
		seq[k] = a.public(&matches[k])
	}
	score := scoreFor(guesses)
	warning, suggestions := feedback(score, seq)
	entropy, charset := Entropy(password)
	return Result{
		Guesses:      guesses,
		GuessesLog10: log10(guesses),
		Score:        score,
		Label:        Label(score),
		Warning:      warning,
		Suggestions:  suggestions,
		Sequence:     seq,
		Length:       len(s.runes),
		CharsetSize:  charset,
		Entropy:      entropy,
		CrackTime:    HumanDuration(guesses / slowHashGuessesPerSecond),
	}
}

// Score is Estimate(password).Score, for callers that rate passwords in
// bulk and report only the score (secutil check): it skips what Estimate
// spells out for a reader, the match sequence, the feedback and the crack
// time, which cost about a tenth of the estimate and most of its
// allocations.
//
// The score of a password of the common list, as typed, is kept once
// estimated: such passwords are a large share of a real list (most of its
// repeats), and its rank names it in a small table.
func Score(password string) int { return scoreRanked(password, commonRank(password)) }

// ScoreAndCommon is Score and IsCommon of password at once, for bulk
// checks: they share the password's lookup in the common list.
func ScoreAndCommon(password string) (score int, common bool) {
	rank := commonRank(password)
	return scoreRanked(password, rank), rank > 0 || isCommonLowerCased(password)
}

// scoreRanked is Score of password, whose rank in the common list, as
// typed, is rank (0: not in it).
func scoreRanked(password string, rank int32) int {
	var known *atomic.Int32
	if rank > 0 {
		known = &commonScores[rank]
		if score := known.Load(); score > 0 {
			return int(score - 1)
		}
	}
	s := getScratch()
	defer putScratch(s)
	_, guesses, _ := s.estimate(password, nil)
	score := scoreFor(guesses)
	if known != nil {
		known.Store(int32(score + 1))
	}
	return score
}

// commonScores[rank] is Score plus one of the common password of that
// rank, 0 until estimated. The common list is the trie's first.
var commonScores [maxRank + 1]atomic.Int32

// estimate finds the cheapest match sequence of password, in s: the
// analysis, its guesses and the sequence. Runes past MaxPasswordLength are
// not matched; each adds a bruteforce factor.
func (s *scratch) estimate(password string, user *trie) (a *analysis, guesses float64, seq []match) {
	runes := s.runes[:0]
	for _, r := range password {
		runes = append(runes, r)
	}
	s.runes = runes
	analysed, extra := runes, 0
	if len(runes) > MaxPasswordLength {
		analysed, extra = runes[:MaxPasswordLength], len(runes)-MaxPasswordLength
	}
	a = s.analysis(analysed, user)
	guesses, seq = a.mostGuessableSequence(a.omnimatch())
	if extra > 0 {
		guesses *= math.Pow(bruteforceCardinality, float64(extra))
		if math.IsInf(guesses, 1) {
			guesses = math.MaxFloat64
		}
	}
	return a, guesses, seq
}

// userInputTrie indexes the lower-cased user inputs, ranked 1..n; a repeated
// input keeps its last rank, as in zxcvbn.
func userInputTrie(inputs []string) *trie {
	if len(inputs) == 0 {
		return nil
	}
	if len(inputs) > MaxUserInputs {
		inputs = inputs[:MaxUserInputs]
	}
	words := make([]string, len(inputs))
	for k, in := range inputs {
		rs := []rune(in)
		if len(rs) > MaxPasswordLength {
			rs = rs[:MaxPasswordLength]
		}
		for x, r := range rs {
			rs[x] = unicode.ToLower(r)
		}
		words[k] = string(rs)
	}
	return buildTrie([][]string{words})
}

// scoreFor maps guesses to zxcvbn's score: below 10^3, 10^6, 10^8, 10^10
// (each plus 5) scores 0, 1, 2, 3; anything more 4.
func scoreFor(guesses float64) int {
	const delta = 5
	switch {
	case guesses < 1e3+delta:
		return 0
	case guesses < 1e6+delta:
		return 1
	case guesses < 1e8+delta:
		return 2
	case guesses < 1e10+delta:
		return 3
	}
	return 4
}

var labels = [...]string{"very weak", "weak", "fair", "strong", "very strong"}

// Label names a score 0..4; other values yield "".
func Label(score int) string {
	if score < 0 || score >= len(labels) {
		return ""
	}
	return labels[score]
}

// Character class sizes for Entropy.
const (
	lowerClass  = 26
	upperClass  = 26
	digitClass  = 10
	symbolClass = 33  // printable ASCII punctuation and space
	otherClass  = 100 // any other rune: non-ASCII, control characters
)

// Entropy returns length × log2(charset size), rounded to 2 places, where
// the charset size adds up the classes present: lower case 26, upper case
// 26, digits 10, ASCII punctuation and space 33, anything else 100.
// The empty password has entropy 0 and charset size 0.
func Entropy(password string) (entropy float64, charsetSize int) {
	var lower, upper, digit, symbol, other bool
	length := 0
	for _, r := range password {
		length++
		switch {
		case isLower(r):
			lower = true
		case isUpper(r):
			upper = true
		case isDigit(r):
			digit = true
		case r >= ' ' && r <= '~':
			symbol = true
		default:
			other = true
		}
	}
	for _, c := range []struct {
		present bool
		size    int
	}{{lower, lowerClass}, {upper, upperClass}, {digit, digitClass}, {symbol, symbolClass}, {other, otherClass}} {
		if c.present {
			charsetSize += c.size
		}
	}
	if length == 0 {
		return 0, 0
	}
	return math.Round(float64(length)*math.Log2(float64(charsetSize))*100) / 100, charsetSize
}

// BruteForceTime is the time to try half of the password's keyspace
// (charset size ^ length, see Entropy) at 10^10 guesses per second.
func BruteForceTime(password string) string {
	_, charset := Entropy(password)
	length := float64(len([]rune(password)))
	if charset == 0 {
		return HumanDuration(0)
	}
	return HumanDuration(math.Pow(float64(charset), length) / 2 / fastHashGuessesPerSecond)
}

// HumanDuration renders seconds the way zxcvbn does: "less than a second",
// "N second(s)", minutes, hours, days, months (31 days), years (12 such
// months), and "centuries" from 100 years on.
func HumanDuration(seconds float64) string {
	const (
		minute  = 60
		hour    = minute * 60
		day     = hour * 24
		month   = day * 31
		year    = month * 12
		century = year * 100
	)
	if !(seconds >= 1) { // also NaN
		return "less than a second"
	}
	units := []struct {
		limit float64
		size  float64
		name  string
	}{
		{minute, 1, "second"}, {hour, minute, "minute"}, {day, hour, "hour"},
		{month, day, "day"}, {year, month, "month"}, {century, year, "year"},
	}
	for _, u := range units {
		if seconds < u.limit {
			n := math.Round(seconds / u.size)
			s := strconv.Itoa(int(n)) + " " + u.name
			if n != 1 {
				s += "s"
			}
			return s
		}
	}
	return "centuries"
}

// IsCommon reports whether password, as typed or lower-cased, is in the
// embedded common-password list.
func IsCommon(password string) bool {
	return commonRank(password) > 0 || isCommonLowerCased(password)
}

// isCommonLowerCased reports whether password lower-cased, when that
// changes it, is in the common list.
func isCommonLowerCased(password string) bool {
	lower := strings.ToLower(password)
	return lower != password && commonRank(lower) > 0
}

// commonRank is the rank of word in the common-password list, 0 when it
// is not in it.
func commonRank(word string) int32 {
	if list, rank := data().words.lookup(word); list == 0 { // passwords is the first list
		return rank
	}
	return 0
}

// CommonPasswords returns the embedded common-password list (zxcvbn's
// 30,000 passwords), most common first, decoded afresh on each call.
func CommonPasswords() []string {
	list, err := decodeList(passwordsList)
	if err != nil {
		panic("strength: embedded data: " + err.Error()) // a build defect
	}
	return list
}
