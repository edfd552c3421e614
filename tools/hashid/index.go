package hashid

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// format is one row of the table: a named algorithm with every written form
// (pattern) it takes.
type format struct {
	name     string
	mode     int // hashcat -m; noMode when hashcat has none
	john     string
	category string
	patterns []*pattern
	// forms runs parallel to patterns: John the Ripper's name for a
	// written form in its syntax, and how hashcat reads it (john.go).
	forms   []johnForm
	implied map[string]any
	// check, when set, vets a string every pattern accepted: -1 rejects
	// it, otherwise the result adds to the match's exactness (a checksum
	// that verifies, a field that only this variant carries).
	check func(s string) int
	// weight is the format's prevalence (prevalence.go): among matches of
	// equal exactness the heavier ranks first.
	weight  float64
	hashcat string // the command line, "" without a mode
	// hashcatUser is the command line for a "user:hash" line.
	hashcatUser string
}

// noMode marks formats hashcat cannot crack.
const noMode = -1

// entry ties a pattern to its format in the dispatch indexes.
type entry struct {
	p *pattern
	f int32 // index in formats
	i int16 // index in the format's patterns
}

// The dispatch indexes, built from the table on first use (loadTables).
// Identify consults only the entries an input can reach: those whose
// literal prefix it starts with (a byte trie), those whose leading
// fixed-length fields end at a separator the input has at that offset,
// those of its exact length, and the few that start with a variable-length
// field before a separator it contains. Of those it matches only the ones
// whose length bounds (and, for a variable field before a separator, where
// that separator first occurs) the input fits.
var (
	formats   []*format
	byName    = map[string]*format{}
	prefixes  = &trieNode{}
	fixedAt   []sepEntries // by width, then separator
	byLength  [][]entry    // by the input's length: a slice, not a map, as every input looks here
	varBefore []sepEntries // leading variable field, then the separator sep (width unused)
	variable  []entry      // variable-length fields only, no literal
	compiled  = map[string]*pattern{}
)

// sepEntries are the patterns whose leading fixed-length fields are width
// bytes long, followed by the separator sep.
type sepEntries struct {
	width   int
	sep     byte
	entries []entry
}

type trieNode struct {
	keys     []byte
	children []*trieNode
	entries  []entry
}

func (n *trieNode) child(b byte, create bool) *trieNode {
	for i, k := range n.keys {
		if k == b {
			return n.children[i]
		}
	}
	if !create {
		return nil
	}
	c := &trieNode{}
	n.keys = append(n.keys, b)
	n.children = append(n.children, c)
	return c
}

// loadTables builds the formats and the dispatch indexes once, on the first
// call that needs them: compiling every pattern takes milliseconds, which a
// process that never identifies a hash (secutil version) should not pay at
// start. Every exported function calls it before reading the tables.
var loadTables = sync.OnceFunc(buildTables)

func buildTables() {
	for _, r := range withJohn(table()) {
		register(&r)
	}
	if len(formats) > maxFormats {
		panic(fmt.Sprintf("%d formats: raise maxFormats", len(formats)))
	}
	indexJohn()
	lineForms.pair, lineForms.pwdump, lineForms.pwdumpStatus = compiled[lmNT], compiled[pwdump], compiled[pwdumpStatus]
	for _, w := range prevalence {
		f := byName[w.name]
		if f == nil {
			panic(fmt.Sprintf("prevalence: no format named %q", w.name))
		}
		f.weight = w.weight
	}
}

func register(r *row) {
	f := &format{name: r.name, mode: r.mode, john: r.john, category: r.category, implied: r.implied, check: r.check,
		weight: defaultWeight, forms: make([]johnForm, len(r.patterns))}
	copy(f.forms, r.forms)
	if _, dup := byName[f.name]; dup {
		panic(fmt.Sprintf("two formats named %q", f.name))
	}
	if f.mode != noMode {
		f.hashcat = "hashcat -m " + strconv.Itoa(f.mode) + " hash.txt wordlist.txt"
		f.hashcatUser = "hashcat -m " + strconv.Itoa(f.mode) + " --username hash.txt wordlist.txt"
	}
	byName[f.name] = f
	formats = append(formats, f)
	for i, src := range r.patterns {
		p := compiled[src]
		if p == nil {
			// Rows that share a written form share one pattern, which
			// Identify then matches once per input.
			p = compilePattern(src)
			p.id = len(compiled)
			compiled[src] = p
		}
		f.patterns = append(f.patterns, p)
		index(entry{p, int32(len(formats) - 1), int16(i)})
	}
}

