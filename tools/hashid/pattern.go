package hashid

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// A pattern describes one written form of a format: literal text with typed
// fields in angle brackets, <class:length=param>. Length is n, n-m or n+
// (default 1+); param, when given, names the field in Candidate.Params.
// Examples:
//
//	$1$<c64:0-8=salt>$<c64:22>          md5crypt
//	<hex:32>:<text=salt>                md5($pass.$salt)
//	$2<ver:0-1=version>$<dec:2=cost>$<c64:22=salt><c64:31>   bcrypt
//
// Matching never backtracks: a field ends where its length says (fixed
// length), at the first occurrence of the literal that follows it, or at the
// end of the input; then its bytes must all be in its class. So one match is
// one linear scan, and a field cannot contain the literal that ends it.
type pattern struct {
	src    string
	tokens []token
	// exact scores how much of the string the pattern pins down: one point
	// per literal byte plus runScores for its fields. Candidates sort on it
	// first.
	exact int
	// minLen and maxLen (-1: unbounded) bound the inputs the pattern can fit.
	minLen, maxLen int
	// first and last are the bytes such an input can start and end with:
	// a literal's, or those of the class of a field that cannot be empty
	// (any byte before or after a field that can).
	first, last byteSet
	// sepTail, for a pattern that opens with one variable field ended by
	// a one-byte literal and has only literals and fixed fields after it,
	// is the length from that literal to the end: the first occurrence of
	// the literal in a match is sepTail bytes before the end. 0 otherwise.
	sepTail int
	named   bool // some field has a param name
	// wideOnly is unset for patterns with literals or a hex or decimal
	// field; set, the pattern fits an all-hex input only by accident of a
	// wider alphabet (see matchAll).
	wideOnly bool
}

var hexClass = sync.OnceValue(func() *charClass { return classes()["hex"] })

// hexLike tells the classes of hex and decimal fields.
func hexLike(class string) bool {
	switch class {
	case "hex", "lhex", "uhex", "dec", "int":
		return true
	}
	return false
}

// runScores scores each run of adjacent fields (fields with no literal
// between them count as one): 2 for a fixed length in a narrow alphabet, 1
// for a bounded or long one in a narrow alphabet or a fixed length in a wide
// one, 0 for free text.
func runScores(tokens []token) int {
	score := 0
	for i := 0; i < len(tokens); {
		if tokens[i].f == nil {
			i++
			continue
		}
		narrow, fixed, bounded, min := true, true, true, 0
		for ; i < len(tokens) && tokens[i].f != nil; i++ {
			f := tokens[i].f
			narrow = narrow && f.cls.narrow
			fixed = fixed && f.fixed()
			bounded = bounded && f.max >= 0
			min += f.min
		}
		switch {
		case narrow && fixed:
			score += 2
		case narrow && (bounded || min >= 8), fixed:
			score++
		}
	}
	return score
}

type token struct {
	lit string // a literal when f is nil
	f   *field
	// tailFixed: for a variable field followed directly by fields, the total
	// fixed length of the fields after it (they must all be fixed).
	tailFixed int
}

type field struct {
	cls      *charClass
	min, max int // max -1: unbounded
	param    string
	// lengthBits is the entropy of the field's length: log2 of the lengths
	// it allows, at most maxLengthBits (also for unbounded fields).
	lengthBits float64
}

// maxLengthBits caps lengthBits: a free-length field is taken to have one of
// 256 likely lengths.
const maxLengthBits = 8

func (f *field) fixed() bool { return f.min == f.max }

// charClass is a set of bytes, named for error messages and for telling
// narrow classes (hex, digits, base64) from free text.
type charClass struct {
	name   string
	narrow bool
	in     [256]bool
	bits   float64 // log2 of the class size: the entropy of one character
}

func newClass(name string, narrow bool, ranges ...string) *charClass {
	c := &charClass{name: name, narrow: narrow}
	for _, r := range ranges {
		if len(r) == 3 && r[1] == '-' {
			for b := int(r[0]); b <= int(r[2]); b++ {
				c.in[b] = true
			}
			continue
		}
		for i := 0; i < len(r); i++ {
			c.in[r[i]] = true
		}
	}
	n := 0
	for _, in := range c.in {
		if in {
			n++
		}
	}
	c.bits = math.Log2(float64(n))
	return c
}

