package strength

import "slices"

// l33tTable is zxcvbn's substitution table, letters in its order.
var l33tTable = []struct {
	letter byte
	subs   string
}{
	{'a', "4@"},
	{'b', "8"},
	{'c', "({[<"},
	{'e', "3"},
	{'g', "69"},
	{'i', "1!|"},
	{'l', "1|7"},
	{'o', "0"},
	{'s', "$5"},
	{'t', "+7"},
	{'x', "%"},
	{'z', "2"},
}

// l33tChars are the l33t characters of l33tTable, each with the letters it
// may stand for in table order. A substitution map is coded as a uint64
// holding, per character c, two bits at 2c: 0 when the map leaves it as
// typed, or 1 + the index of its letter in letters.
var l33tChars, l33tCharIndex = func() (chars []struct {
	chr     byte
	letters []byte
}, index [128]int8) {
	for k := range index {
		index[k] = -1
	}
	for _, row := range l33tTable {
		for _, chr := range []byte(row.subs) {
			if index[chr] < 0 {
				index[chr] = int8(len(chars))
				chars = append(chars, struct {
					chr     byte
					letters []byte
				}{chr: chr})
			}
			c := &chars[index[chr]]
			c.letters = append(c.letters, row.letter)
		}
	}
	return chars, index
}()

// l33tCharOf returns the l33t character index of r, or -1.
func l33tCharOf(r rune) int {
	if r < 0 || r >= 128 {
		return -1
	}
	return int(l33tCharIndex[r])
}

// l33tReading is the substitution of one l33t match: the l33t characters
// of its token read as letters, at most one per letter of l33tTable.
type l33tReading struct {
	n     uint8
	pairs [12]struct{ chr, letter byte }
}

// read returns the letter the reading gives typed, or lower, its lower case.
func (r *l33tReading) read(typed, lower rune) rune {
	for _, p := range r.pairs[:r.n] {
		if rune(p.chr) == typed {
			return rune(p.letter)
		}
	}
	return lower
}

func (r *l33tReading) asMap() map[string]string {
	m := make(map[string]string, r.n)
	for _, p := range r.pairs[:r.n] {
		m[string(rune(p.chr))] = string(rune(p.letter))
	}
	return m
}

// l33tSubs lists the substitution maps zxcvbn tries for a password whose
// l33t characters are the set bits of present: letters are taken in table
// order, each gets one of its l33t characters present in the password, and
// when that character already stands for an earlier letter both the old
// and the re-assigned map are kept. Each distinct non-empty map is listed
// once (zxcvbn's duplicates only repeat identical matches); buf is reused.
func l33tSubs(present uint32, buf, spare []uint64) (subs, spareOut []uint64) {
	subs = append(buf[:0], 0)
	for _, row := range l33tTable {
		next := spare[:0]
		for _, chr := range []byte(row.subs) {
			c := int(l33tCharIndex[chr])
			if present&(1<<c) == 0 {
				continue
			}
			option := uint64(1 + slices.Index(l33tChars[c].letters, row.letter))
			shift := 2 * uint(c)
			for _, sub := range subs {
				if sub>>shift&3 == 0 {
					next = append(next, sub|option<<shift)
					continue
				}
				next = append(next, sub, sub&^(3<<shift)|option<<shift)
			}
		}
		if len(next) > 0 {
			slices.Sort(next)
			subs, spare = slices.Compact(next), subs
		}
	}
	if subs[0] == 0 { // sorted: the empty map comes first
		subs = subs[1:]
	}
	return subs, spare
}

// subSet is a bit set over the substitution maps of one password.
type subSet []uint64

// and stores s ∩ other in dst and reports whether it is non-empty.
func (s subSet) and(dst, other subSet) bool {
	nonEmpty := uint64(0)
	for k := range s {
		dst[k] = s[k] & other[k]
		nonEmpty |= dst[k]
	}
	return nonEmpty != 0
}

// l33tSearch walks the word tries, reading each l33t character either as a
// letter or as itself, and keeps the words whose reading one of zxcvbn's
// substitution maps agrees with and that use at least one substitution.
// The set of agreeing maps is narrowed at each choice, so dead readings
// are pruned at once.
type l33tSearch struct {
	a         *analysis
	present   uint32 // l33t characters of the password, as bits
	subs, tmp []uint64
	words     int      // uint64s per subSet
	agree     []uint64 // agree[(3c+o)*words:]: maps giving character c option o (0: as typed)
	all       subSet   // every map
	sets      []uint64 // sets[d*words:]: maps agreeing with the reading of the first d runes
	nextL33t  []int32  // per start: where its first l33t character is, or the password's length
	reading   [32]int8 // per l33t character: -1 unread, or the option read
	t         *trie    // the trie being walked, its lists dictionaries firstDict...
	firstDict int
	out       []match
}

func (s *l33tSearch) set(depth int) subSet { return s.sets[depth*s.words : (depth+1)*s.words] }

