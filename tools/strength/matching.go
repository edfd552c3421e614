package strength

import (
	"sort"
	"strings"
	"unicode"
)

// Match is one pattern found in the password, covering runes I..J inclusive.
// Fields after Guesses are set only for the pattern they belong to.
type Match struct {
	Pattern      string  `json:"pattern"` // dictionary, spatial, repeat, sequence, regex, date, bruteforce
	Token        string  `json:"token"`
	I            int     `json:"i"`
	J            int     `json:"j"`
	Guesses      float64 `json:"guesses"`
	GuessesLog10 float64 `json:"guesses_log10"`

	// dictionary
	DictionaryName string            `json:"dictionary_name,omitempty"`
	MatchedWord    string            `json:"matched_word,omitempty"`
	Rank           int               `json:"rank,omitempty"`
	Reversed       bool              `json:"reversed,omitempty"`
	L33t           bool              `json:"l33t,omitempty"`
	Sub            map[string]string `json:"sub,omitempty"` // l33t character -> letter it stands for

	// spatial
	Graph        string `json:"graph,omitempty"`
	Turns        int    `json:"turns,omitempty"`
	ShiftedCount int    `json:"shifted_count,omitempty"`

	// repeat
	BaseToken   string  `json:"base_token,omitempty"`
	BaseGuesses float64 `json:"base_guesses,omitempty"`
	RepeatCount int     `json:"repeat_count,omitempty"`

	// sequence
	SequenceName string `json:"sequence_name,omitempty"`
	Ascending    bool   `json:"ascending,omitempty"`

	// regex
	RegexName string `json:"regex_name,omitempty"`

	// date
	Year      int    `json:"year,omitempty"`
	Month     int    `json:"month,omitempty"`
	Day       int    `json:"day,omitempty"`
	Separator string `json:"separator,omitempty"`
}

// analysis holds one password (or repeat base token) being matched.
type analysis struct {
	pw    []rune // as typed
	lower []rune // rune-wise lower case; same length as pw
	user  *trie  // user inputs, or nil
}

func newAnalysis(pw []rune, user *trie) *analysis {
	lower := make([]rune, len(pw))
	for k, r := range pw {
		lower[k] = unicode.ToLower(r)
	}
	return &analysis{pw: pw, lower: lower, user: user}
}

func (a *analysis) token(i, j int) string { return string(a.pw[i : j+1]) }

// omnimatch runs every matcher and orders the matches by (i, j), keeping the
// matchers' order among matches over the same span.
func (a *analysis) omnimatch() []Match {
	var ms []Match
	ms = a.dictionaryMatches(ms)
	ms = a.reversedMatches(ms)
	ms = a.l33tMatches(ms)
	ms = a.spatialMatches(ms)
	ms = a.repeatMatches(ms)
	ms = a.sequenceMatches(ms)
	ms = a.regexMatches(ms)
	ms = a.dateMatches(ms)
	sort.SliceStable(ms, func(x, y int) bool {
		if ms[x].I != ms[y].I {
			return ms[x].I < ms[y].I
		}
		return ms[x].J < ms[y].J
	})
	return ms
}

// --- dictionary ---------------------------------------------------------

// dictionaryMatches finds every substring that is a word of a list.
func (a *analysis) dictionaryMatches(ms []Match) []Match {
	ms = walkWords(ms, data().words, dictionaryNames[:], a.pw, a.lower, false)
	if a.user != nil {
		ms = walkWords(ms, a.user, []string{userInputsName}, a.pw, a.lower, false)
	}
	return ms
}

// reversedMatches finds words spelt backwards.
func (a *analysis) reversedMatches(ms []Match) []Match {
	n := len(a.pw)
	rpw, rlower := make([]rune, n), make([]rune, n)
	for k := range a.pw {
		rpw[n-1-k], rlower[n-1-k] = a.pw[k], a.lower[k]
	}
	start := len(ms)
	ms = walkWords(ms, data().words, dictionaryNames[:], rpw, rlower, true)
	if a.user != nil {
		ms = walkWords(ms, a.user, []string{userInputsName}, rpw, rlower, true)
	}
	for k := start; k < len(ms); k++ {
		m := &ms[k]
		m.I, m.J = n-1-m.J, n-1-m.I
		m.Token = a.token(m.I, m.J)
	}
	return ms
}

