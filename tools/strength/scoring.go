package strength

import (
	"math"
	"strconv"
)

// ReferenceYear anchors year and date guesses. zxcvbn 4.4.2 reads the
// current year at run time; it is fixed here so that results are
// reproducible, and equals the year in which testdata/reference_scores.tsv
// was generated with the npm package.
const ReferenceYear = 2026

const (
	bruteforceCardinality           = 10
	minGuessesBeforeGrowingSequence = 10000
	minSubmatchGuessesSingleChar    = 10
	minSubmatchGuessesMultiChar     = 50
	minYearSpace                    = 20
)

// estimateGuesses sets and returns m.Guesses for a match inside a password
// of n runes.
func estimateGuesses(m *Match, n int) float64 {
	if m.Guesses != 0 {
		return m.Guesses
	}
	tokenLen := m.J - m.I + 1
	minGuesses := 1.0
	if tokenLen < n {
		minGuesses = minSubmatchGuessesMultiChar
		if tokenLen == 1 {
			minGuesses = minSubmatchGuessesSingleChar
		}
	}
	var g float64
	switch m.Pattern {
	case "bruteforce":
		g = bruteforceGuesses(tokenLen)
	case "dictionary":
		g = dictionaryGuesses(m)
	case "spatial":
		g = spatialGuesses(m)
	case "repeat":
		g = m.BaseGuesses * float64(m.RepeatCount)
	case "sequence":
		g = sequenceGuesses(m)
	case "regex":
		year, _ := strconv.Atoi(m.Token)
		g = float64(max(abs(year-ReferenceYear), minYearSpace))
	case "date":
		g = float64(max(abs(m.Year-ReferenceYear), minYearSpace)) * 365
		if m.Separator != "" {
			g *= 4
		}
	}
	m.Guesses = math.Max(g, minGuesses)
	return m.Guesses
}

// log10 is computed like zxcvbn's (ln x / ln 10) so logged figures agree.
func log10(x float64) float64 { return math.Log(x) / math.Ln10 }

// bruteforcePowers caches 10^length for every analysed length.
var bruteforcePowers = func() (p [MaxPasswordLength + 1]float64) {
	for k := range p {
		p[k] = math.Pow(bruteforceCardinality, float64(k))
	}
	return p
}()

func bruteforceGuesses(length int) float64 {
	g := bruteforcePowers[length]
	// One more than the smallest submatch guesses, so that any other
	// pattern over the same span wins.
	minGuesses := float64(minSubmatchGuessesMultiChar + 1)
	if length == 1 {
		minGuesses = minSubmatchGuessesSingleChar + 1
	}
	return math.Max(g, minGuesses)
}

func sequenceGuesses(m *Match) float64 {
	first := []rune(m.Token)[0]
	var base float64
	switch {
	case first == 'a' || first == 'A' || first == 'z' || first == 'Z' || first == '0' || first == '1' || first == '9':
		base = 4 // obvious starting points
	case isDigit(first):
		base = 10
	default:
		base = 26
	}
	if !m.Ascending {
		base *= 2
	}
	return base * float64(m.J-m.I+1)
}

func spatialGuesses(m *Match) float64 {
	d := data()
	starts, degree := d.keypadKeys, d.keypadAvg
	if m.Graph == "qwerty" || m.Graph == "dvorak" {
		starts, degree = d.keyboardKeys, d.keyboardAvg
	}
	length := m.J - m.I + 1
	guesses := 0.0
	// Patterns of this length or shorter with this many turns or fewer.
	for i := 2; i <= length; i++ {
		possibleTurns := min(m.Turns, i-1)
		for j := 1; j <= possibleTurns; j++ {
			guesses += float64(nCk(i-1, j-1) * starts * math.Pow(degree, float64(j))) // no fused multiply-add
		}
	}
	if m.ShiftedCount > 0 {
		shifted, unshifted := m.ShiftedCount, length-m.ShiftedCount
		if unshifted == 0 {
			guesses *= 2
		} else {
			guesses *= variations(shifted, unshifted)
		}
	}
	return guesses
}

// variations counts the ways to pick 1..min(a,b) positions among a+b.
func variations(a, b int) float64 {
	v := 0.0
	for i := 1; i <= min(a, b); i++ {
		v += nCk(a+b, i)
	}
	return v
}