func (s *l33tSearch) agreeing(c, option int) subSet {
	k := (3*c + option) * s.words
	return s.agree[k : k+s.words]
}

func (a *analysis) l33tMatches(ms []match) []match {
	s := &a.s.l33t
	s.present = 0
	for _, r := range a.pw {
		if c := l33tCharOf(r); c >= 0 {
			s.present |= 1 << c
		}
	}
	if s.present == 0 {
		return ms
	}
	s.subs, s.tmp = l33tSubs(s.present, s.subs, s.tmp)
	s.words = (len(s.subs) + 63) / 64
	s.agree = slices.Grow(s.agree[:0], 3*len(l33tChars)*s.words)[:3*len(l33tChars)*s.words]
	clear(s.agree)
	for si, sub := range s.subs {
		for c := range l33tChars {
			if s.present&(1<<c) != 0 {
				s.agreeing(c, int(sub>>(2*c)&3))[si/64] |= 1 << (si % 64)
			}
		}
	}
	n := len(a.pw)
	s.sets = slices.Grow(s.sets[:0], (n+1)*s.words)[:(n+1)*s.words]
	s.all = slices.Grow(s.all[:0], s.words)[:s.words]
	clear(s.all)
	for si := range s.subs {
		s.all[si/64] |= 1 << (si % 64)
	}
	for c := range s.reading {
		s.reading[c] = -1
	}
	// nextL33t[i]: the first l33t character at or after i, or n.
	s.nextL33t = slices.Grow(s.nextL33t[:0], n)[:n]
	next := n
	for i := n - 1; i >= 0; i-- {
		if l33tCharOf(a.pw[i]) >= 0 {
			next = i
		}
		s.nextL33t[i] = int32(next)
	}
	s.a, s.out = a, ms
	s.search(data().words, 0)
	if a.user != nil {
		s.search(a.user, userInputsDict)
	}
	ms, s.out, s.a, s.t = s.out, nil, nil, nil
	return ms
}

// search walks t from every start. A word before the start's first l33t
// character substitutes nothing, so the walk goes there directly and
// branches from that point on.
func (s *l33tSearch) search(t *trie, firstDict int) {
	s.t, s.firstDict = t, firstDict
	lower := s.a.lower
	for i := range lower {
		next := int(s.nextL33t[i])
		if next == len(lower) {
			break
		}
		node := int32(0)
		for j := i; j < next && node >= 0; j++ {
			node = t.child(node, lower[j])
		}
		if node >= 0 {
			copy(s.set(next-i), s.all)
			s.walk(node, i, next)
		}
	}
}

func (s *l33tSearch) walk(node int32, i, j int) {
	if j >= len(s.a.pw) {
		return
	}
	chr := s.a.pw[j]
	depth := j - i
	c := l33tCharOf(chr)
	if c < 0 {
		s.step(node, i, j, s.a.lower[j], s.set(depth))
		return
	}
	if option := s.reading[c]; option >= 0 {
		s.step(node, i, j, readAs(c, int(option), chr), s.set(depth))
		return
	}
	next := s.set(depth + 1)
	for option := 1; option <= len(l33tChars[c].letters); option++ {
		if s.set(depth).and(next, s.agreeing(c, option)) {
			s.reading[c] = int8(option)
			s.step(node, i, j, readAs(c, option, chr), next)
		}
	}
	if s.set(depth).and(next, s.agreeing(c, 0)) {
		s.reading[c] = 0
		s.step(node, i, j, chr, next)
	}
	s.reading[c] = -1
}

// readAs is the rune l33t character c (typed as chr) reads as under option.
func readAs(c, option int, chr rune) rune {
	if option == 0 {
		return chr
	}
	return rune(l33tChars[c].letters[option-1])
}

// step follows r from node; agreeing holds the maps agreeing with the
// reading so far, and becomes the set at the next depth.
func (s *l33tSearch) step(node int32, i, j int, r rune, agreeing subSet) {
	child := s.t.child(node, r)
	if child < 0 {
		return
	}
	depth := j - i + 1
	if next := s.set(depth); &next[0] != &agreeing[0] {
		copy(next, agreeing)
	}
	if list, rank := s.t.nodes[child].word(); rank > 0 && depth > 1 {
		s.emit(list, rank, i, j)
	}
	s.walk(child, i, j+1)
}

func (s *l33tSearch) emit(list int, rank int32, i, j int) {
	var sub l33tReading
	for c, option := range s.reading[:len(l33tChars)] {
		if option > 0 {
			sub.pairs[sub.n].chr, sub.pairs[sub.n].letter = l33tChars[c].chr, l33tChars[c].letters[option-1]
			sub.n++
		}
	}
	if sub.n == 0 { // no substitution: a plain dictionary match
		return
	}
	s.out = append(s.out, match{
		kind: dictionaryPattern, i: int32(i), j: int32(j),
		dict: uint8(s.firstDict + list), rank: rank, sub: sub,
	})
}
