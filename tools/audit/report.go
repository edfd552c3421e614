package audit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"slices"

	"secutil/tools/breach"
	"secutil/tools/dump"
)

// CountLookup returns how often each digest appears in a breach corpus, in
// the order given, 0 for one it does not hold. The digests of one call are
// distinct and ascending, and each call continues where the last ended.
type CountLookup func(ctx context.Context, digests [][]byte) ([]int64, error)

// BatchCounter answers many digests of a breach corpus at once: a
// Pwned Passwords file, or any breach.Source.
type BatchCounter interface {
	CountMany(ctx context.Context, digests [][]byte, progress breach.Progress) ([]breach.Hit, error)
}

// BreachCounts is a breach corpus as an audit's count lookup.
func BreachCounts(src BatchCounter) CountLookup {
	return func(ctx context.Context, digests [][]byte) ([]int64, error) {
		hits, err := src.CountMany(ctx, digests, nil)
		if err != nil {
			return nil, err
		}
		counts := make([]int64, len(hits))
		for i, h := range hits {
			counts[i] = h.Count
		}
		return counts, nil
	}
}

// PlaintextLookup returns, in the order given, the password each digest of
// alg is the hash of, "" where it knows none. The digests come as
// CountLookup's do.
type PlaintextLookup func(ctx context.Context, alg dump.Algorithm, digests [][]byte) ([]string, error)

// Sources are the lookups an audit makes. Any may be missing.
type Sources struct {
	// Breached maps a hex algorithm to its breach corpus: dump.NTLM to
	// the Pwned Passwords NTLM file, dump.SHA1 to the SHA-1 one. The
	// accounts of an algorithm without one have a null count.
	Breached map[dump.Algorithm]CountLookup
	// Common looks plaintexts up in the embedded common-password list
	// (WordList(strength.CommonPasswords())), Index in the local
	// reverse-lookup index; a password the list has is reported as
	// common, and the index is asked only for the others.
	Common, Index PlaintextLookup
}

// Where a password was found.
const (
	FoundCommon = "common"
	FoundIndex  = "index"
)

const (
	foundNone uint8 = iota
	foundCommon
	foundIndex
)

// distinct is one distinct digest: its accounts are perm from start to the
// next one's start. 12 bytes: a dump may hold a million.
type distinct struct {
	start    uint32
	breached uint32 // noSource when no corpus covers its algorithm
	found    uint8
}

// noSource marks a digest no breach corpus covers; counts stop below it.
const noSource = math.MaxUint32

// count is the number of accounts of distinct digest k.
func (r *Report) count(k int) uint32 {
	if k+1 < len(r.dist) {
		return r.dist[k+1].start - r.dist[k].start
	}
	return uint32(len(r.perm)) - r.dist[k].start
}

// Report is the audit of one dump.
type Report struct {
	a       *Auditor
	perm    []uint32 // entries with a digest, by algorithm, digest, then line
	dist    []distinct
	plain   map[uint32]string // by distinct digest, kept with ShowPlaintext only
	summary Summary
}

// Report runs the lookups and returns the audit. No record can be added
// after it.
func (a *Auditor) Report(ctx context.Context, src Sources) (*Report, error) {
	a.reported = true
	r := &Report{a: a}
	if a.opt.ShowPlaintext {
		r.plain = map[uint32]string{}
	}
	r.group()
	if err := r.lookUp(ctx, src); err != nil {
		return nil, err
	}
	r.summarise(src)
	return r, nil
}

func (a *Auditor) key(e *entry) []byte {
	return a.digests[e.digest : e.digest+uint32(e.digestLen)]
}

// group sorts the accounts with a digest by it and numbers the distinct
// digests.
func (r *Report) group() {
	a := r.a
	n := 0
	for i := range a.entries {
		n += b2i(a.entries[i].digestLen > 0)
	}
	r.perm = make([]uint32, 0, n)
	for i := range a.entries {
		if a.entries[i].digestLen > 0 {
			r.perm = append(r.perm, uint32(i))
		}
	}
	slices.SortFunc(r.perm, func(i, j uint32) int {
		ei, ej := &a.entries[i], &a.entries[j]
		if c := cmp.Compare(ei.alg, ej.alg); c != 0 {
			return c
		}
		ki, kj := a.key(ei), a.key(ej)
		if len(ki) >= 8 && len(kj) >= 8 { // the first 8 bytes tell digests apart
			if c := cmp.Compare(binary.BigEndian.Uint64(ki), binary.BigEndian.Uint64(kj)); c != 0 {
				return c
			}
		}
		return cmp.Or(bytes.Compare(ki, kj), cmp.Compare(i, j))
	})
	same := func(k int) bool { // perm[k] has the digest of perm[k-1]
		e, prev := &a.entries[r.perm[k]], &a.entries[r.perm[k-1]]
		return e.alg == prev.alg && bytes.Equal(a.key(e), a.key(prev))
	}
	n = 0
	for k := range r.perm {
		n += b2i(k == 0 || !same(k))
	}
	r.dist = make([]distinct, 0, n)
	for k, i := range r.perm {
		if k == 0 || !same(k) {
			r.dist = append(r.dist, distinct{start: uint32(k), breached: noSource})
		}
		a.entries[i].group = uint32(len(r.dist) - 1)
	}
}

