package hashid

import (
	"slices"
	"strings"
)

// Group is the answer for the hashes of a batch that share a shape: the same
// candidates in the same order.
type Group struct {
	Estimate string `json:"estimate"`
	Note     string `json:"note,omitempty"`
	Count    int    `json:"count"`
	// Hashes are the group's members in input order; those longer than
	// maxEchoLen are cut.
	Hashes []string `json:"hashes"`
	// Candidates are the first member's, with only the parameters every
	// member shares (a cost or an iteration count, not a salt).
	Candidates []Candidate `json:"candidates"`
}

// maxEchoLen bounds a hash repeated in a Group.
const maxEchoLen = 256

// IdentifyBatch identifies every hash and groups those of one shape, the
// largest group first (ties in input order).
func IdentifyBatch(hashes []string) []Group {
	var groups []Group
	index := map[string]int{}
	var key []byte
	var buf []match // build copies what it keeps, so matches are scratch
	var conf []float64
	for _, h := range hashes {
		s, ms, note := identify(h, buf)
		if cap(ms) > cap(buf) {
			buf = ms
		}
		conf = rank(ms, conf, len(ms))
		key = shapeKey(key[:0], note, ms)
		i, ok := index[string(key)]
		if !ok {
			i = len(groups)
			index[string(key)] = i
			res := build(s, ms, conf, note)
			groups = append(groups, Group{Estimate: res.Estimate, Note: note, Candidates: res.Candidates})
		} else {
			shareParams(groups[i].Candidates, s, ms)
		}
		g := &groups[i]
		g.Count++
		if len(h) > maxEchoLen {
			h = h[:maxEchoLen] + "…"
		}
		g.Hashes = append(g.Hashes, h)
	}
	// Sort indexes, not the groups: a batch of distinct shapes has hundreds.
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return groups[b].Count - groups[a].Count })
	sorted := make([]Group, len(groups))
	for i, k := range order {
		sorted[i] = groups[k]
	}
	return sorted
}

// shapeKey appends to b the shape of a result: its note and its formats in
// order.
func shapeKey(b []byte, note string, ms []match) []byte {
	b = append(b, note...)
	for _, m := range ms {
		b = append(b, 0, byte(m.f>>8), byte(m.f))
	}
	return b
}

// shareParams drops from the group's candidates every parameter a new
// member's matches (same formats, same order) do not have with that value.
// The group owns its first member's maps, fresh from build; a map two
// candidates share loses the same keys for both.
func shareParams(group []Candidate, s string, ms []match) {
	var mp map[string]any
	for i := range group {
		p := group[i].Params
		if len(p) == 0 {
			continue
		}
		if i == 0 || !sameParams(ms[i], ms[i-1]) {
			mp = ms[i].params(s)
		}
		for k, v := range p {
			if mp[k] != v { // numbers and strings only
				delete(p, k)
			}
		}
	}
	for i := range group {
		if len(group[i].Params) == 0 {
			group[i].Params = nil
		}
	}
}

// Tokens splits a list of hashes as /hash_lookup does, on newlines, commas,
// semicolons and white space, except where a format parses the pieces
// joined: argon2's "m=65536,t=3,p=1", SAP's "{x-issha, 1024}" and Dovecot's
// SCRAM hold commas or spaces. Empty tokens and exact repeats are dropped.
func Tokens(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if !strings.ContainsAny(line, ",; \t") {
			add(line)
			continue
		}
		pieces := separated(line)
		for i := 0; i < len(pieces); {
			end := i
			for k := min(len(pieces)-1, i+maxJoined-1); k > i; k-- {
				if parsesWhole(line[pieces[i][0]:pieces[k][1]]) {
					end = k
					break
				}
			}
			add(line[pieces[i][0]:pieces[end][1]])
			i = end + 1
		}
	}
	return out
}

// maxJoined is the most separated pieces one hash may span (MS-AzureSync's
// "v1;PPH1_MD4,salt,100,hash" has five).
const maxJoined = 5

// separator marks the bytes /hash_lookup splits on within a line.
var separator = [256]bool{',': true, ';': true, ' ': true, '\t': true}

// separated returns the [start, end) offsets of the runs of s between
// separators.
func separated(s string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		sep := i == len(s) || separator[s[i]]
		switch {
		case sep && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		case !sep && start < 0:
			start = i
		}
	}
	return out
}

// parsesWhole reports whether a format fits s better than by its length.
func parsesWhole(s string) bool {
	_, ms, _ := identify(s, nil)
	for _, m := range ms {
		if m.exact > weakExact && m.p >= 0 {
			return true
		}
	}
	return false
}