func index(e entry) {
	toks := e.p.tokens
	if toks[0].f == nil {
		n := prefixes
		for i := 0; i < len(toks[0].lit); i++ {
			n = n.child(toks[0].lit[i], true)
		}
		n.entries = append(n.entries, e)
		return
	}
	width, i := 0, 0
	for ; i < len(toks) && toks[i].f != nil; i++ {
		if !toks[i].f.fixed() {
			width = -1
			break
		}
		width += toks[i].f.min
	}
	switch {
	case width >= 0 && i == len(toks):
		if width >= len(byLength) {
			byLength = slices.Grow(byLength, width+1-len(byLength))[:width+1]
		}
		byLength[width] = append(byLength[width], e)
	case width >= 0:
		sep := toks[i].lit[0]
		k, found := slices.BinarySearchFunc(fixedAt, sepEntries{width: width, sep: sep}, func(a, b sepEntries) int {
			return cmp.Or(cmp.Compare(a.width, b.width), cmp.Compare(a.sep, b.sep))
		})
		if !found {
			fixedAt = slices.Insert(fixedAt, k, sepEntries{width: width, sep: sep})
		}
		fixedAt[k].entries = append(fixedAt[k].entries, e)
	default:
		for i < len(toks) && toks[i].f != nil {
			i++
		}
		if i == len(toks) {
			variable = append(variable, e)
			return
		}
		sep := toks[i].lit[0]
		k := slices.IndexFunc(varBefore, func(se sepEntries) bool { return se.sep == sep })
		if k < 0 {
			k = len(varBefore)
			varBefore = append(varBefore, sepEntries{sep: sep})
		}
		varBefore[k].entries = append(varBefore[k].entries, e)
	}
}

// maxSeparatorScan bounds how far into the input Identify looks for the
// separator that ends a leading variable field (a user or domain name).
const maxSeparatorScan = 512

// reachable appends to out every index entry s can match, skipping those
// whose length bounds s does not fit (pattern.walk would reject them first
// thing). The order is the index's, whatever is skipped. (A list, not a
// call per entry: an input reaches a few dozen, which the caller's array on
// the stack holds.)
func reachable(s string, out []entry) []entry {
	n := prefixes
	for i := 0; i < len(s) && n != nil; i++ {
		if n = n.child(s[i], false); n != nil {
			out = appendFitting(out, n.entries, len(s))
		}
	}
	for _, se := range fixedAt {
		if se.width >= len(s) {
			break
		}
		if se.sep == s[se.width] {
			out = appendFitting(out, se.entries, len(s))
		}
	}
	if len(s) < len(byLength) {
		out = appendFitting(out, byLength[len(s)], len(s))
	}
	head := s
	if len(head) > maxSeparatorScan {
		head = head[:maxSeparatorScan]
	}
	for _, se := range varBefore {
		at := strings.IndexByte(head, se.sep)
		if at < 0 {
			continue
		}
		for _, e := range se.entries {
			// The leading field ends at the first separator, so a
			// fixed tail after it puts that separator at one offset.
			if e.p.fits(len(s)) && (e.p.sepTail == 0 || at == len(s)-e.p.sepTail) {
				out = append(out, e)
			}
		}
	}
	return appendFitting(out, variable, len(s))
}

// appendFitting appends to out the entries whose length bounds admit n.
func appendFitting(out, entries []entry, n int) []entry {
	for _, e := range entries {
		if e.p.fits(n) {
			out = append(out, e)
		}
	}
	return out
}