func walkWords(ms []Match, t *trie, names []string, pw, lower []rune, reversed bool) []Match {
	for i := range lower {
		node := int32(0)
		for j := i; j < len(lower); j++ {
			node = t.child(node, lower[j])
			if node < 0 {
				break
			}
			w := t.nodes[node].word
			if w < 0 {
				continue
			}
			for slot, name := range names {
				rank := t.ranks[int(w)*t.slots+slot]
				if rank == 0 {
					continue
				}
				ms = append(ms, Match{
					Pattern: "dictionary", I: i, J: j, Token: string(pw[i : j+1]),
					MatchedWord: string(lower[i : j+1]), Rank: int(rank),
					DictionaryName: name, Reversed: reversed,
				})
			}
		}
	}
	return ms
}

// --- spatial --------------------------------------------------------------

// shiftedKeys are the characters typed with shift on qwerty and dvorak.
const shiftedKeys = `~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:"ZXCVBNM<>?`

func (a *analysis) spatialMatches(ms []Match) []Match {
	d := data()
	for gi, name := range graphNames {
		ms = spatialWalk(ms, a, d.graphs[gi], name, gi < 2)
	}
	return ms
}

func spatialWalk(ms []Match, a *analysis, g keyGraph, name string, keyboard bool) []Match {
	pw := a.pw
	i := 0
	for i < len(pw)-1 {
		j := i + 1
		lastDirection := -1
		turns, shifted := 0, 0
		if keyboard && strings.ContainsRune(shiftedKeys, pw[i]) {
			shifted = 1
		}
		for {
			found := false
			if j < len(pw) {
				cur := pw[j]
				for dir, adj := range g[pw[j-1]] {
					idx := strings.IndexRune(adj, cur)
					if adj == "" || idx < 0 {
						continue
					}
					found = true
					if idx == 1 {
						shifted++
					}
					if lastDirection != dir {
						turns++
						lastDirection = dir
					}
					break
				}
			}
			if found {
				j++
				continue
			}
			if j-i > 2 {
				ms = append(ms, Match{
					Pattern: "spatial", I: i, J: j - 1, Token: a.token(i, j-1),
					Graph: name, Turns: turns, ShiftedCount: shifted,
				})
			}
			i = j
			break
		}
	}
	return ms
}

// --- repeat ---------------------------------------------------------------

// isLineBreak reports the characters a JavaScript "." does not match.
func isLineBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// repeatsAt reports whether pw[p:p+l] is immediately repeated, with no line
// break inside (zxcvbn uses /(.+)\1+/).
func repeatsAt(pw []rune, p, l int) bool {
	if p+2*l > len(pw) {
		return false
	}
	for k := 0; k < l; k++ {
		if isLineBreak(pw[p+k]) || pw[p+k] != pw[p+l+k] {
			return false
		}
	}
	return true
}

// repeatCount counts how many times pw[p:p+l] occurs back to back from p.
func repeatCount(pw []rune, p, l int) int {
	count := 1
	for repeatsAt(pw, p+(count-1)*l, l) {
		count++
	}
	return count
}

// repeatMatches mirrors zxcvbn's greedy-versus-lazy regular expressions: at
// the leftmost position with a repeat, take the longer of the longest and
// the shortest repeated unit, then reduce the unit to its shortest period.
func (a *analysis) repeatMatches(ms []Match) []Match {
	pw := a.pw
	for start := 0; start < len(pw); {
		p, lazy := -1, 0
		for q := start; q < len(pw) && p < 0; q++ {
			for l := 1; q+2*l <= len(pw); l++ {
				if repeatsAt(pw, q, l) {
					p, lazy = q, l
					break
				}
			}
		}
		if p < 0 {
			break
		}
		greedy := lazy
		for l := (len(pw) - p) / 2; l > lazy; l-- {
			if repeatsAt(pw, p, l) {
				greedy = l
				break
			}
		}
		greedyLen := greedy * repeatCount(pw, p, greedy)
		lazyLen := lazy * repeatCount(pw, p, lazy)
		length, base := lazyLen, lazy
		if greedyLen > lazyLen {
			length = greedyLen
			base = shortestPeriod(pw[p : p+length])
		}
		baseRunes := pw[p : p+base]
		sub := newAnalysis(baseRunes, a.user)
		baseGuesses, _ := mostGuessableSequence(sub, sub.omnimatch())
		ms = append(ms, Match{
			Pattern: "repeat", I: p, J: p + length - 1, Token: a.token(p, p+length-1),
			BaseToken: string(baseRunes), BaseGuesses: baseGuesses, RepeatCount: length / base,
		})
		start = p + length
	}
	return ms
}

