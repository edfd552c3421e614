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

// A reach is one pattern in the dispatch indexes, with the rows written in
// it (twenty formats are "<hex:32>"): an input that reaches it is matched
// against the pattern once, and each row's check then vets the match.
type reach struct {
	p    *pattern
	rows []patternRow
}

// patternRow is a format written in a reach's pattern: its index in
// formats, the pattern's index among the format's patterns, the format's
// check, and whether this is the format's only pattern (then an input
// reaches the format once at most).
type patternRow struct {
	f     int32
	i     int16
	only  bool
	check func(s string) int
}

// The dispatch indexes, built from the table on first use (loadTables).
// Identify consults only the patterns an input can reach: those whose
// literal prefix it starts with (a byte trie), those whose leading
// fixed-length fields end at a separator the input has at that offset,
// those of its exact length, and the few that start with a variable-length
// field before a separator it contains. Of those it matches only the ones
// whose length bounds (and, for a variable field before a separator, where
// that separator first occurs) the input fits. Each pattern is in one
// place only, so an input reaches it once.
var (
	formats   []*format
	byName    = map[string]*format{}
	prefixes  [256]*trieNode // by the first byte of the prefix
	fixedAt   []fixedWidth   // by width
	byLength  [][]*reach     // by the input's length: a slice, not a map, as every input looks here
	varBefore []sepReaches   // leading variable field, then the separator sep
	variable  []*reach       // variable-length fields only, no literal
	compiled  = map[string]*pattern{}
)

// fixedWidth holds the patterns whose leading fixed-length fields are
// width bytes long: the separators that follow them (also as a set, which
// most inputs are not in at that offset), and their patterns.
type fixedWidth struct {
	width  int
	sepSet byteSet
	seps   []sepReaches
}

// sepReaches are patterns whose leading field or fields end at sep.
type sepReaches struct {
	sep     byte
	reaches []*reach
}

type trieNode struct {
	keys     []byte
	children []*trieNode
	reaches  []*reach
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
			compiled[src] = p
		}
		f.patterns = append(f.patterns, p)
		index(p, patternRow{f: int32(len(formats) - 1), i: int16(i), only: len(r.patterns) == 1, check: f.check})
	}
}

// index files row under its pattern p in the dispatch indexes.
func index(p *pattern, row patternRow) {
	toks := p.tokens
	if toks[0].f == nil {
		lit := toks[0].lit
		n := prefixes[lit[0]]
		if n == nil {
			n = &trieNode{}
			prefixes[lit[0]] = n
		}
		for i := 1; i < len(lit); i++ {
			n = n.child(lit[i], true)
		}
		n.reaches = addRow(n.reaches, p, row)
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
		byLength[width] = addRow(byLength[width], p, row)
	case width >= 0:
		k, found := slices.BinarySearchFunc(fixedAt, width, func(fw fixedWidth, w int) int { return cmp.Compare(fw.width, w) })
		if !found {
			fixedAt = slices.Insert(fixedAt, k, fixedWidth{width: width})
		}
		fixedAt[k].seps = addSepRow(fixedAt[k].seps, toks[i].lit[0], p, row)
		fixedAt[k].sepSet.add(toks[i].lit[0])
	default:
		for i < len(toks) && toks[i].f != nil {
			i++
		}
		if i == len(toks) {
			variable = addRow(variable, p, row)
			return
		}
		varBefore = addSepRow(varBefore, toks[i].lit[0], p, row)
	}
}

// addSepRow files row under p among the patterns of separator sep.
func addSepRow(seps []sepReaches, sep byte, p *pattern, row patternRow) []sepReaches {
	k := slices.IndexFunc(seps, func(se sepReaches) bool { return se.sep == sep })
	if k < 0 {
		k = len(seps)
		seps = append(seps, sepReaches{sep: sep})
	}
	seps[k].reaches = addRow(seps[k].reaches, p, row)
	return seps
}

// addRow files row under p in reaches, the patterns of one place in the
// indexes. Identify meets the rows of a place pattern by pattern, not in
// table order, which changes nothing as long as the rows of one format
// come in the order of its patterns (merge keeps the first of two equal
// matches of a format): addRow panics otherwise, at the first call.
func addRow(reaches []*reach, p *pattern, row patternRow) []*reach {
	k := slices.IndexFunc(reaches, func(r *reach) bool { return r.p == p })
	if k < 0 {
		k = len(reaches)
		reaches = append(reaches, &reach{p: p})
	}
	for _, r := range reaches[k+1:] {
		if slices.ContainsFunc(r.rows, func(other patternRow) bool { return other.f == row.f }) {
			panic(fmt.Sprintf("format %q: pattern %q would be met after a later one", formats[row.f].name, p.src))
		}
	}
	reaches[k].rows = append(reaches[k].rows, row)
	return reaches
}

// maxSeparatorScan bounds how far into the input Identify looks for the
// separator that ends a leading variable field (a user or domain name).
const maxSeparatorScan = 512

// reachable appends to out every pattern s can match, skipping those that
// do not admit s (its length, first and last bytes: pattern.walk would
// reject them first thing). The order is the index's, whatever is skipped. (A list, not a
// call per pattern: an input reaches a few dozen, which the caller's array
// on the stack holds.)
func reachable(s string, out []*reach) []*reach {
	if s == "" {
		return out
	}
	n := prefixes[s[0]]
	for i := 1; n != nil; i++ {
		out = appendAdmitted(out, n.reaches, s)
		if i == len(s) {
			break
		}
		n = n.child(s[i], false)
	}
	for k := range fixedAt {
		fw := &fixedAt[k]
		if fw.width >= len(s) {
			break
		}
		if sep := s[fw.width]; fw.sepSet.has(sep) {
			for _, se := range fw.seps {
				if se.sep == sep {
					out = appendAdmitted(out, se.reaches, s)
				}
			}
		}
	}
	if len(s) < len(byLength) {
		out = appendAdmitted(out, byLength[len(s)], s)
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
		for _, r := range se.reaches {
			// The leading field ends at the first separator, so a
			// fixed tail after it puts that separator at one offset.
			if r.p.admits(s) && (r.p.sepTail == 0 || at == len(s)-r.p.sepTail) {
				out = append(out, r)
			}
		}
	}
	return appendAdmitted(out, variable, s)
}

// appendAdmitted appends to out the patterns that admit s.
func appendAdmitted(out, reaches []*reach, s string) []*reach {
	for _, r := range reaches {
		if r.p.admits(s) {
			out = append(out, r)
		}
	}
	return out
}