func dictionaryGuesses(m *Match) float64 {
	reversed := 1.0
	if m.Reversed {
		reversed = 2
	}
	return float64(m.Rank) * uppercaseVariations(m.Token) * l33tVariations(m) * reversed
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
func isLower(r rune) bool { return r >= 'a' && r <= 'z' }

// uppercaseVariations follows zxcvbn: all lower costs nothing, a capital
// first or last letter or all caps doubles, anything else counts the ways
// to place that many capitals (ASCII letters only, as zxcvbn's regexes).
func uppercaseVariations(word string) float64 {
	rs := []rune(word)
	upper, lower := countCase(rs)
	if upper == 0 {
		return 1
	}
	n := len(rs)
	startUpper := n >= 2 && isUpper(rs[0]) && upper == 1
	endUpper := n >= 2 && isUpper(rs[n-1]) && upper == 1
	if startUpper || endUpper || lower == 0 {
		return 2
	}
	return variations(upper, lower)
}

// countCase counts the ASCII capitals and small letters of rs.
func countCase(rs []rune) (upper, lower int) {
	for _, r := range rs {
		if isUpper(r) {
			upper++
		} else if isLower(r) {
			lower++
		}
	}
	return upper, lower
}

func l33tVariations(m *Match) float64 {
	if !m.L33t {
		return 1
	}
	v := 1.0
	lowerToken := []rune(m.Token)
	for k, r := range lowerToken {
		if isUpper(r) {
			lowerToken[k] = r + ('a' - 'A')
		}
	}
	for subbed, unsubbed := range m.Sub {
		s, u := 0, 0
		sr, ur := []rune(subbed)[0], []rune(unsubbed)[0]
		for _, r := range lowerToken {
			switch r {
			case sr:
				s++
			case ur:
				u++
			}
		}
		if s == 0 || u == 0 {
			v *= 2
		} else {
			v *= variations(u, s)
		}
	}
	return v
}

// nCk computes n choose k in floating point, in zxcvbn's order of
// operations so results match bit for bit.
func nCk(n, k int) float64 {
	if k > n {
		return 0
	}
	if k == 0 {
		return 1
	}
	r, nf := 1.0, float64(n)
	for d := 1; d <= k; d++ {
		r *= nf
		r /= float64(d)
		nf--
	}
	return r
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// dpEntry is the best length-l match sequence found for a password prefix.
type dpEntry struct {
	l  int
	g  float64 // l! * pi + 10000^(l-1)
	pi float64 // product of the sequence's guesses
	m  int     // index of its last match, or bruteforceRef(i) for a bruteforce run from i
}

func bruteforceRef(i int) int    { return -1 - i }
func isBruteforceRef(m int) bool { return m < 0 }

// mostGuessableSequence is zxcvbn's search for the sequence of
// non-overlapping matches covering the password that minimises
// l! * Product(guesses) + 10000^(l-1) over sequence lengths l, with
// bruteforce filling the gaps. It returns that minimum and the sequence.
func mostGuessableSequence(a *analysis, matches []Match) (float64, []Match) {
	n := len(a.pw)
	if n == 0 {
		return 1, []Match{}
	}
	for k := range matches {
		estimateGuesses(&matches[k], n)
	}
	byJ := make([][]int, n)
	for k := range matches { // matches are sorted by i, so each list is too
		byJ[matches[k].J] = append(byJ[matches[k].J], k)
	}
	opt := make([][]dpEntry, n)

	piAt := func(k, l int) float64 {
		for _, e := range opt[k] {
			if e.l == l {
				return e.pi
			}
		}
		return math.NaN() // unreachable: callers pass existing lengths
	}
	update := func(ref, i, k, l int, guesses float64) {
		pi := guesses
		if l > 1 {
			pi *= piAt(i-1, l-1)
		}
		// float64(...) rounds the product before the sum, forbidding a fused
		// multiply-add, so results match JavaScript bit for bit.
		g := float64(factorial(l)*pi) + math.Pow(minGuessesBeforeGrowingSequence, float64(l-1))
		for _, e := range opt[k] { // sorted by l
			if e.l > l {
				break
			}
			if e.g <= g {
				return
			}
		}
		entry := dpEntry{l: l, g: g, pi: pi, m: ref}
		for x, e := range opt[k] {
			if e.l == l {
				opt[k][x] = entry
				return
			}
			if e.l > l {
				opt[k] = append(opt[k], dpEntry{})
				copy(opt[k][x+1:], opt[k][x:])
				opt[k][x] = entry
				return
			}
		}
		opt[k] = append(opt[k], entry)
	}
	// Bruteforce guesses always exceed the submatch minimum that
	// estimateGuesses would apply.
	bruteforceGuessesIn := func(i, k int) float64 { return bruteforceGuesses(k - i + 1) }

	for k := 0; k < n; k++ {
		for _, mi := range byJ[k] {
			m := &matches[mi]
			if m.I > 0 {
				for _, e := range opt[m.I-1] {
					update(mi, m.I, k, e.l+1, m.Guesses)
				}
			} else {
				update(mi, 0, k, 1, m.Guesses)
			}
		}
		// Bruteforce from the start, or after a sequence not ending in
		// bruteforce (two adjacent bruteforce runs are never optimal).
		update(bruteforceRef(0), 0, k, 1, bruteforceGuessesIn(0, k))
		for i := 1; i <= k; i++ {
			g := bruteforceGuessesIn(i, k)
			for _, e := range opt[i-1] {
				if !isBruteforceRef(e.m) {
					update(bruteforceRef(i), i, k, e.l+1, g)
				}
			}
		}
	}

	best := opt[n-1][0]
	for _, e := range opt[n-1][1:] {
		if e.g < best.g {
			best = e
		}
	}
	seq := make([]Match, best.l)
	k, l := n-1, best.l
	for k >= 0 {
		var e dpEntry
		for _, c := range opt[k] {
			if c.l == l {
				e = c
			}
		}
		var m Match
		if isBruteforceRef(e.m) {
			i := -1 - e.m
			m = Match{Pattern: "bruteforce", I: i, J: k, Token: a.token(i, k)}
			estimateGuesses(&m, n)
		} else {
			m = matches[e.m]
		}
		m.GuessesLog10 = log10(m.Guesses)
		seq[l-1] = m
		k = m.I - 1
		l--
	}
	return best.g, seq
}
