package hashid

import (
	"slices"
	"strings"
	"testing"
)

// dispatchInputs are strings of the shapes a file of hashes holds, and the
// example of every hashcat mode and real tool.
func dispatchInputs(t *testing.T) []string {
	const emptyLM, nt = "aad3b435b51404eeaad3b435b51404ee", "8846f7eaee8fb117ad06bdd830b7586c"
	sha512c := "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/"
	in := []string{
		nt, strings.ToUpper(nt), "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", emptyLM + ":" + nt,
		"u9:1009:" + emptyLM + ":" + nt + ":::", `CORP\u1:1001:` + emptyLM + ":" + nt + "::: (status=Enabled)",
		"u6@example.com:" + nt, "root:" + sha512c + ":19000:0:99999:7:::", "u7:!*:20000:0:99999:7:::",
		"password", "Summer2024!", "correct horse battery staple", "48916053", "{SSHA}abcdefgh",
	}
	for _, ex := range FixtureExamples(t) {
		in = append(in, ex, "user:"+ex)
	}
	return in
}

// TestAdmitsEveryMatch: a pattern's first and last bytes never leave out an
// input it matches, for every pattern and every input of dispatchInputs
// (and each part of it a user:hash or shadow reading looks at).
func TestAdmitsEveryMatch(t *testing.T) {
	t.Parallel()
	loadTables()
	for _, s := range dispatchInputs(t) {
		parts := []string{s}
		if _, rest, ok := strings.Cut(s, ":"); ok && rest != "" {
			parts = append(parts, rest)
		}
		for _, part := range parts {
			for _, p := range compiled {
				if _, ok := p.match(part, nil); ok && !p.admits(part) {
					t.Errorf("pattern %q matches %.60q but does not admit it", p.src, part)
				}
			}
		}
	}
}

// TestRankMemo: a remembered ranking is rank's own, whether the shape was
// seen before or not, and a shape whose fingerprint matches a remembered
// one but whose matches differ is ranked afresh.
func TestRankMemo(t *testing.T) {
	t.Parallel()
	loadTables()
	var rm rankMemo
	check := func(s string, ms []match) {
		t.Helper()
		want := slices.Clone(ms)
		wantConf := rank(want, nil, min(len(want), LineCandidates))
		for _, shown := range []int{1, min(len(ms), LineCandidates)} {
			got := slices.Clone(ms)
			conf := rm.rank(got, nil, shown)
			if !slices.Equal(conf, wantConf[:shown]) {
				t.Fatalf("%.40q, %d shown: confidences %v, want %v", s, shown, conf, wantConf[:shown])
			}
			for i := range shown {
				if got[i].f != want[i].f || got[i].p != want[i].p || got[i].start != want[i].start || got[i].via != want[i].via {
					t.Fatalf("%.40q, %d shown: match %d is %s, want %s", s, shown, i, got[i].format().name, want[i].format().name)
				}
			}
		}
	}
	for range 2 { // the second round meets every shape remembered
		for _, s := range dispatchInputs(t) {
			_, ms, _ := identify(s, nil)
			if len(ms) == 0 {
				continue
			}
			check(s, ms)
			if len(ms) >= 5 {
				// The fingerprint reads matches 0, len/2 and len-1: change
				// match 1, and the remembered shape must not answer.
				other := slices.Clone(ms)
				other[1].bits += 3
				other[1].exact--
				check(s+" (changed)", other)
			}
		}
	}
}

// TestAddRowRefusesDisorder: a format whose second pattern would be met
// before its first in one place of the indexes is refused.
func TestAddRowRefusesDisorder(t *testing.T) {
	t.Parallel()
	loadTables() // for the format's name in the panic
	a, b := compilePattern("<hex:32>"), compilePattern("<lhex:32>")
	reaches := addRow(nil, a, patternRow{f: 1, i: 0})
	reaches = addRow(reaches, b, patternRow{f: 1, i: 1}) // a is met first: in order
	reaches = addRow(reaches, a, patternRow{f: 2, i: 0}) // one pattern, two rows
	if len(reaches) != 2 || len(reaches[0].rows) != 2 || len(reaches[1].rows) != 1 {
		t.Fatalf("reaches: %+v", reaches)
	}
	reaches = addRow(reaches, b, patternRow{f: 3, i: 0})
	defer func() {
		if recover() == nil {
			t.Error("addRow took a format's second pattern where it is met before its first")
		}
	}()
	addRow(reaches, a, patternRow{f: 3, i: 1})
}