// shortestPeriod returns the shortest unit that, repeated at least twice,
// spells s exactly.
func shortestPeriod(s []rune) int {
	for l := 1; 2*l <= len(s); l++ {
		if len(s)%l != 0 {
			continue
		}
		ok := true
		for k := l; k < len(s); k++ {
			if s[k] != s[k-l] {
				ok = false
				break
			}
		}
		if ok {
			return l
		}
	}
	return len(s)
}

// --- sequence -------------------------------------------------------------

const maxSequenceDelta = 5

// sequenceMatches finds runs with a constant code point step of 1..5 in
// either direction (abc, 9753, αβγ).
func (a *analysis) sequenceMatches(ms []Match) []Match {
	pw := a.pw
	if len(pw) < 2 {
		return ms
	}
	emit := func(i, j, delta int) {
		if !(j-i > 1 || abs(delta) == 1) || abs(delta) == 0 || abs(delta) > maxSequenceDelta {
			return
		}
		tok := pw[i : j+1]
		name := "unicode"
		switch {
		case allRunes(tok, func(r rune) bool { return r >= 'a' && r <= 'z' }):
			name = "lower"
		case allRunes(tok, func(r rune) bool { return r >= 'A' && r <= 'Z' }):
			name = "upper"
		case allRunes(tok, isDigit):
			name = "digits"
		}
		ms = append(ms, Match{
			Pattern: "sequence", I: i, J: j, Token: string(tok),
			SequenceName: name, Ascending: delta > 0,
		})
	}
	i := 0
	last := int(pw[1]) - int(pw[0])
	for k := 1; k < len(pw); k++ {
		delta := int(pw[k]) - int(pw[k-1])
		if delta == last {
			continue
		}
		emit(i, k-1, last)
		i, last = k-1, delta
	}
	emit(i, len(pw)-1, last)
	return ms
}

