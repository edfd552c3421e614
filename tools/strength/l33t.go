package strength

import (
	"sort"
	"strings"
)

// l33tTable is zxcvbn's substitution table, letters in its order.
var l33tTable = []struct {
	letter rune
	subs   []rune
}{
	{'a', []rune{'4', '@'}},
	{'b', []rune{'8'}},
	{'c', []rune{'(', '{', '[', '<'}},
	{'e', []rune{'3'}},
	{'g', []rune{'6', '9'}},
	{'i', []rune{'1', '!', '|'}},
	{'l', []rune{'1', '|', '7'}},
	{'o', []rune{'0'}},
	{'s', []rune{'$', '5'}},
	{'t', []rune{'+', '7'}},
	{'x', []rune{'%'}},
	{'z', []rune{'2'}},
}

// l33tSub maps l33t characters to the letters they stand for.
type l33tSub map[rune]rune

// l33tSubs lists the substitution maps zxcvbn tries for a password: letters
// are taken in table order, each gets one of its l33t characters present in
// the password, and when that character already stands for an earlier
// letter both the old and the re-assigned map are kept. Each distinct map
// is listed once (zxcvbn's duplicates only repeat identical matches).
func l33tSubs(pw []rune) []l33tSub {
	present := map[rune]bool{}
	for _, r := range pw {
		present[r] = true
	}
	type pair struct{ chr, letter rune }
	subs := [][]pair{nil}
	for _, row := range l33tTable {
		var next [][]pair
		for _, chr := range row.subs {
			if !present[chr] {
				continue
			}
			for _, sub := range subs {
				dup := -1
				for k, p := range sub {
					if p.chr == chr {
						dup = k
						break
					}
				}
				if dup < 0 {
					next = append(next, append(append([]pair(nil), sub...), pair{chr, row.letter}))
					continue
				}
				alt := append([]pair(nil), sub[:dup]...)
				alt = append(alt, sub[dup+1:]...)
				alt = append(alt, pair{chr, row.letter})
				next = append(next, sub, alt)
			}
		}
		if next != nil {
			subs = next
		}
	}
	var out []l33tSub
	seen := map[string]bool{}
	for _, sub := range subs {
		if len(sub) == 0 {
			continue
		}
		m := l33tSub{}
		for _, p := range sub {
			m[p.chr] = p.letter
		}
		if key := subKey(m); !seen[key] {
			seen[key] = true
			out = append(out, m)
		}
	}
	return out
}

