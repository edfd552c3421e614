// Package hashid tells which algorithm most likely produced a hash string,
// with the hashcat mode, the John the Ripper format, the parameters the
// string carries (cost, rounds, iterations, memory, salt, user, version) and
// the hashcat command line that cracks it.
//
// The table (formats.go) has a row for every hashcat 6.2.6 mode whose input
// is text, and for formats only John the Ripper or the tools that write them
// know (yescrypt, passlib, Werkzeug, Dovecot, LDAP schemes, checksums...).
// Every row lists the written forms of its format as patterns (pattern.go)
// that parse each field, so a string is matched by structure, not by a
// regular expression over its length. John the Ripper's own written forms
// ($NT$..., $dynamic_N$..., M$user#hash, message#hash) are patterns too,
// declared in john.go on the row of the same algorithm: one candidate then
// names the format for both tools and says how hashcat reads the string.
//
// Ranking: a format whose pattern pins down more of the string (literal
// prefixes, fixed-length fields of a narrow alphabet) ranks above one that
// only fits its length; among equally exact matches, the prevalence table
// (prevalence.go) puts the formats people actually meet first. Confidence
// is the share of that ranking's weight each candidate holds: a probability
// under the prevalence prior, rounded to two decimals.
//
// Windows account dumps are read as such: an LM:NT pair is NTLM (hashcat
// 1000) with the LM half offered to hashcat 3000 unless it is the empty LM,
// and a pwdump or secretsdump line is NTLM with the user and RID as
// parameters. IdentifyLine (line.go) reads one line of a file: the whole
// line is one input, and the answer says which part is the hash and which
// the user.
//
// Work per input is bounded: dispatch on literal prefix (a byte trie),
// separator position and length reaches a few dozen patterns at most, and a
// pattern match is one linear scan without backtracking.
package hashid

import (
	"math"
	"slices"
	"strings"
)

// MaxInputBytes bounds the input Identify examines; longer input matches
// nothing. hashcat's longest text hashes (LUKS, 513 kB) fit.
const MaxInputBytes = 1 << 20

// Candidate is one possible format for a hash.
type Candidate struct {
	Name string `json:"name"`
	// HashcatMode is hashcat's -m number, nil when hashcat has none.
	HashcatMode *int `json:"hashcat_mode"`
	// JohnFormat is John the Ripper's --format name, empty when unknown.
	JohnFormat string `json:"john_format"`
	// JohnAlso are John's other formats that read the same string (a
	// variant for long passwords, a format built on a dynamic one).
	JohnAlso []string `json:"john_also,omitempty"`
	Category string   `json:"category"`
	// Confidence is in [0,1], two decimals; candidates come best first.
	Confidence float64 `json:"confidence"`
	// Params holds what the string says about itself: cost or rounds,
	// iterations, memory, parallelism, salt, user or realm, version.
	// Candidates read with one pattern share the map: treat it as
	// read-only.
	Params map[string]any `json:"params,omitempty"`
	// Hashcat is the command line that cracks the hash with a wordlist.
	Hashcat string `json:"hashcat,omitempty"`
	// John is John the Ripper's command line for the same, empty when
	// John has no format for it.
	John string `json:"john,omitempty"`
}

// Result is the answer for one string.
type Result struct {
	// Estimate names the most likely format: "unknown" when nothing fits,
	// "not a hash" when the string is recognisably something else.
	Estimate string `json:"estimate"`
	// Note says what a string that is not a hash is instead.
	Note       string      `json:"note,omitempty"`
	Candidates []Candidate `json:"candidates"`
}

// Estimates for strings that are no known hash.
const (
	Unknown = "unknown"
	NotHash = "not a hash"
)

// match is one format that fits the input, before ranking. It holds no
// pointers, so collecting and sorting matches costs the collector nothing.
type match struct {
	f          int32 // the format: its index in formats
	p          int16 // its pattern that matched; -1 for none (plaintext)
	via        uint8 // how the format was reached: viaWhole, viaUser, viaWrapper
	exact      int32
	start, end int32   // the part of the string p matched
	bits       float64 // how improbable that part is under p (pattern.match)
	odds       float64 // weight times likelihood within its exactness (rank)
}

func (m *match) format() *format { return formats[m.f] }

const (
	viaWhole = iota
	viaUser
	viaWrapper
)