func allRunes(rs []rune, f func(rune) bool) bool {
	for _, r := range rs {
		if !f(r) {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// --- regex (recent years) ---------------------------------------------------

// regexMatches finds zxcvbn 4.4.2's recent years, /19\d\d|200\d|201\d/g.
func (a *analysis) regexMatches(ms []Match) []Match {
	pw := a.pw
	for p := 0; p+4 <= len(pw); {
		c := pw[p : p+4]
		year := (c[0] == '1' && c[1] == '9' && isDigit(c[2]) && isDigit(c[3])) ||
			(c[0] == '2' && c[1] == '0' && (c[2] == '0' || c[2] == '1') && isDigit(c[3]))
		if !year {
			p++
			continue
		}
		ms = append(ms, Match{Pattern: "regex", I: p, J: p + 3, Token: string(c), RegexName: "recent_year"})
		p += 4
	}
	return ms
}

// --- dates ----------------------------------------------------------------

const (
	dateMinYear = 1000
	dateMaxYear = 2050
)

// dateSplits gives, per digit-run length, where the second and third parts
// of a separator-free date start.
var dateSplits = map[int][][2]int{
	4: {{1, 2}, {2, 3}},
	5: {{1, 3}, {2, 3}},
	6: {{1, 2}, {2, 4}, {4, 5}},
	7: {{1, 3}, {2, 3}, {4, 5}, {4, 6}},
	8: {{2, 4}, {4, 6}},
}

type dmy struct{ day, month, year int }

func (a *analysis) dateMatches(ms []Match) []Match {
	pw := a.pw
	var found []Match
	// Without separators: 4 to 8 digits, e.g. 1191 or 11111991.
	for i := 0; i+4 <= len(pw); i++ {
		for j := i + 3; j <= i+7 && j < len(pw); j++ {
			tok := pw[i : j+1]
			if !allRunes(tok, isDigit) {
				break
			}
			best, ok := dmy{}, false
			bestDistance := 0
			for _, s := range dateSplits[len(tok)] {
				d, valid := mapIntsToDMY(digitsValue(tok[:s[0]]), digitsValue(tok[s[0]:s[1]]), digitsValue(tok[s[1]:]))
				if !valid {
					continue
				}
				distance := abs(d.year - ReferenceYear)
				if !ok || distance < bestDistance {
					best, bestDistance, ok = d, distance, true
				}
			}
			if ok {
				found = append(found, Match{Pattern: "date", I: i, J: j, Token: string(tok),
					Year: best.year, Month: best.month, Day: best.day})
			}
		}
	}
	// With separators: 6 to 10 characters, e.g. 1/1/91 or 11-11-1991.
	for i := 0; i+6 <= len(pw); i++ {
		for j := i + 5; j <= i+9 && j < len(pw); j++ {
			first, sep, second, third, ok := splitSeparatedDate(pw[i : j+1])
			if !ok {
				continue
			}
			d, valid := mapIntsToDMY(first, second, third)
			if !valid {
				continue
			}
			found = append(found, Match{Pattern: "date", I: i, J: j, Token: a.token(i, j),
				Separator: string(sep), Year: d.year, Month: d.month, Day: d.day})
		}
	}
	// Drop dates inside other dates ("2015_06_04" also holds "15_06_04").
	for k, m := range found {
		inside := false
		for o, other := range found {
			if o != k && other.I <= m.I && other.J >= m.J {
				inside = true
				break
			}
		}
		if !inside {
			ms = append(ms, m)
		}
	}
	return ms
}

// splitSeparatedDate matches ^(\d{1,4})([\s/\\_.-])(\d{1,2})\2(\d{1,4})$.
func splitSeparatedDate(tok []rune) (first int, sep rune, second, third int, ok bool) {
	k := 0
	for k < len(tok) && isDigit(tok[k]) {
		k++
	}
	if k < 1 || k > 4 || k >= len(tok) {
		return
	}
	first, sep = digitsValue(tok[:k]), tok[k]
	if !isDateSeparator(sep) {
		return
	}
	rest := tok[k+1:]
	m := 0
	for m < len(rest) && isDigit(rest[m]) {
		m++
	}
	if m < 1 || m > 2 || m >= len(rest) || rest[m] != sep {
		return
	}
	second = digitsValue(rest[:m])
	last := rest[m+1:]
	if len(last) < 1 || len(last) > 4 || !allRunes(last, isDigit) {
		return
	}
	return first, sep, second, digitsValue(last), true
}

// isDateSeparator reports [\s/\\_.-] with JavaScript's meaning of \s.
func isDateSeparator(r rune) bool {
	switch r {
	case '/', '\\', '_', '.', '-', '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680',
		'\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

func digitsValue(rs []rune) int {
	v := 0
	for _, r := range rs {
		v = v*10 + int(r-'0')
	}
	return v
}

// mapIntsToDMY reads three integers as a day, month and year in some order,
// with zxcvbn's rules: the year comes first or last, two-digit years are
// widened, and implausible tuples are rejected.
func mapIntsToDMY(a, b, c int) (dmy, bool) {
	if b > 31 || b <= 0 {
		return dmy{}, false
	}
	over12, over31, under1 := 0, 0, 0
	for _, v := range [3]int{a, b, c} {
		if (v > 99 && v < dateMinYear) || v > dateMaxYear {
			return dmy{}, false
		}
		if v > 31 {
			over31++
		}
		if v > 12 {
			over12++
		}
		if v <= 0 {
			under1++
		}
	}
	if over31 >= 2 || over12 == 3 || under1 >= 2 {
		return dmy{}, false
	}
	splits := [2]struct{ year, x, y int }{{c, a, b}, {a, b, c}}
	for _, s := range splits {
		if s.year >= dateMinYear && s.year <= dateMaxYear {
			day, month, ok := mapIntsToDM(s.x, s.y)
			return dmy{day, month, s.year}, ok
		}
	}
	for _, s := range splits {
		if day, month, ok := mapIntsToDM(s.x, s.y); ok {
			return dmy{day, month, widenYear(s.year)}, true
		}
	}
	return dmy{}, false
}

func mapIntsToDM(x, y int) (day, month int, ok bool) {
	for _, p := range [2][2]int{{x, y}, {y, x}} {
		if p[0] >= 1 && p[0] <= 31 && p[1] >= 1 && p[1] <= 12 {
			return p[0], p[1], true
		}
	}
	return 0, 0, false
}

func widenYear(y int) int {
	switch {
	case y > 99:
		return y
	case y > 50:
		return y + 1900
	default:
		return y + 2000
	}
}