func subKey(m l33tSub) string {
	keys := make([]rune, 0, len(m))
	for c := range m {
		keys = append(keys, c)
	}
	sort.Slice(keys, func(x, y int) bool { return keys[x] < keys[y] })
	var b strings.Builder
	for _, c := range keys {
		b.WriteRune(c)
		b.WriteRune(m[c])
	}
	return b.String()
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

// l33tChar is one l33t character of the password and, per way of reading
// it, the maps that read it so.
type l33tChar struct {
	chr     rune
	letters []rune   // letters some map reads it as
	as      []subSet // as[k]: maps reading it as letters[k]
	kept    subSet   // maps leaving it as typed
}

// l33tSearch walks the word tries, reading each l33t character either as a
// letter or as itself, and keeps the words whose reading one of zxcvbn's
// substitution maps agrees with and that use at least one substitution.
// The set of agreeing maps is narrowed at each choice, so dead readings
// are pruned at once.
type l33tSearch struct {
	a       *analysis
	chars   []l33tChar
	index   map[rune]int // l33t character -> chars index
	reading []rune       // per chars index: 0 unread, keptAsIs, or a letter
	word    []rune
	sets    []subSet // sets[d]: maps agreeing with the reading after d runes
	out     []Match
}

const keptAsIs = -1

func (a *analysis) l33tMatches(ms []Match) []Match {
	subs := l33tSubs(a.pw)
	if len(subs) == 0 {
		return ms
	}
	words := (len(subs) + 63) / 64
	newSet := func() subSet { return make(subSet, words) }
	s := &l33tSearch{a: a, index: map[rune]int{}, out: ms}
	for si, sub := range subs {
		for chr, letter := range sub {
			ci, ok := s.index[chr]
			if !ok {
				ci = len(s.chars)
				s.index[chr] = ci
				s.chars = append(s.chars, l33tChar{chr: chr})
			}
			c := &s.chars[ci]
			k := 0
			for k < len(c.letters) && c.letters[k] != letter {
				k++
			}
			if k == len(c.letters) {
				c.letters = append(c.letters, letter)
				c.as = append(c.as, newSet())
			}
			c.as[k][si/64] |= 1 << (si % 64)
		}
	}
	all := newSet()
	for si := range subs {
		all[si/64] |= 1 << (si % 64)
	}
	for ci := range s.chars {
		c := &s.chars[ci]
		c.kept = newSet()
		for si, sub := range subs {
			if _, ok := sub[c.chr]; !ok {
				c.kept[si/64] |= 1 << (si % 64)
			}
		}
	}
	s.reading = make([]rune, len(s.chars))
	s.sets = []subSet{all}

	tries := []*trie{data().words}
	names := [][]string{dictionaryNames[:]}
	if a.user != nil {
		tries = append(tries, a.user)
		names = append(names, []string{userInputsName})
	}
	for ti, t := range tries {
		for i := range a.pw {
			s.walk(t, names[ti], 0, i, i)
		}
	}
	return s.out
}

// set returns scratch space for the agreeing maps after depth runes.
func (s *l33tSearch) set(depth int) subSet {
	for len(s.sets) <= depth {
		s.sets = append(s.sets, make(subSet, len(s.sets[0])))
	}
	return s.sets[depth]
}

func (s *l33tSearch) walk(t *trie, names []string, node int32, i, j int) {
	if j >= len(s.a.pw) {
		return
	}
	chr := s.a.pw[j]
	ci, isL33t := s.index[chr]
	depth := j - i
	if !isL33t {
		s.step(t, names, node, i, j, s.a.lower[j], s.sets[depth])
		return
	}
	c := &s.chars[ci]
	switch cur := s.reading[ci]; {
	case cur == keptAsIs:
		s.step(t, names, node, i, j, chr, s.sets[depth])
		return
	case cur != 0:
		s.step(t, names, node, i, j, cur, s.sets[depth])
		return
	}
	next := s.set(depth + 1)
	for k, letter := range c.letters {
		if s.sets[depth].and(next, c.as[k]) {
			s.reading[ci] = letter
			s.step(t, names, node, i, j, letter, next)
		}
	}
	if s.sets[depth].and(next, c.kept) {
		s.reading[ci] = keptAsIs
		s.step(t, names, node, i, j, chr, next)
	}
	s.reading[ci] = 0
}

// step follows r from node; agreeing holds the maps agreeing with the
// reading so far, and becomes the set at the next depth.
func (s *l33tSearch) step(t *trie, names []string, node int32, i, j int, r rune, agreeing subSet) {
	child := t.child(node, r)
	if child < 0 {
		return
	}
	depth := j - i + 1
	if next := s.set(depth); &next[0] != &agreeing[0] {
		copy(next, agreeing)
	}
	s.word = append(s.word[:depth-1], r)
	if w := t.nodes[child].word; w >= 0 && depth > 1 {
		s.emit(t, names, w, i, j)
	}
	s.walk(t, names, child, i, j+1)
}

func (s *l33tSearch) emit(t *trie, names []string, w int32, i, j int) {
	var sub map[string]string
	for ci, letter := range s.reading {
		if letter > 0 {
			if sub == nil {
				sub = map[string]string{}
			}
			sub[string(s.chars[ci].chr)] = string(letter)
		}
	}
	if sub == nil { // no substitution: a plain dictionary match
		return
	}
	for slot, name := range names {
		rank := t.ranks[int(w)*t.slots+slot]
		if rank == 0 {
			continue
		}
		s.out = append(s.out, Match{
			Pattern: "dictionary", I: i, J: j, Token: s.a.token(i, j),
			MatchedWord: string(s.word), Rank: int(rank), DictionaryName: name,
			L33t: true, Sub: sub,
		})
	}
}