// classes are the field types patterns may use, built on first use rather
// than at every start.
var classes = sync.OnceValue(func() map[string]*charClass {
	return map[string]*charClass{
		"hex":   newClass("hex", true, "0-9", "a-f", "A-F"),
		"lhex":  newClass("lhex", true, "0-9", "a-f"),
		"uhex":  newClass("uhex", true, "0-9", "A-F"),
		"dec":   newClass("dec", true, "0-9"),
		"int":   newClass("int", true, "0-9", "-"),
		"c64":   newClass("c64", true, "./", "0-9", "A-Z", "a-z"),                     // crypt(3) base64
		"b64":   newClass("b64", true, "+/=", "0-9", "A-Z", "a-z"),                    // standard base64, padding allowed
		"b64u":  newClass("b64u", true, "-_=", "0-9", "A-Z", "a-z"),                   // URL-safe base64
		"b64x":  newClass("b64x", true, "+/=.-_", "0-9", "A-Z", "a-z"),                // any base64 variant
		"alnum": newClass("alnum", true, "0-9", "A-Z", "a-z"),                         // letters and digits
		"alpha": newClass("alpha", true, "A-Z", "a-z"),                                // letters
		"b32h":  newClass("b32h", true, "0-9", "a-v", "A-V"),                          // base32hex (DNSSEC NSEC3)
		"b58":   newClass("b58", true, "1-9", "A-H", "J-N", "P-Z", "a-k", "m-z"),      // bitcoin base58
		"bech":  newClass("bech", true, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),           // bech32 data characters
		"hexs":  newClass("hexs", true, "0-9", "a-f", "A-F", "*"),                     // hex fields joined by '*'
		"word":  newClass("word", false, "!-~"),                                       // printable, no space
		"text":  newClass("text", false, " -~", "\t", "\x80-\xff"),                    // one line of text
		"any":   newClass("any", false, "\x00-\xff"),                                  // anything
		"ver":   newClass("ver", true, "0-9", "a-z"),                                  // a version letter or digit
		"user":  newClass("user", false, "!-~", " ", "\x80-\xff"),                     // a user or domain name
		"sid":   newClass("sid", false, "0-9", "S", "-"),                              // a Windows SID
		"b64e":  newClass("b64e", true, "+/", "0-9", "A-Z", "a-z"),                    // base64 without padding
		"name":  newClass("name", false, "0-9", "A-Z", "a-z", "-_."),                  // an identifier
		"b64d":  newClass("b64d", true, "+/=.", "0-9", "A-Z", "a-z"),                  // base64 with '.'
		"host":  newClass("host", false, "0-9", "A-Z", "a-z", "-_.:"),                 // a host or realm
		"email": newClass("email", false, "0-9", "A-Z", "a-z", "-_.+@"),               // an email-like login
		"ident": newClass("ident", false, "0-9", "A-Z", "a-z", "-_.$#@/\\ \x80-\xff"), // a user name with punctuation
	}
})

// compilePattern parses src; it panics on a malformed pattern, which the
// package tests catch at init.
func compilePattern(src string) *pattern {
	p := &pattern{src: src}
	rest := src
	for rest != "" {
		i := strings.IndexByte(rest, '<')
		if i != 0 {
			if i < 0 {
				i = len(rest)
			}
			p.tokens = append(p.tokens, token{lit: rest[:i]})
			rest = rest[i:]
			continue
		}
		j := strings.IndexByte(rest, '>')
		if j < 0 {
			panic(fmt.Sprintf("pattern %q: unclosed field", src))
		}
		p.tokens = append(p.tokens, token{f: parseField(src, rest[1:j])})
		rest = rest[j+1:]
	}
	p.wideOnly = true
	fields := 0
	for i := range p.tokens {
		t := &p.tokens[i]
		if t.f == nil {
			p.exact += len(t.lit)
			p.minLen += len(t.lit)
			p.maxLen = addLen(p.maxLen, len(t.lit))
			p.wideOnly = false
			continue
		}
		fields++
		p.minLen += t.f.min
		p.maxLen = addLen(p.maxLen, t.f.max)
		p.named = p.named || t.f.param != ""
		p.wideOnly = p.wideOnly && !hexLike(t.f.cls.name)
		if t.f.fixed() || i+1 == len(p.tokens) || p.tokens[i+1].f == nil {
			continue
		}
		// A variable field followed by fields: those must be fixed, and
		// the variable field takes what they leave.
		for _, u := range p.tokens[i+1:] {
			if u.f == nil || !u.f.fixed() {
				panic(fmt.Sprintf("pattern %q: a variable field must be followed by a literal or fixed fields", src))
			}
			t.tailFixed += u.f.min
		}
	}
	p.exact += runScores(p.tokens)
	if fields > maxFields {
		panic(fmt.Sprintf("pattern %q: %d fields, more than maxFields", src, fields))
	}
	if p.tokens == nil {
		panic("empty pattern")
	}
	p.sepTail = sepTail(p.tokens)
	p.first, p.last = endBytes(p.tokens[0], 0), endBytes(p.tokens[len(p.tokens)-1], -1)
	return p
}