// byAlgorithm returns the ranges of r.dist, one per hex algorithm (the
// only ones looked up).
func (r *Report) byAlgorithm() map[dump.Algorithm][2]int {
	out := map[dump.Algorithm][2]int{}
	for k := 0; k < len(r.dist); {
		alg := r.entry(k).alg
		end := k + 1
		for end < len(r.dist) && r.entry(end).alg == alg {
			end++
		}
		if alg.DigestLen() > 0 {
			out[alg] = [2]int{k, end}
		}
		k = end
	}
	return out
}

// entry is the first account of distinct digest k.
func (r *Report) entry(k int) *entry { return &r.a.entries[r.perm[r.dist[k].start]] }

// lookUp asks the sources about every distinct digest, in batches.
func (r *Report) lookUp(ctx context.Context, src Sources) error {
	ranges := r.byAlgorithm()
	total, done := 0, 0
	for alg, rg := range ranges {
		n := rg[1] - rg[0]
		if src.Breached[alg] != nil {
			total += n
		}
		if src.Common != nil {
			total += n
		}
		if src.Index != nil {
			total += n
		}
	}
	progress := func(n int) {
		done += n
		if r.a.opt.Progress != nil {
			r.a.opt.Progress(done, total)
		}
	}
	var batch [][]byte
	var idx []int
	// each calls ask with the distinct digests of rg that want, in
	// batches of size; skipped ones count as done.
	each := func(rg [2]int, size int, want func(k int) bool, ask func(ks []int, digests [][]byte) error) error {
		for k := rg[0]; k < rg[1]; {
			batch, idx = batch[:0], idx[:0]
			skipped := 0
			for ; k < rg[1] && len(batch) < size; k++ {
				if want(k) {
					batch, idx = append(batch, r.a.key(r.entry(k))), append(idx, k)
				} else {
					skipped++
				}
			}
			if len(batch) > 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := ask(idx, batch); err != nil {
					return err
				}
			}
			progress(skipped + len(batch))
		}
		return nil
	}
	all := func(int) bool { return true }
	for _, alg := range sortedAlgorithms(ranges) {
		rg := ranges[alg]
		if lookup := src.Breached[alg]; lookup != nil {
			err := each(rg, r.a.opt.BreachBatch, all, func(ks []int, digests [][]byte) error {
				counts, err := lookup(ctx, digests)
				if err == nil && len(counts) != len(digests) {
					err = fmt.Errorf("audit: the %s breach lookup answered %d of %d digests", alg, len(counts), len(digests))
				}
				for i, k := range ks {
					if err == nil {
						r.dist[k].breached = uint32(min(max(counts[i], 0), noSource-1))
					}
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		for _, pass := range []struct {
			lookup PlaintextLookup
			found  uint8
		}{{src.Common, foundCommon}, {src.Index, foundIndex}} {
			if pass.lookup == nil {
				continue
			}
			notFound := func(k int) bool { return r.dist[k].found == foundNone }
			err := each(rg, r.a.opt.LookupBatch, notFound, func(ks []int, digests [][]byte) error {
				plain, err := pass.lookup(ctx, alg, digests)
				if err == nil && len(plain) != len(digests) {
					err = fmt.Errorf("audit: a %s plaintext lookup answered %d of %d digests", alg, len(plain), len(digests))
				}
				for i, k := range ks {
					if err != nil || plain[i] == "" {
						continue // (the empty password is a finding of its own)
					}
					r.dist[k].found = pass.found
					if r.plain != nil {
						r.plain[uint32(k)] = plain[i]
					}
				}
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// sortedAlgorithms gives the lookups a fixed order.
func sortedAlgorithms(m map[dump.Algorithm][2]int) []dump.Algorithm {
	out := make([]dump.Algorithm, 0, len(m))
	for alg := range m {
		out = append(out, alg)
	}
	slices.Sort(out)
	return out
}

// Account is the audit of one account. The JSON field names are the API's.
type Account struct {
	// Line is the account's line in the dump.
	Line int `json:"line"`
	// Account is the name as the dump writes it (domain\user for a
	// pwdump line with a domain).
	Account string `json:"account"`
	// Format is the line's (pwdump, user:hash, shadow), Algorithm the
	// hash's (ntlm, sha1, sha512crypt...; empty for a shadow field
	// without a hash).
	Format    string `json:"format"`
	Algorithm string `json:"algorithm,omitempty"`
	// Status is secretsdump's account status, when the line has one.
	Status string `json:"status,omitempty"`
	// EmptyPassword: the hash is that of "" or the line says there is no
	// password.
	EmptyPassword bool `json:"empty_password"`
	// LMPresent: a pwdump line holds an LM hash other than that of "".
	LMPresent bool `json:"lm_present"`
	// Breached is how often the hash appears in the breach corpus of its
	// algorithm, nil when there is none.
	Breached *int64 `json:"breached"`
	// FoundIn is FoundIndex or FoundCommon, nil when the password was
	// not found.
	FoundIn *string `json:"found_in"`
	// Plaintext is the password found, with Options.ShowPlaintext only.
	Plaintext string `json:"plaintext,omitempty"`
	// SameAsUsername: the password is the user name, in one of its
	// spellings (not worked out for salted crypt(3) hashes).
	SameAsUsername bool `json:"same_as_username"`
	// DefaultComputerPassword: a computer account (NAME$) whose password
	// is the default one, its name in lower case.
	DefaultComputerPassword bool `json:"default_computer_password"`
	// SharedWith is how many other accounts have the same hash.
	SharedWith int `json:"shared_with"`
	// WeakScheme names a weak crypt(3) scheme (descrypt, bsdicrypt,
	// md5crypt, sunmd5), nil otherwise.
	WeakScheme *string `json:"weak_scheme"`
	// Locked: a shadow entry no password logs in to.
	Locked bool `json:"locked"`
}

var foundNames = [...]string{foundCommon: FoundCommon, foundIndex: FoundIndex}

// account builds the Account of entry i.
func (r *Report) account(i int) Account {
	a := r.a
	e := &a.entries[i]
	acc := Account{
		Line: int(e.line), Account: string(a.names[e.name : e.name+uint32(e.nameLen)]), Format: e.format.String(),
		Status: a.statuses.list[e.status], EmptyPassword: e.flags&flagEmpty != 0, LMPresent: e.flags&flagLM != 0,
		SameAsUsername: e.flags&flagSameAsUser != 0, DefaultComputerPassword: e.flags&flagDefaultComputer != 0,
		Locked: e.flags&flagLocked != 0,
	}
	if e.alg != 0 {
		acc.Algorithm = e.alg.String()
	}
	if e.alg.Weak() {
		name := e.alg.String()
		acc.WeakScheme = &name
	}
	if e.group == noGroup {
		return acc
	}
	d := &r.dist[e.group]
	acc.SharedWith = int(r.count(int(e.group))) - 1
	if d.breached != noSource {
		n := int64(d.breached)
		acc.Breached = &n
	}
	if d.found != foundNone {
		where := foundNames[d.found]
		acc.FoundIn = &where
		acc.Plaintext = r.plain[e.group]
	}
	return acc
}

// Accounts yields every account, in the order of the dump.
func (r *Report) Accounts() iter.Seq[Account] {
	return func(yield func(Account) bool) {
		for i := range r.a.entries {
			if !yield(r.account(i)) {
				return
			}
		}
	}
}

// Refused returns the lines the dump reader refused (the first
// MaxRefused), in the order they were given.
func (r *Report) Refused() []dump.LineError { return r.a.refused }

// Summary is the count of each finding, the groups of accounts sharing a
// hash and the most breached accounts. Its counts have the names of
// Account's fields.
type Summary struct {
	Accounts int `json:"accounts"`
	// RefusedLines counts the lines refused; HistorySkipped the
	// secretsdump history lines left out.
	RefusedLines   int `json:"refused_lines"`
	HistorySkipped int `json:"history_skipped"`
	EmptyPassword  int `json:"empty_password"`
	LMPresent      int `json:"lm_present"`
	// Breached counts the accounts whose hash is in a breach corpus, nil
	// when no account's algorithm has one.
	Breached                *int        `json:"breached"`
	FoundIn                 FoundCounts `json:"found_in"`
	SameAsUsername          int         `json:"same_as_username"`
	DefaultComputerPassword int         `json:"default_computer_password"`
	// SharedWith counts the accounts that share their hash with another,
	// in SharedGroups groups.
	SharedWith   int `json:"shared_with"`
	SharedGroups int `json:"shared_groups"`
	WeakScheme   int `json:"weak_scheme"`
	Locked       int `json:"locked"`
	// Groups are the MaxGroups largest groups of accounts sharing a hash,
	// largest first (then in the order of the dump).
	Groups []Group `json:"groups"`
	// MostBreached are the MostBreached accounts seen most often in a
	// breach, most first.
	MostBreached []BreachedAccount `json:"most_breached"`
}

// FoundCounts counts the passwords found in each place.
type FoundCounts struct {
	Index  int `json:"index"`
	Common int `json:"common"`
}

// Group is a set of accounts that share one hash.
type Group struct {
	// Count is the number of accounts; Accounts names the first
	// MaxGroupNames, in the order of the dump.
	Count    int      `json:"count"`
	Accounts []string `json:"accounts"`
}

// BreachedAccount is an account and its breach count.
type BreachedAccount struct {
	Account  string `json:"account"`
	Line     int    `json:"line"`
	Breached int64  `json:"breached"`
}

// Summary returns the report's summary.
func (r *Report) Summary() Summary { return r.summary }

func (r *Report) summarise(src Sources) {
	a := r.a
	s := Summary{Accounts: len(a.entries), RefusedLines: a.refusedN, HistorySkipped: a.history,
		Groups: []Group{}, MostBreached: []BreachedAccount{}}
	breached, covered := 0, false
	var top []BreachedAccount
	for i := range a.entries {
		e := &a.entries[i]
		f := e.flags
		s.EmptyPassword += b2i(f&flagEmpty != 0)
		s.LMPresent += b2i(f&flagLM != 0)
		s.SameAsUsername += b2i(f&flagSameAsUser != 0)
		s.DefaultComputerPassword += b2i(f&flagDefaultComputer != 0)
		s.Locked += b2i(f&flagLocked != 0)
		s.WeakScheme += b2i(e.alg.Weak())
		if e.group == noGroup {
			continue
		}
		d := &r.dist[e.group]
		s.SharedWith += b2i(r.count(int(e.group)) > 1)
		switch d.found {
		case foundCommon:
			s.FoundIn.Common++
		case foundIndex:
			s.FoundIn.Index++
		}
		covered = covered || d.breached != noSource
		if d.breached > 0 && d.breached != noSource {
			breached++
			top = keepTop(top, BreachedAccount{Account: string(a.names[e.name : e.name+uint32(e.nameLen)]), Line: int(e.line), Breached: int64(d.breached)})
		}
	}
	if covered {
		s.Breached = &breached
	}
	if top != nil {
		s.MostBreached = top
	}
	var groups []uint32
	for k := range r.dist {
		if r.count(k) > 1 {
			groups = append(groups, uint32(k))
		}
	}
	s.SharedGroups = len(groups)
	slices.SortFunc(groups, func(x, y uint32) int { // ties: the group met first in the dump first
		return cmp.Or(cmp.Compare(r.count(int(y)), r.count(int(x))), cmp.Compare(r.perm[r.dist[x].start], r.perm[r.dist[y].start]))
	})
	for _, k := range groups[:min(len(groups), MaxGroups)] {
		d, n := &r.dist[k], r.count(int(k))
		g := Group{Count: int(n)}
		for _, i := range r.perm[d.start : d.start+min(n, MaxGroupNames)] {
			e := &a.entries[i]
			g.Accounts = append(g.Accounts, string(a.names[e.name:e.name+uint32(e.nameLen)]))
		}
		s.Groups = append(s.Groups, g)
	}
	r.summary = s
}

// keepTop inserts b, an account met after those in top, into top: most
// breached first, ties in the order of the dump, MostBreached at most.
func keepTop(top []BreachedAccount, b BreachedAccount) []BreachedAccount {
	i, _ := slices.BinarySearchFunc(top, b, func(x, y BreachedAccount) int {
		return cmp.Or(cmp.Compare(y.Breached, x.Breached), -1) // after its equals
	})
	if i >= MostBreached {
		return top
	}
	top = slices.Insert(top, i, b)
	return top[:min(len(top), MostBreached)]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
