package strength

import (
	"math"
	"slices"
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

// estimateGuesses sets and returns m.guesses.
func (a *analysis) estimateGuesses(m *match) float64 {
	if m.guesses != 0 {
		return m.guesses
	}
	tokenLen := int(m.j - m.i + 1)
	minGuesses := 1.0
	if tokenLen < len(a.pw) {
		minGuesses = minSubmatchGuessesMultiChar
		if tokenLen == 1 {
			minGuesses = minSubmatchGuessesSingleChar
		}
	}
	token := a.pw[m.i : m.j+1]
	var g float64
	switch m.kind {
	case bruteforcePattern:
		g = bruteforceGuesses(tokenLen)
	case dictionaryPattern:
		g = dictionaryGuesses(m, token)
	case spatialPattern:
		g = spatialGuesses(m)
	case repeatPattern:
		g = m.baseGuesses * float64(m.repeatCount)
	case sequencePattern:
		g = sequenceGuesses(token, m.ascending)
	case regexPattern:
		g = float64(max(abs(digitsValue(token)-ReferenceYear), minYearSpace))
	case datePattern:
		g = float64(max(abs(int(m.year)-ReferenceYear), minYearSpace)) * 365
		if m.separator != 0 {
			g *= 4
		}
	}
	m.guesses = math.Max(g, minGuesses)
	return m.guesses
}

// log10 is computed like zxcvbn's (ln x / ln 10) so logged figures agree.
func log10(x float64) float64 { return math.Log(x) / math.Ln10 }

// bruteforceGuessesByLength is the guess count of a bruteforce run, per
// length: 10^length, but at least one more than the smallest submatch
// guesses, so that any other pattern over the same span wins.
var bruteforceGuessesByLength = func() (g [MaxPasswordLength + 1]float64) {
	for length := range g {
		minGuesses := float64(minSubmatchGuessesMultiChar + 1)
		if length == 1 {
			minGuesses = minSubmatchGuessesSingleChar + 1
		}
		g[length] = math.Max(math.Pow(bruteforceCardinality, float64(length)), minGuesses)
	}
	return g
}()

func bruteforceGuesses(length int) float64 { return bruteforceGuessesByLength[length] }

func sequenceGuesses(token []rune, ascending bool) float64 {
	first := token[0]
	var base float64
	switch {
	case first == 'a' || first == 'A' || first == 'z' || first == 'Z' || first == '0' || first == '1' || first == '9':
		base = 4 // obvious starting points
	case isDigit(first):
		base = 10
	default:
		base = 26
	}
	if !ascending {
		base *= 2
	}
	return base * float64(len(token))
}

func spatialGuesses(m *match) float64 {
	d := data()
	starts, degree := d.keypadKeys, d.keypadAvg
	if m.graph < 2 { // qwerty, dvorak
		starts, degree = d.keyboardKeys, d.keyboardAvg
	}
	length := int(m.j - m.i + 1)
	turns, shiftedCount := int(m.turns), int(m.shifted)
	guesses := 0.0
	// Patterns of this length or shorter with this many turns or fewer.
	for i := 2; i <= length; i++ {
		possibleTurns := min(turns, i-1)
		for j := 1; j <= possibleTurns; j++ {
			guesses += float64(nCk(i-1, j-1) * starts * math.Pow(degree, float64(j))) // no fused multiply-add
		}
	}
	if shiftedCount > 0 {
		shifted, unshifted := shiftedCount, length-shiftedCount
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

func dictionaryGuesses(m *match, token []rune) float64 {
	reversed := 1.0
	if m.reversed {
		reversed = 2
	}
	return float64(m.rank) * uppercaseVariations(token) * l33tVariations(&m.sub, token) * reversed
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
func isLower(r rune) bool { return r >= 'a' && r <= 'z' }

// uppercaseVariations follows zxcvbn: all lower costs nothing, a capital
// first or last letter or all caps doubles, anything else counts the ways
// to place that many capitals (ASCII letters only, as zxcvbn's regexes).
func uppercaseVariations(rs []rune) float64 {
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

// l33tVariations counts, per substituted character of the token, the ways
// to mix it with the letter it stands for (ASCII letters compared without
// case, as zxcvbn).
func l33tVariations(sub *l33tReading, token []rune) float64 {
	v := 1.0
	for _, p := range sub.pairs[:sub.n] {
		s, u := 0, 0
		for _, r := range token {
			if isUpper(r) {
				r += 'a' - 'A'
			}
			switch r {
			case rune(p.chr):
				s++
			case rune(p.letter):
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

// factorials[l] is l!, multiplied out as zxcvbn does.
var factorials = func() (f [MaxPasswordLength + 1]float64) {
	f[0] = 1
	for l := 1; l < len(f); l++ {
		f[l] = f[l-1] * float64(l)
	}
	return f
}()

// growthPowers[l] is 10000^(l-1), the additive penalty of an l-match
// sequence.
var growthPowers = func() (p [MaxPasswordLength + 1]float64) {
	for l := range p {
		p[l] = math.Pow(minGuessesBeforeGrowingSequence, float64(l-1))
	}
	return p
}()

// dpEntry is the best length-l match sequence found for a password prefix.
type dpEntry struct {
	l  int32
	m  int32   // index of its last match, or bruteforceRef(i) for a bruteforce run from i
	g  float64 // l! * pi + 10000^(l-1)
	pi float64 // product of the sequence's guesses
}

func bruteforceRef(i int) int32    { return int32(-1 - i) }
func isBruteforceRef(m int32) bool { return m < 0 }

// mostGuessableSequence is zxcvbn's search for the sequence of
// non-overlapping matches covering the password that minimises
// l! * Product(guesses) + 10000^(l-1) over sequence lengths l, with
// bruteforce filling the gaps. It returns that minimum and the sequence,
// which lives in a's scratch.
func (a *analysis) mostGuessableSequence(matches []match) (float64, []match) {
	n := len(a.pw)
	if n == 0 {
		return 1, nil
	}
	s := a.s
	for k := range matches {
		a.estimateGuesses(&matches[k])
	}
	// Group the matches by where they end, ordered by where they start and
	// then as found, as zxcvbn's sorted match list.
	jStart := slices.Grow(s.jStart[:0], n+1)[:n+1]
	clear(jStart)
	for k := range matches {
		jStart[matches[k].j+1]++
	}
	for k := 1; k <= n; k++ {
		jStart[k] += jStart[k-1]
	}
	byJ := slices.Grow(s.byJ[:0], len(matches))[:len(matches)]
	for k := range matches {
		j := matches[k].j
		byJ[jStart[j]] = int32(k)
		jStart[j]++
	}
	copy(jStart[1:], jStart[:n])
	jStart[0] = 0
	for k := range n {
		group := byJ[jStart[k]:jStart[k+1]]
		for x := 1; x < len(group); x++ { // insertion sort: stable, groups are short
			for y := x; y > 0 && matches[group[y]].i < matches[group[y-1]].i; y-- {
				group[y], group[y-1] = group[y-1], group[y]
			}
		}
	}
	s.jStart, s.byJ = jStart, byJ

	if cap(s.opt) < n {
		s.opt = append(s.opt[:cap(s.opt)], make([][]dpEntry, n-cap(s.opt))...)
	}
	opt := s.opt[:n]
	for k := range opt {
		opt[k] = opt[k][:0]
	}
	update := func(k int, l int32, ref int32, pi float64) {
		// float64(...) rounds the product before the sum, forbidding a fused
		// multiply-add, so results match JavaScript bit for bit.
		g := float64(factorials[l]*pi) + growthPowers[l]
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
				opt[k] = slices.Insert(opt[k], x, entry)
				return
			}
		}
		opt[k] = append(opt[k], entry)
	}

	// matchEnds[k]: some sequence of opt[k] ends in a match.
	matchEnds := slices.Grow(s.matchEnds[:0], n)[:n]
	s.matchEnds = matchEnds
	for k := range n {
		for _, mi := range byJ[jStart[k]:jStart[k+1]] {
			m := &matches[mi]
			if m.i > 0 {
				for _, e := range opt[m.i-1] {
					update(k, e.l+1, mi, m.guesses*e.pi)
				}
			} else {
				update(k, 1, mi, m.guesses)
			}
		}
		// Bruteforce from the start, or after a sequence not ending in
		// bruteforce (two adjacent bruteforce runs are never optimal).
		// Bruteforce guesses always exceed the submatch minimum that
		// estimateGuesses would apply. Most prefixes have only sequences
		// ending in bruteforce, which matchEnds skips at once.
		update(k, 1, bruteforceRef(0), bruteforceGuesses(k+1))
		for i := 1; i <= k; i++ {
			if !matchEnds[i-1] {
				continue
			}
			g := bruteforceGuesses(k - i + 1)
			for _, e := range opt[i-1] {
				if !isBruteforceRef(e.m) {
					update(k, e.l+1, bruteforceRef(i), g*e.pi)
				}
			}
		}
		matchEnds[k] = slices.ContainsFunc(opt[k], func(e dpEntry) bool { return !isBruteforceRef(e.m) })
	}

	best := opt[n-1][0]
	for _, e := range opt[n-1][1:] {
		if e.g < best.g {
			best = e
		}
	}
	seq := slices.Grow(s.seq[:0], int(best.l))[:best.l]
	k, l := n-1, best.l
	for k >= 0 {
		var e dpEntry
		for _, c := range opt[k] {
			if c.l == l {
				e = c
			}
		}
		var m match
		if isBruteforceRef(e.m) {
			m = match{kind: bruteforcePattern, i: -1 - e.m, j: int32(k)}
			a.estimateGuesses(&m)
		} else {
			m = matches[e.m]
		}
		seq[l-1] = m
		k = int(m.i) - 1
		l--
	}
	s.seq = seq
	return best.g, seq
}