// byteSet is a set of bytes, a bit each.
type byteSet [4]uint64

func (bs *byteSet) add(b byte)      { bs[b>>6] |= 1 << (b & 63) }
func (bs *byteSet) has(b byte) bool { return bs[b>>6]&(1<<(b&63)) != 0 }

// endBytes is pattern.first or pattern.last for t, the pattern's first
// or last token: side 0 for its first byte, -1 for its last.
func endBytes(t token, side int) byteSet {
	var bs byteSet
	switch {
	case t.f == nil && side == 0:
		bs.add(t.lit[0])
	case t.f == nil:
		bs.add(t.lit[len(t.lit)-1])
	default:
		for b := range 256 {
			if t.f.min == 0 || t.f.cls.in[b] {
				bs.add(byte(b))
			}
		}
	}
	return bs
}

// sepTail is pattern.sepTail for tokens.
func sepTail(tokens []token) int {
	if len(tokens) < 2 || tokens[0].f == nil || tokens[0].f.fixed() || len(tokens[1].lit) != 1 {
		return 0
	}
	tail := 0
	for _, t := range tokens[1:] {
		switch {
		case t.f == nil:
			tail += len(t.lit)
		case t.f.fixed():
			tail += t.f.min
		default:
			return 0
		}
	}
	return tail
}

// fits reports whether an input of n bytes is within p's length bounds.
func (p *pattern) fits(n int) bool {
	return n >= p.minLen && (p.maxLen < 0 || n <= p.maxLen)
}

// admits reports whether s, which is not empty, is within p's length
// bounds and starts and ends with bytes p allows there: what rules out
// most patterns an input reaches, at the cost of three comparisons.
func (p *pattern) admits(s string) bool {
	return p.fits(len(s)) && p.first.has(s[0]) && p.last.has(s[len(s)-1])
}

// addLen adds n to a maximum length where -1 means unbounded.
func addLen(max, n int) int {
	if max < 0 || n < 0 {
		return -1
	}
	return max + n
}

func parseField(src, spec string) *field {
	spec, param, _ := strings.Cut(spec, "=")
	name, length, hasLen := strings.Cut(spec, ":")
	cls := classes()[name]
	if cls == nil {
		panic(fmt.Sprintf("pattern %q: unknown class %q", src, name))
	}
	f := &field{cls: cls, min: 1, max: -1, param: param, lengthBits: maxLengthBits}
	if !hasLen {
		return f
	}
	var err error
	switch {
	case strings.HasSuffix(length, "+"):
		f.min, err = strconv.Atoi(strings.TrimSuffix(length, "+"))
	case strings.Contains(length, "-"):
		lo, hi, _ := strings.Cut(length, "-")
		f.min, err = strconv.Atoi(lo)
		if err == nil {
			f.max, err = strconv.Atoi(hi)
		}
	default:
		f.min, err = strconv.Atoi(length)
		f.max = f.min
	}
	if err != nil || f.max >= 0 && f.max < f.min {
		panic(fmt.Sprintf("pattern %q: bad length %q", src, length))
	}
	if f.max >= 0 {
		f.lengthBits = min(math.Log2(float64(f.max-f.min+1)), maxLengthBits)
	} else {
		f.lengthBits = maxLengthBits
	}
	return f
}

// span is where one field of a match lies in the input.
type span struct {
	f          *field
	start, end int
}

// match reports whether s fits p. When spans is non-nil it receives the
// extent of every field.
//
// It also returns how improbable s is under p, in bits: the entropy of each
// field's characters in its alphabet plus that of its length when the length
// varies. Among patterns that fit a string equally exactly, the one that
// makes it likelier (a narrower alphabet) explains it better.
func (p *pattern) match(s string, spans *[]span) (float64, bool) {
	return p.walk(s, spans, true)
}

