package strength

import (
	"slices"
	"sync"
	"unicode"
	"unsafe"
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

// patternKind is a match's pattern; patternNames spells it for Match.
type patternKind uint8

const (
	bruteforcePattern patternKind = iota
	dictionaryPattern
	spatialPattern
	repeatPattern
	sequencePattern
	regexPattern
	datePattern
)

var patternNames = [...]string{"bruteforce", "dictionary", "spatial", "repeat", "sequence", "regex", "date"}

// userInputsDict is the dictionary index of user inputs, after the lists of
// dictionaryNames.
const userInputsDict = len(dictionaryNames)

// match is the working form of a Match: no strings, no maps, so that
// finding and scoring the hundreds of candidate matches of a password
// allocates nothing. Only the matches of the chosen sequence become Matches.
type match struct {
	i, j    int32
	kind    patternKind
	guesses float64 // 0 until estimateGuesses

	// dictionary
	dict     uint8 // index into dictionaryNames, or userInputsDict
	reversed bool
	rank     int32
	sub      l33tReading // l33t matches only

	// spatial
	graph          uint8 // index into graphNames
	turns, shifted int32

	// repeat
	baseLen, repeatCount int32
	baseGuesses          float64

	// sequence
	sequenceName uint8 // index into sequenceNames
	ascending    bool

	// date
	year, month, day int32
	separator        rune // 0: none
}

// analysis holds one password (or repeat base token) being matched.
type analysis struct {
	pw    []rune // as typed
	lower []rune // rune-wise lower case; same length as pw
	user  *trie  // user inputs, or nil
	s     *scratch
}

// scratch is the reusable memory of one analysis; see getScratch.
type scratch struct {
	runes, lower, reversedLower []rune
	matches, dates, seq         []match
	opt                         [][]dpEntry
	matchEnds                   []bool  // see mostGuessableSequence
	byJ                         []int32 // match indices grouped by j
	jStart                      []int32 // byJ[jStart[k]:jStart[k+1]] end at k
	l33t                        l33tSearch
	base                        *scratch // for repeat base tokens, analysed inside this analysis
	analysed                    analysis // the analysis this scratch holds, reused so as not to allocate it
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledBytes bounds the memory a pooled scratch keeps: the analysis of
// a hostile input (thousands of matches, long searches) lets its scratch go.
const maxPooledBytes = 256 << 10

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	if s.bytes() <= maxPooledBytes {
		scratchPool.Put(s)
	}
}

// bytes approximates the memory s and its base scratches hold.
func (s *scratch) bytes() int {
	total := 0
	for ; s != nil; s = s.base {
		const matchSize, entrySize = int(unsafe.Sizeof(match{})), int(unsafe.Sizeof(dpEntry{}))
		total += cap(s.matchEnds) + 4*(cap(s.runes)+cap(s.lower)+cap(s.reversedLower)+cap(s.byJ)+cap(s.jStart)+cap(s.l33t.nextL33t)) +
			matchSize*(cap(s.matches)+cap(s.dates)+cap(s.seq)) +
			8*(cap(s.l33t.subs)+cap(s.l33t.tmp)+cap(s.l33t.agree)+cap(s.l33t.all)+cap(s.l33t.sets))
		for _, entries := range s.opt[:cap(s.opt)] {
			total += entrySize * cap(entries)
		}
	}
	return total
}

func (s *scratch) analysis(pw []rune, user *trie) *analysis {
	s.lower = s.lower[:0]
	for _, r := range pw {
		s.lower = append(s.lower, unicode.ToLower(r))
	}
	s.analysed = analysis{pw: pw, lower: s.lower, user: user, s: s}
	return &s.analysed
}

func (a *analysis) token(i, j int) string { return string(a.pw[i : j+1]) }

// omnimatch runs every matcher, in zxcvbn's order, into a.s.matches.
func (a *analysis) omnimatch() []match {
	ms := a.s.matches[:0]
	ms = a.dictionaryMatches(ms)
	ms = a.reversedMatches(ms)
	ms = a.l33tMatches(ms)
	ms = a.spatialMatches(ms)
	ms = a.repeatMatches(ms)
	ms = a.sequenceMatches(ms)
	ms = a.regexMatches(ms)
	ms = a.dateMatches(ms)
	a.s.matches = ms
	return ms
}

// public spells out m as a Match.
func (a *analysis) public(m *match) Match {
	i, j := int(m.i), int(m.j)
	out := Match{
		Pattern: patternNames[m.kind], Token: a.token(i, j), I: i, J: j,
		Guesses: m.guesses, GuessesLog10: log10(m.guesses),
	}
	switch m.kind {
	case dictionaryPattern:
		out.DictionaryName = userInputsName
		if int(m.dict) < len(dictionaryNames) {
			out.DictionaryName = dictionaryNames[m.dict]
		}
		out.Rank, out.Reversed, out.L33t = int(m.rank), m.reversed, m.sub.n > 0
		word := make([]rune, 0, j-i+1)
		for k := i; k <= j; k++ {
			word = append(word, m.sub.read(a.pw[k], a.lower[k]))
		}
		if m.reversed {
			slices.Reverse(word)
		}
		out.MatchedWord = string(word)
		if m.sub.n > 0 {
			out.Sub = m.sub.asMap()
		}
	case spatialPattern:
		out.Graph, out.Turns, out.ShiftedCount = graphNames[m.graph], int(m.turns), int(m.shifted)
	case repeatPattern:
		out.BaseToken = string(a.pw[i : i+int(m.baseLen)])
		out.BaseGuesses, out.RepeatCount = m.baseGuesses, int(m.repeatCount)
	case sequencePattern:
		out.SequenceName, out.Ascending = sequenceNames[m.sequenceName], m.ascending
	case regexPattern:
		out.RegexName = "recent_year"
	case datePattern:
		out.Year, out.Month, out.Day = int(m.year), int(m.month), int(m.day)
		if m.separator != 0 {
			out.Separator = string(m.separator)
		}
	}
	return out
}

// --- dictionary ---------------------------------------------------------

// dictionaryMatches finds every substring that is a word of a list.
func (a *analysis) dictionaryMatches(ms []match) []match {
	ms = walkWords(ms, data().words, 0, a.lower, false)
	if a.user != nil {
		ms = walkWords(ms, a.user, userInputsDict, a.lower, false)
	}
	return ms
}

// reversedMatches finds words spelt backwards.
func (a *analysis) reversedMatches(ms []match) []match {
	n := len(a.lower)
	rlower := append(a.s.reversedLower[:0], a.lower...)
	slices.Reverse(rlower)
	a.s.reversedLower = rlower
	start := len(ms)
	ms = walkWords(ms, data().words, 0, rlower, true)
	if a.user != nil {
		ms = walkWords(ms, a.user, userInputsDict, rlower, true)
	}
	for k := start; k < len(ms); k++ {
		m := &ms[k]
		m.i, m.j = int32(n-1)-m.j, int32(n-1)-m.i
	}
	return ms
}

// walkWords appends a match for every substring of lower that is a word
// of t; the trie's lists are dictionaries firstDict, firstDict+1...
func walkWords(ms []match, t *trie, firstDict int, lower []rune, reversed bool) []match {
	for i := range lower {
		node := int32(0)
		for j := i; j < len(lower); j++ {
			node = t.child(node, lower[j])
			if node < 0 {
				break
			}
			if list, rank := t.nodes[node].word(); rank > 0 {
				ms = append(ms, match{
					kind: dictionaryPattern, i: int32(i), j: int32(j),
					dict: uint8(firstDict + list), rank: rank, reversed: reversed,
				})
			}
		}
	}
	return ms
}

// --- spatial --------------------------------------------------------------

// shiftedKey marks the characters typed with shift on qwerty and dvorak.
var shiftedKey = func() (shifted [128]bool) {
	for _, r := range `~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:"ZXCVBNM<>?` {
		shifted[r] = true
	}
	return shifted
}()

func (a *analysis) spatialMatches(ms []match) []match {
	d := data()
	for gi := range graphNames {
		ms = spatialWalk(ms, a.pw, &d.graphs[gi], uint8(gi), gi < 2)
	}
	return ms
}

func spatialWalk(ms []match, pw []rune, g *keyGraph, graph uint8, keyboard bool) []match {
	i := 0
	for i < len(pw)-1 {
		j := i + 1
		lastDirection := -1
		turns, shifted := 0, 0
		if keyboard && pw[i] < 128 && shiftedKey[pw[i]] {
			shifted = 1
		}
		for ; j < len(pw); j++ {
			dir, idx := g.neighbour(pw[j-1], pw[j])
			if dir < 0 {
				break
			}
			if idx == 1 {
				shifted++
			}
			if lastDirection != dir {
				turns++
				lastDirection = dir
			}
		}
		if j-i > 2 {
			ms = append(ms, match{
				kind: spatialPattern, i: int32(i), j: int32(j - 1),
				graph: graph, turns: int32(turns), shifted: int32(shifted),
			})
		}
		i = j
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
func (a *analysis) repeatMatches(ms []match) []match {
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
		ms = append(ms, match{
			kind: repeatPattern, i: int32(p), j: int32(p + length - 1),
			baseLen: int32(base), baseGuesses: a.baseGuesses(pw[p : p+base]), repeatCount: int32(length / base),
		})
		start = p + length
	}
	return ms
}

// baseGuesses estimates a repeat's unit as a password of its own.
func (a *analysis) baseGuesses(base []rune) float64 {
	if a.s.base == nil {
		a.s.base = new(scratch)
	}
	sub := a.s.base.analysis(base, a.user)
	guesses, _ := sub.mostGuessableSequence(sub.omnimatch())
	return guesses
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

// sequenceNames are zxcvbn's sequence names, indexed by match.sequenceName.
var sequenceNames = [...]string{"unicode", "lower", "upper", "digits"}

// sequenceMatches finds runs with a constant code point step of 1..5 in
// either direction (abc, 9753, αβγ).
func (a *analysis) sequenceMatches(ms []match) []match {
	pw := a.pw
	if len(pw) < 2 {
		return ms
	}
	i := 0
	last := int(pw[1]) - int(pw[0])
	for k := 1; k < len(pw); k++ {
		delta := int(pw[k]) - int(pw[k-1])
		if delta == last {
			continue
		}
		ms = appendSequence(ms, pw, i, k-1, last)
		i, last = k-1, delta
	}
	return appendSequence(ms, pw, i, len(pw)-1, last)
}

// appendSequence appends pw[i..j], whose code points step by delta, if it
// is a sequence zxcvbn reports.
func appendSequence(ms []match, pw []rune, i, j, delta int) []match {
	if !(j-i > 1 || abs(delta) == 1) || abs(delta) == 0 || abs(delta) > maxSequenceDelta {
		return ms
	}
	tok := pw[i : j+1]
	name := uint8(0) // unicode
	switch {
	case allRunes(tok, isLower):
		name = 1
	case allRunes(tok, isUpper):
		name = 2
	case allRunes(tok, isDigit):
		name = 3
	}
	return append(ms, match{
		kind: sequencePattern, i: int32(i), j: int32(j),
		sequenceName: name, ascending: delta > 0,
	})
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
func (a *analysis) regexMatches(ms []match) []match {
	pw := a.pw
	for p := 0; p+4 <= len(pw); {
		c := pw[p : p+4]
		year := (c[0] == '1' && c[1] == '9' && isDigit(c[2]) && isDigit(c[3])) ||
			(c[0] == '2' && c[1] == '0' && (c[2] == '0' || c[2] == '1') && isDigit(c[3]))
		if !year {
			p++
			continue
		}
		ms = append(ms, match{kind: regexPattern, i: int32(p), j: int32(p + 3)})
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
var dateSplits = [...][][2]int{
	4: {{1, 2}, {2, 3}},
	5: {{1, 3}, {2, 3}},
	6: {{1, 2}, {2, 4}, {4, 5}},
	7: {{1, 3}, {2, 3}, {4, 5}, {4, 6}},
	8: {{2, 4}, {4, 6}},
}

type dmy struct{ day, month, year int }

func (d dmy) match(i, j int, separator rune) match {
	return match{kind: datePattern, i: int32(i), j: int32(j),
		year: int32(d.year), month: int32(d.month), day: int32(d.day), separator: separator}
}

func (a *analysis) dateMatches(ms []match) []match {
	pw := a.pw
	// Every date has at least 4 digits (a separated one is 6 characters
	// or more with two separators), and most passwords have fewer; most
	// have no separator either.
	digits, separators := 0, false
	for _, r := range pw {
		if isDigit(r) {
			digits++
		} else if isDateSeparator(r) {
			separators = true
		}
	}
	if digits < 4 {
		return ms
	}
	found := a.s.dates[:0]
	// Without separators: 4 to 8 digits, e.g. 1191 or 11111991. runEnd is
	// where the run of digits holding i ends.
	runEnd := 0
	for i := 0; i+4 <= len(pw); i++ {
		if runEnd <= i {
			for runEnd = i; runEnd < len(pw) && isDigit(pw[runEnd]); runEnd++ {
			}
		}
		for j := i + 3; j <= i+7 && j < runEnd; j++ {
			tok := pw[i : j+1]
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
				found = append(found, best.match(i, j, 0))
			}
		}
	}
	// With separators: 6 to 10 characters, e.g. 1/1/91 or 11-11-1991,
	// starting with a digit.
	for i := 0; separators && i+6 <= len(pw); i++ {
		if !isDigit(pw[i]) {
			continue
		}
		for j := i + 5; j <= i+9 && j < len(pw); j++ {
			first, sep, second, third, ok := splitSeparatedDate(pw[i : j+1])
			if !ok {
				continue
			}
			d, valid := mapIntsToDMY(first, second, third)
			if !valid {
				continue
			}
			found = append(found, d.match(i, j, sep))
		}
	}
	a.s.dates = found
	// Drop dates inside other dates ("2015_06_04" also holds "15_06_04").
	for k, m := range found {
		inside := false
		for o, other := range found {
			if o != k && other.i <= m.i && other.j >= m.j {
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
