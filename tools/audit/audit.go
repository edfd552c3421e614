// Package audit audits the passwords of a credential dump, the way
// DSInternals' Test-PasswordQuality audits an Active Directory: for every
// account of the records tools/dump reads it tells
//
//   - an empty password (the hash of "", an empty shadow field);
//   - an LM hash present (not the LM hash of "");
//   - how often the hash appears in a breach corpus (the Pwned Passwords
//     NTLM file for NT hashes, the SHA-1 file for SHA-1 ones);
//   - a password found in the local reverse-lookup index or in the
//     embedded common-password list (the plaintext itself only when the
//     caller asks for it);
//   - a password equal to the user name (as written, lower case, upper
//     case or capitalised);
//   - a computer account (NAME$) with its default password, the lower-case
//     name without the $ cut to 14 characters;
//   - how many other accounts share the hash;
//   - a weak crypt(3) scheme (DES, MD5) and locked shadow entries.
//
// The lookups are the caller's (Sources): the audit hands them the distinct
// digests of each algorithm in ascending byte order, in batches, so a
// lookup can answer them in one pass over a sorted file. Salted crypt(3)
// hashes are only classified and compared with each other: recomputing
// them per account would cost seconds each.
//
// Memory: an account costs a fixed 24 bytes plus its name and digest in
// shared arenas (about 60 bytes for an NT dump), its report is built when
// it is written, and the renderers stream: a million accounts fit well
// within 256 MiB.
package audit

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"hash"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"secutil/tools/dump"
	"secutil/tools/hashgen"
)

// Options change what an audit reports.
type Options struct {
	// ShowPlaintext keeps the passwords found in the index or the common
	// list and writes them out (Account.Plaintext). Without it they are
	// never held beyond the lookup.
	ShowPlaintext bool
	// LookupBatch is the most digests one plaintext lookup call gets, 0
	// meaning DefaultLookupBatch; BreachBatch the same for breach
	// lookups, 0 meaning DefaultBreachBatch. Successive batches cover
	// ascending ranges of digests, so a breach file is still read in one
	// pass however they are cut.
	LookupBatch, BreachBatch int
	// Progress, when set, is called after each lookup batch with the
	// digests looked up so far and the total to look up.
	Progress func(done, total int)
}

// DefaultLookupBatch is the reverse-lookup index's batch limit;
// DefaultBreachBatch lets a batched file search (breach.File.CountMany) read
// a part of the file per batch, the batch's headers and the search's
// memory a few MiB.
const (
	DefaultLookupBatch = 500
	DefaultBreachBatch = 1 << 16
)

// Report limits: the summary lists the largest MaxGroups groups of accounts
// sharing a hash, MaxGroupNames names of each, and the MostBreached most
// breached accounts; MaxRefused refused lines are kept with their reason.
const (
	MaxGroups     = 100
	MaxGroupNames = 100
	MostBreached  = 10
	MaxRefused    = 1000
)

// maxNameBytes bounds an account name as kept for the report; names are
// compared and hashed whole before that.
const maxNameBytes = 256

// flag records the findings an account's own record tells.
type flag uint8

const (
	flagEmpty flag = 1 << iota
	flagLM
	flagSameAsUser
	flagDefaultComputer
	flagLocked
)

// entry is one account, compact: its name (domain\user as the dump writes
// it) and digest live in the Auditor's arenas.
type entry struct {
	line      uint32
	name      uint32 // offset in names
	digest    uint32 // offset in digests
	group     uint32 // index of its digest among the report's distinct ones
	nameLen   uint16
	digestLen uint16
	status    uint8 // index in statuses
	format    dump.Format
	alg       dump.Algorithm
	flags     flag
}

// noGroup marks an entry without a digest (an empty or locked field).
const noGroup = math.MaxUint32

// ErrTooLarge is returned by Add when a dump outgrows the audit's 4 GiB
// arenas.
var ErrTooLarge = errors.New("audit: the dump is too large")

// errAfterReport is returned by Add once Report has run.
var errAfterReport = errors.New("audit: Add after Report")

// Auditor collects the accounts of one dump.
type Auditor struct {
	opt      Options
	entries  []entry
	names    []byte
	digests  []byte
	statuses interned
	hash     hasher
	history  int
	refused  []dump.LineError
	refusedN int
	reported bool
}

// New returns an Auditor with opt.
func New(opt Options) *Auditor {
	if opt.LookupBatch <= 0 {
		opt.LookupBatch = DefaultLookupBatch
	}
	if opt.BreachBatch <= 0 {
		opt.BreachBatch = DefaultBreachBatch
	}
	return &Auditor{opt: opt, statuses: newInterned()}
}

// Refuse records a line the dump reader refused, for the report.
func (a *Auditor) Refuse(err *dump.LineError) {
	a.refusedN++
	if len(a.refused) < MaxRefused {
		a.refused = append(a.refused, *err)
	}
}