// walk is match; without check it trusts s to fit and only finds the
// fields (for params, after match said yes: a LUKS hash is not scanned
// twice).
func (p *pattern) walk(s string, spans *[]span, check bool) (float64, bool) {
	var lens [maxFields]int
	if !p.fits(len(s)) || !p.frame(s, &lens) {
		return 0, false
	}
	pos, k, bits := 0, 0, 0.0
	for i := range p.tokens {
		t := &p.tokens[i]
		if t.f == nil {
			pos += len(t.lit) // frame checked it
			continue
		}
		n := lens[k]
		k++
		// frame checked the first character.
		if check && n > 1 && !inClass(t.f.cls, s[pos+1:pos+n]) {
			return 0, false
		}
		if spans != nil {
			*spans = append(*spans, span{t.f, pos, pos + n})
		}
		bits += float64(n)*t.f.cls.bits + t.f.lengthBits
		pos += n
	}
	return bits, true
}

// maxFields bounds the fields of a pattern (compilePattern checks it), so
// that frame hands their lengths to walk in an array on the stack rather
// than walk finding them again.
const maxFields = 16

// frame reports whether s has p's structure: its literals where the fields
// before them end, each field of a length it allows and starting with a
// character of its class, nothing left over. It writes the length of each
// field, in order, into lens.
// Most patterns an input reaches fail here, before a field's characters
// are read; most of those on a field's first character, which is looked at
// before the field's end is searched for.
func (p *pattern) frame(s string, lens *[maxFields]int) bool {
	pos, k := 0, 0
	for i := range p.tokens {
		t := &p.tokens[i]
		if t.f == nil {
			if !strings.HasPrefix(s[pos:], t.lit) {
				return false
			}
			pos += len(t.lit)
			continue
		}
		if t.f.min > 0 && (pos == len(s) || !t.f.cls.in[s[pos]]) {
			return false // a field that cannot be empty starts with a character of its class
		}
		n, ok := p.extent(s, pos, i)
		if !ok || n < t.f.min || t.f.max >= 0 && n > t.f.max || n > 0 && !t.f.cls.in[s[pos]] {
			return false
		}
		lens[k] = n
		k++
		pos += n
	}
	return pos == len(s)
}

// extent is the length of field i of p when it starts at pos in s.
func (p *pattern) extent(s string, pos, i int) (int, bool) {
	f := p.tokens[i].f
	rest := len(s) - pos
	switch {
	case f.fixed():
		return f.min, f.min <= rest
	case i+1 == len(p.tokens):
		return rest, true
	case p.tokens[i+1].f != nil:
		n := rest - p.tokens[i].tailFixed
		return n, n >= 0
	}
	lit := p.tokens[i+1].lit
	var j int
	if len(lit) == 1 {
		j = strings.IndexByte(s[pos:], lit[0])
	} else {
		j = strings.Index(s[pos:], lit)
	}
	return j, j >= 0
}

// crypt64 is the digit order of crypt(3)'s base64.
const crypt64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// maxParamLen caps string parameters (a salt, a user name) in answers.
const maxParamLen = 128

// params returns the named fields of s, which must match p, with implied
// values for the names s leaves out. Digit-only values are numbers.
func (p *pattern) params(s string, implied map[string]any) map[string]any {
	if !p.named && implied == nil {
		return nil
	}
	spans := make([]span, 0, len(p.tokens)) // one allocation, not one per growth
	if _, ok := p.walk(s, &spans, false); !ok {
		return nil
	}
	var out map[string]any
	for _, sp := range spans {
		if sp.f.param == "" {
			continue
		}
		if out == nil {
			out = make(map[string]any, 4)
		}
		v := s[sp.start:sp.end]
		if name, ok := strings.CutSuffix(sp.f.param, "@c64"); ok {
			// One crypt(3) base64 digit: its value (phpass and Drupal
			// store log2 of the rounds so).
			out[name] = int64(strings.IndexByte(crypt64, v[0]))
			continue
		}
		if sp.f.cls.name == "dec" && len(v) > 0 && len(v) <= 18 {
			n, _ := strconv.ParseInt(v, 10, 64)
			out[sp.f.param] = n
			continue
		}
		if len(v) > maxParamLen {
			v = v[:maxParamLen] + "…"
		}
		out[sp.f.param] = v
	}
	for k, v := range implied {
		if _, ok := out[k]; !ok {
			if out == nil {
				out = make(map[string]any, len(implied))
			}
			out[k] = v
		}
	}
	return out
}
