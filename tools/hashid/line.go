package hashid

import (
	"strings"
	"unicode"
)

// Layouts: how IdentifyLine read a line of a file.
const (
	// LayoutHash: the line is the hash (possibly inside an LDAP or
	// Dovecot {SCHEME} wrapper), or no hash at all.
	LayoutHash = "hash"
	// LayoutUserHash: a user, a colon, the hash (hashcat's --username).
	LayoutUserHash = "user:hash"
	// LayoutShadow: a user, the hash, then more colon-separated fields,
	// as /etc/shadow and /etc/passwd write.
	LayoutShadow = "shadow"
	// LayoutPwdump: [domain\]user:rid:lm:nt::: as pwdump, samdump2 and
	// impacket's secretsdump write, with or without " (status=...)".
	LayoutPwdump = "pwdump"
	// LayoutLMNT: an LM hash, a colon and an NT hash.
	LayoutLMNT = "lm:nt"
)

// LineCandidates bounds the candidates IdentifyLine returns: a file is
// read for its best reading, and building every candidate of a 32-digit
// hex line would cost more than identifying it.
const LineCandidates = 5

// Line is the answer for one line of a file of hashes.
type Line struct {
	// Layout says how the line was read: one of the Layout constants.
	Layout string `json:"layout"`
	// User is the account the line names, as written (a pwdump line's
	// domain included); empty when it names none.
	User string `json:"user,omitempty"`
	// Hash is the part of the line the candidates identify, and
	// HashOffset the byte offset in the line where it starts.
	Hash       string `json:"hash"`
	HashOffset int    `json:"hash_offset"`
	// LM is the LM half of an LM:NT pair or a pwdump line.
	LM *LMHash `json:"lm,omitempty"`
	// Result holds the best LineCandidates candidates for Hash, best
	// first, with confidences shared out over all the candidates.
	Result
}

// LMHash names the LM hash of a Windows account.
type LMHash struct {
	Hash string `json:"hash"`
	// Name is "LM", or "empty LM" for the LM hash of the empty password:
	// what Windows stores when it keeps no LM hash, nothing to crack.
	Name string `json:"name"`
	// HashcatMode is 3000 for an LM hash worth cracking, nil when empty.
	HashcatMode *int `json:"hashcat_mode"`
}

// IdentifyLine identifies one line of a file: the whole line is one input
// (a phrase with spaces stays one phrase), read as a bare hash, a
// user:hash line, a shadow line, a pwdump line or an LM:NT pair, whichever
// fits it best. A pwdump line and an LM:NT pair are NTLM (hashcat 1000);
// the command for a user:hash line has --username. Surrounding white space
// (a CR before the newline) is ignored.
func IdentifyLine(line string) Line {
	return new(LineIdentifier).Identify(line)
}

// A LineIdentifier identifies the lines of a file one after the other in
// storage it reuses, sparing the garbage collector a file's worth of
// answers: the Line it returns (its candidates and LM part) is valid until
// its next call. It remembers how the matches of recent lines ranked
// (rankMemo), which a file's next line of the same shape reuses. It is not
// safe for concurrent use; IdentifyLine is.
type LineIdentifier struct {
	cands [LineCandidates]Candidate
	modes [LineCandidates]int
	lm    LMHash
	mode  int
	ranks rankMemo
}

// Identify is IdentifyLine in the identifier's storage.
func (id *LineIdentifier) Identify(line string) Line {
	return id.identify(line, LineCandidates, 1)
}

// IdentifyBest is Identify with the best candidate only, without its
// Params: all a one-line summary shows (secutil identify's text and CSV).
// Its confidence and the rest of the Line are Identify's; the candidates
// below it are still ranked, since they share out the confidence, but not
// built.
func (id *LineIdentifier) IdentifyBest(line string) Line {
	return id.identify(line, 1, 0)
}

// identify answers with the best keep candidates, the first withParams of
// them with their Params.
func (id *LineIdentifier) identify(line string, keep, withParams int) Line {
	var room [24]match
	s, ms, note := identify(line, room[:0])
	n := min(len(ms), keep)
	var confRoom [LineCandidates]float64
	conf := id.ranks.rank(ms, confRoom[:0], n)
	lead := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
	res := buildInto(id.cands[:n], id.modes[:n], s, ms[:n], conf, note, withParams)
	out := Line{Layout: LayoutHash, Hash: s, HashOffset: lead, Result: res}
	if n == 0 || note != "" || ms[0].p < 0 {
		return out
	}
	m := &ms[0]
	switch p := m.format().patterns[m.p]; {
	case p == lineForms.pair:
		out.Layout, out.Hash, out.HashOffset = LayoutLMNT, s[33:], lead+33
		out.LM = id.lmHash(s[:32])
	case p == lineForms.pwdump || p == lineForms.pwdumpStatus:
		user, rest, _ := strings.Cut(s, ":")
		_, rest, _ = strings.Cut(rest, ":")
		lm, rest, _ := strings.Cut(rest, ":")
		out.Layout, out.User, out.LM = LayoutPwdump, user, id.lmHash(lm)
		out.HashOffset = lead + len(s) - len(rest)
		out.Hash, _, _ = strings.Cut(rest, ":")
	default:
		out.Hash, out.HashOffset = s[m.start:m.end], lead+int(m.start)
		if m.via == viaUser {
			out.User = s[:strings.IndexByte(s, ':')]
			out.Layout = LayoutUserHash
			if int(m.end) < len(s) {
				out.Layout = LayoutShadow
			}
		}
	}
	return out
}

// lmHash names the LM hash h.
func (id *LineIdentifier) lmHash(h string) *LMHash {
	id.lm = LMHash{Hash: h, Name: "empty LM"}
	if !isEmptyLM(h) {
		id.mode = 3000
		id.lm.Name, id.lm.HashcatMode = "LM", &id.mode
	}
	return &id.lm
}

// lineForms are the patterns IdentifyLine reads a layout from, set by
// buildTables.
var lineForms struct{ pair, pwdump, pwdumpStatus *pattern }