// Exactness adjustments (units of pattern.exact).
const (
	// userPenalty: a "user:hash" reading is a guess about the line, so
	// it ranks below readings of the whole string.
	userPenalty = 3
	// hintBonus: a wrapper that names its scheme ({SHA512-CRYPT},
	// {NTLM}) vouches for that format.
	hintBonus = 20
	// weakExact is the exactness of a bare fixed-length field (a raw
	// digest): the string fits by length and alphabet only.
	weakExact = 2
	// hexPenalty: an all-hex string matched by a pattern of a wider
	// alphabet only.
	hexPenalty = 2
)

func isHex(s string) bool {
	return s != "" && inClass(hexClass(), s)
}

// inClass reports whether every byte of s is in c. It reads four bytes a
// round: fields of a hundred characters are common.
func inClass(c *charClass, s string) bool {
	in := &c.in
	for ; len(s) >= 4; s = s[4:] {
		_ = s[3] // one bounds check for the four
		if !(in[s[0]] && in[s[1]] && in[s[2]] && in[s[3]]) {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if !in[s[i]] {
			return false
		}
	}
	return true
}

// Identify returns the formats s could be in, best first. Surrounding white
// space is ignored.
func Identify(s string) Result {
	var room [24]match // on the stack: build copies what it keeps
	var conf [24]float64
	s, ms, note := identify(s, room[:0])
	return build(s, ms, rank(ms, conf[:0], len(ms)), note)
}

// identify returns the trimmed input and its matches, or a note on what it
// is if not a hash. The matches go into buf when it has room (a batch
// reuses one buffer).
func identify(hash string, buf []match) (string, []match, string) {
	loadTables()
	if len(hash) > MaxInputBytes {
		return "", nil, ""
	}
	s := strings.TrimSpace(hash)
	if s == "" {
		return "", nil, ""
	}
	if buf == nil {
		buf = make([]match, 0, 24)
	}
	ms := matchAll(s, 0, len(s), buf[:0], viaWhole)
	ms = unwrap(s, ms)
	ms = userField(s, ms)
	best := int32(-1)
	for i := range ms {
		best = max(best, ms[i].exact)
	}
	if best <= weakExact {
		if what, plain := notAHash(s); what != "" {
			if plain {
				return s, plaintextMatches(s), what
			}
			return s, nil, what
		}
	}
	return s, ms, ""
}

// matchAll appends to ms every format s[start:end] fits, keeping one match
// per format (the most exact).
func matchAll(s string, start, end int, ms []match, via uint8) []match {
	part := s[start:end]
	// seen holds the formats in ms, so a new one is appended unsearched;
	// into an empty ms, a format of one pattern is appended unasked.
	var seen formatSet
	for i := range ms {
		seen.add(ms[i].f)
	}
	fresh := len(ms) == 0
	hex := 0 // whether part is all hex: 0 not known yet, 1 yes, -1 no
	var room [64]*reach
	for _, r := range reachable(part, room[:0]) {
		bits, ok := r.p.match(part, nil)
		if !ok {
			continue
		}
		exact := r.p.exact
		if r.p.wideOnly {
			if hex == 0 {
				hex = -1
				if isHex(part) {
					hex = 1
				}
			}
			if hex > 0 {
				// A hex string fits a crypt or base64 alphabet too, but
				// is far likelier a hex digest.
				exact -= hexPenalty
			}
		}
		for _, row := range r.rows {
			m := match{f: row.f, p: row.i, via: via, exact: int32(exact), start: int32(start), end: int32(end), bits: bits}
			if row.check != nil {
				bonus := row.check(part)
				if bonus < 0 {
					continue
				}
				m.exact += int32(bonus)
			}
			if row.only && fresh {
				ms = append(ms, m)
				continue
			}
			if !seen.has(row.f) {
				seen.add(row.f)
				ms = append(ms, m)
				continue
			}
			ms = merge(ms, m)
		}
	}
	return ms
}

// formatSet is a set of formats by index (maxFormats at most).
type formatSet [maxFormats / 64]uint64

// maxFormats bounds the table, for formatSet (buildTables checks it).
const maxFormats = 1024

func (fs *formatSet) add(f int32)      { fs[f/64] |= 1 << (f % 64) }
func (fs *formatSet) has(f int32) bool { return fs[f/64]&(1<<(f%64)) != 0 }

func merge(ms []match, m match) []match {
	for i := range ms {
		if ms[i].f == m.f {
			if m.exact > ms[i].exact || m.exact == ms[i].exact && m.bits < ms[i].bits {
				ms[i] = m
			}
			return ms
		}
	}
	return append(ms, m)
}

// unwrap identifies the hash inside an LDAP or Dovecot scheme wrapper such as
// {CRYPT}$6$... or {SHA512-CRYPT}$6$...; a scheme that names its algorithm
// lifts that format to the top.
func unwrap(s string, ms []match) []match {
	if s[0] != '{' {
		return ms
	}
	end := strings.IndexByte(s, '}')
	if end < 0 || end+1 == len(s) {
		return ms
	}
	scheme := strings.ToUpper(s[1:end])
	scheme = strings.TrimSuffix(strings.TrimSuffix(scheme, ".HEX"), ".B64")
	hints, ok := wrappers()[scheme]
	if !ok {
		return ms
	}
	for _, m := range matchAll(s, end+1, len(s), nil, viaWrapper) {
		if slices.Contains(hints, m.format().name) {
			m.exact += hintBonus
		}
		ms = merge(ms, m)
	}
	return ms
}

// maxUserLen bounds the first field of a "user:hash" line; a first field of
// minHexHash or more hex digits is a hash, not a user.
const (
	maxUserLen = 64
	minHexHash = 16
)

// userField reads s as a "user:hash" line (htpasswd, a cracked-hash list)
// or an /etc/shadow line: the hash is everything after the first colon, or
// the second colon-separated field.
func userField(s string, ms []match) []match {
	colon := strings.IndexByte(s, ':')
	user := s[:max(colon, 0)]
	if colon <= 0 || colon > maxUserLen || colon+1 == len(s) ||
		strings.IndexByte(user, '$') >= 0 || strings.IndexByte(user, '*') >= 0 || strings.IndexByte(user, '{') >= 0 ||
		len(user) >= minHexHash && isHex(user) {
		return ms
	}
	var room [24]match
	found := matchAll(s, colon+1, len(s), room[:0], viaUser)
	if second := strings.IndexByte(s[colon+1:], ':'); second > 0 {
		found = matchAll(s, colon+1, colon+1+second, found, viaUser)
	}
	for _, m := range found {
		m.exact -= userPenalty
		ms = merge(ms, m)
	}
	return ms
}

// Confidence model: a match's share is its prior (the format's weight)
// times its likelihood, normalised over all matches plus a residual for
// "none of these". The likelihood is 2^-bits (pattern.match), scaled by
// 2^exactBits per point of exactness, so a structurally exact match
// outweighs one that only fits the length.
const (
	exactBits = 2 // each point of exactness weighs 2^exactBits
	// residualWeak is the chance a string that fits by length alone is no
	// listed format at all (a random token, an unlisted digest);
	// residualStrong the same for a structurally exact match.
	residualWeak   = 0.1
	residualStrong = 0.02
	// residualUser adds the chance that a line read as "user:hash" is
	// something else.
	residualUser = 0.1
)

// rank sorts ms best first: by exactness, then by weight times likelihood
// (prevalence, with the narrower alphabet ahead when prevalence is equal),
// then by table order. It returns the confidences of the first shown,
// non-increasing, in conf's storage when it has room: every match shares
// out the confidence, but only those shown need theirs rounded.
func rank(ms []match, conf []float64, shown int) []float64 {
	if len(ms) == 0 {
		return nil
	}
	// Likelihoods compare within one level of exactness only: across
	// levels, exactness decides. So odds are against the likeliest match of
	// the same exactness (matches have few distinct levels).
	type level struct {
		exact   int32
		minBits float64
	}
	var room [8]level
	levels := room[:0]
	levelOf := func(exact int32) int {
		for i := range levels {
			if levels[i].exact == exact {
				return i
			}
		}
		return -1
	}
	for i := range ms {
		m := &ms[i]
		if l := levelOf(m.exact); l < 0 {
			levels = append(levels, level{m.exact, m.bits})
		} else {
			levels[l].minBits = min(levels[l].minBits, m.bits)
		}
	}
	best := levels[0].exact
	for i := range ms {
		m := &ms[i]
		minBits := levels[levelOf(m.exact)].minBits
		m.odds = m.format().weight
		if m.bits != minBits {
			m.odds *= math.Exp2(minBits - m.bits)
		}
		best = max(best, m.exact)
	}
	sortMatches(ms)
	conf = conf[:0] // the raw shares first
	total := 0.0
	for i := range ms {
		m := &ms[i]
		c := m.odds
		if m.exact != best {
			c = math.Ldexp(m.odds, exactBits*int(m.exact-best))
		}
		conf = append(conf, c)
		total += c
	}
	residual := residualStrong
	if best <= weakExact {
		residual = residualWeak
	}
	if ms[0].via == viaUser {
		residual += residualUser
	}
	total *= 1 + residual
	conf = conf[:shown]
	for i := range conf {
		c := math.Round(100*conf[i]/total) / 100
		if i > 0 && c > conf[i-1] {
			c = conf[i-1]
		}
		conf[i] = c
	}
	return conf
}

// sortMatches puts ms best first: by exactness, then odds, then table order
// (one format per match, so the order is total).
func sortMatches(ms []match) {
	if len(ms) > maxInsertionSort {
		slices.SortFunc(ms, func(a, b match) int {
			switch {
			case better(&a, &b):
				return -1
			case better(&b, &a):
				return 1
			}
			return 0
		})
		return
	}
	// Insertion sort: a string fits a few dozen formats at most, and this
	// moves each match once instead of calling a comparison through a
	// function value.
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for ; j > 0 && better(&m, &ms[j-1]); j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
}

// maxInsertionSort is the most matches sortMatches sorts by insertion.
const maxInsertionSort = 48

func better(a, b *match) bool {
	if a.exact != b.exact {
		return a.exact > b.exact
	}
	if a.odds != b.odds {
		return a.odds > b.odds
	}
	return a.f < b.f
}

// build turns ranked matches of s into the answer.
func build(s string, ms []match, conf []float64, note string) Result {
	return buildInto(make([]Candidate, len(ms)), make([]int, len(ms)), s, ms, conf, note, len(ms))
}

// buildInto is build writing the candidates into cands and their hashcat
// modes into modes (both as long as ms), with the parameters of the first
// withParams candidates only.
func buildInto(cands []Candidate, modes []int, s string, ms []match, conf []float64, note string, withParams int) Result {
	res := Result{Estimate: Unknown, Note: note, Candidates: cands[:len(ms)]}
	if note != "" {
		res.Estimate = NotHash
	}
	for i := range ms {
		m := &ms[i]
		f := m.format()
		c := &res.Candidates[i] // filled in place: a Candidate is 128 bytes
		*c = Candidate{Name: f.name, JohnFormat: f.john, Category: f.category, Confidence: conf[i], Hashcat: f.hashcat}
		if m.p >= 0 {
			form := &f.forms[m.p]
			c.JohnFormat, c.John, c.JohnAlso = form.label, form.line, form.also
		} else if f.john != "" {
			c.John = johnLine(f.john) // plaintext, no pattern
		}
		if f.mode != noMode {
			modes[i] = f.mode
			c.HashcatMode = &modes[i]
		}
		switch {
		case i >= withParams:
		case i > 0 && sameParams(*m, ms[i-1]):
			c.Params = res.Candidates[i-1].Params // read-only, so shared
		default:
			c.Params = m.params(s)
		}
		if m.via == viaUser {
			c.Hashcat = f.hashcatUser
		}
	}
	if len(ms) > 0 && note == "" {
		res.Estimate = ms[0].format().name
	}
	return res
}

// params returns what the part of s that m matched says under m's pattern.
func (m *match) params(s string) map[string]any {
	if m.p < 0 {
		return nil
	}
	f := m.format()
	form := &f.forms[m.p]
	implied := f.implied
	if form.implied != nil {
		implied = form.implied
	}
	part := s[m.start:m.end]
	p := f.patterns[m.p].params(part, implied)
	if form.hashcat != nil && f.mode != noMode {
		if p == nil {
			p = map[string]any{}
		}
		p["hashcat_hash"] = form.hashcat(part)
	}
	if m.via == viaWrapper {
		if p == nil {
			p = map[string]any{}
		}
		p["wrapper"] = s[:m.start]
	}
	return p
}

// sameParams reports whether a and b read the same part of the string with
// one pattern (many formats share "<hex:32>:<text=salt>"), so have equal
// params.
func sameParams(a, b match) bool {
	return a.p >= 0 && b.p >= 0 && a.via == viaWhole && b.via == viaWhole && a.start == b.start && a.end == b.end &&
		a.format().implied == nil && b.format().implied == nil && a.format().patterns[a.p] == b.format().patterns[b.p] &&
		a.format().forms[a.p].plain(a.format().john) && b.format().forms[b.p].plain(b.format().john)
}

// Formats reports how many formats the table knows.
func Formats() int {
	loadTables()
	return len(formats)
}

// HashcatModes reports how many distinct hashcat modes the table covers.
func HashcatModes() int {
	loadTables()
	seen := map[int]bool{}
	for _, f := range formats {
		if f.mode != noMode {
			seen[f.mode] = true
		}
	}
	return len(seen)
}