// Add audits one record: what the record alone tells is worked out now,
// the rest by Report. A secretsdump history record (an earlier password)
// is counted and left out.
func (a *Auditor) Add(rec dump.Record) error {
	if a.reported {
		return errAfterReport
	}
	if rec.History > 0 {
		a.history++
		return nil
	}
	key := digestKey(rec)
	if uint64(len(a.names))+maxNameBytes > math.MaxUint32 || uint64(len(a.digests))+uint64(len(key)) > math.MaxUint32 ||
		len(a.entries) == math.MaxUint32-1 {
		return ErrTooLarge
	}
	e := entry{
		line: uint32(min(rec.Line, math.MaxUint32)), format: rec.Format, alg: rec.Algorithm, group: noGroup,
		status: a.statuses.index(rec.Status), name: uint32(len(a.names)), digest: uint32(len(a.digests)),
		digestLen: uint16(len(key)),
	}
	name := rec.User
	if rec.Domain != "" {
		name = rec.Domain + `\` + name
	}
	name = truncate(name, maxNameBytes)
	e.nameLen = uint16(len(name))
	a.names = append(a.names, name...)
	a.digests = append(a.digests, key...)
	e.flags = a.findings(rec)
	a.entries = append(a.entries, e)
	return nil
}

// digestKey is what accounts sharing a password share: a hex algorithm's
// digest, or a crypt(3) string without its lock marks (equal salt and
// hash: one password, the hash copied). Nil when the record has none.
func digestKey(rec dump.Record) []byte {
	switch {
	case rec.Hash != nil:
		return rec.Hash
	case rec.Format == dump.Shadow && rec.Algorithm != 0:
		return []byte(strings.TrimLeft(rec.Raw, "!"))
	}
	return nil
}

// emptyLM is the LM hash of the empty password.
var emptyLM = [16]byte{0xaa, 0xd3, 0xb4, 0x35, 0xb5, 0x14, 0x04, 0xee, 0xaa, 0xd3, 0xb4, 0x35, 0xb5, 0x14, 0x04, 0xee}

// maxComputerPassword is the length of a computer account's default
// (pre-Windows 2000) password: its name, cut to 14 characters.
const maxComputerPassword = 14

// findings works out what rec alone tells.
func (a *Auditor) findings(rec dump.Record) flag {
	var f flag
	if rec.Empty || rec.Hash != nil && a.hash.isEmpty(rec.Algorithm, rec.Hash) {
		f |= flagEmpty
	}
	if rec.HasLM && rec.LM != emptyLM {
		f |= flagLM
	}
	if rec.Locked {
		f |= flagLocked
	}
	if rec.Hash == nil {
		return f
	}
	for _, v := range nameVariants(rec.User) {
		if a.hash.equal(rec.Algorithm, v, rec.Hash) {
			f |= flagSameAsUser
			break
		}
	}
	if name, ok := strings.CutSuffix(rec.User, "$"); ok && name != "" && rec.Algorithm == dump.NTLM {
		if a.hash.equal(dump.NTLM, truncateRunes(strings.ToLower(name), maxComputerPassword), rec.Hash) {
			f |= flagDefaultComputer
		}
	}
	return f
}

// nameVariants are the spellings of a user name a password copies: as
// written, lower case, upper case, capitalised; each once.
func nameVariants(user string) []string {
	lower := strings.ToLower(user)
	r, size := utf8.DecodeRuneInString(lower)
	capital := string(unicode.ToUpper(r)) + lower[size:]
	out := []string{user}
	for _, v := range []string{lower, strings.ToUpper(user), capital} {
		if !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncateRunes cuts s to its first n characters.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// interned stores the account statuses once (secretsdump writes three);
// index 0 is "", which also stands for any status beyond the 255th.
type interned struct {
	list []string
	at   map[string]uint8
}

func newInterned() interned { return interned{list: []string{""}, at: map[string]uint8{"": 0}} }

func (in *interned) index(s string) uint8 {
	if i, ok := in.at[s]; ok {
		return i
	}
	if len(in.list) > math.MaxUint8 {
		return 0
	}
	i := uint8(len(in.list))
	s = strings.Clone(s) // not the record's whole line
	in.list = append(in.list, s)
	in.at[s] = i
	return i
}

// hasher computes the digests of candidate passwords, reusing its state.
type hasher struct {
	state map[dump.Algorithm]hash.Hash
	empty map[dump.Algorithm]string // the digest of "", once per algorithm
	buf   []byte
	sum   [sha512.Size]byte
}

// isEmpty reports whether digest is that of the empty password under alg.
func (h *hasher) isEmpty(alg dump.Algorithm, digest []byte) bool {
	d, ok := h.empty[alg]
	if !ok {
		if h.empty == nil {
			h.empty = map[dump.Algorithm]string{}
		}
		d = string(h.digest(alg, ""))
		h.empty[alg] = d
	}
	return d != "" && d == string(digest)
}

// digest returns password's digest under alg (a hex algorithm), valid
// until the next call.
func (h *hasher) digest(alg dump.Algorithm, password string) []byte {
	if alg == dump.NTLM {
		return hashgen.NTLM([]byte(password))
	}
	if h.state == nil {
		h.state = map[dump.Algorithm]hash.Hash{}
	}
	st := h.state[alg]
	if st == nil {
		switch alg {
		case dump.MD5:
			st = md5.New()
		case dump.SHA1:
			st = sha1.New()
		case dump.SHA256:
			st = sha256.New()
		case dump.SHA512:
			st = sha512.New()
		default:
			return nil
		}
		h.state[alg] = st
	}
	st.Reset()
	h.buf = append(h.buf[:0], password...)
	st.Write(h.buf)
	return st.Sum(h.sum[:0])
}

// equal reports whether password hashes to digest under alg.
func (h *hasher) equal(alg dump.Algorithm, password string, digest []byte) bool {
	d := h.digest(alg, password)
	return d != nil && string(d) == string(digest)
}
