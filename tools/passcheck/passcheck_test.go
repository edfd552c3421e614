package passcheck_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"secutil/tools/breach"
	"secutil/tools/passcheck"
	"secutil/tools/strength"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		password string
		score    int
		label    string
		entropy  float64
		common   bool
	}{
		{"password", 0, "very weak", 37.6, true},
		{"Password", 0, "very weak", 45.6, true}, // common lower-cased
		{"correct horse battery staple", 4, "very strong", 164.71, false},
		{"", 0, "very weak", 0, false},
		{strings.Repeat("é", strength.MaxPasswordLength), 1, "weak", 1700.83, false},
	} {
		got, err := passcheck.Check(c.password)
		if err != nil {
			t.Errorf("%q: %v", c.password, err)
			continue
		}
		want := passcheck.Result{Score: c.score, Label: c.label, Entropy: c.entropy, Common: c.common}
		if got != want {
			t.Errorf("%q: got %+v, want %+v", c.password, got, want)
		}
	}
	for _, c := range []struct {
		password string
		err      error
	}{
		{strings.Repeat("a", strength.MaxPasswordLength+1), passcheck.ErrTooLong},
		{"pass\xffword", passcheck.ErrNotUTF8},
	} {
		if _, err := passcheck.Check(c.password); !errors.Is(err, c.err) {
			t.Errorf("%.20q: error %v, want %v", c.password, err, c.err)
		}
	}
}

// TestResultJSON: the field names, and a null count when no corpus was
// asked.
func TestResultJSON(t *testing.T) {
	t.Parallel()
	r, _ := passcheck.Check("password")
	b, _ := json.Marshal(r)
	if want := `{"score":0,"label":"very weak","entropy":37.6,"common":true,"breached":null}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// fakeSource is a breach corpus of the kind in memory: the count of each
// hex digest it holds.
type fakeSource struct {
	kind   breach.Kind
	counts map[string]int64
}

func (f fakeSource) Name() string                              { return "fake" }
func (f fakeSource) Kind() breach.Kind                         { return f.kind }
func (f fakeSource) Range(string) ([]breach.RangeEntry, error) { return nil, nil }
func (f fakeSource) Count(d []byte) (int64, bool, error) {
	n, ok := f.counts[hex.EncodeToString(d)]
	return n, ok, nil
}
func (f fakeSource) CountMany(_ context.Context, digests [][]byte, _ breach.Progress) ([]breach.Hit, error) {
	hits := make([]breach.Hit, len(digests))
	for i, d := range digests {
		if len(d) != f.kind.DigestLen() {
			return nil, breach.ErrDigestLength
		}
		hits[i].Count, hits[i].Found, _ = f.Count(d)
	}
	return hits, nil
}

// TestAddBreached: each result gets its own password's count, 0 for one
// the corpus lacks, nil for a skipped one; an NTLM corpus is asked NT
// hashes.
func TestAddBreached(t *testing.T) {
	t.Parallel()
	passwords := []string{"hunter2", "not in the corpus", "skipped", "password", "hunter2"}
	for kind, hash := range map[breach.Kind]func(string) []byte{breach.KindSHA1: breach.SHA1, breach.KindNTLM: breach.NTLM} {
		src := fakeSource{kind, map[string]int64{}}
		for p, n := range map[string]int64{"password": 424242, "hunter2": 17, "skipped": 5} {
			src.counts[hex.EncodeToString(hash(p))] = n
		}
		results := make([]passcheck.Result, len(passwords))
		err := passcheck.AddBreached(context.Background(), src, passwords, results, func(i int) bool { return passwords[i] == "skipped" })
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []int64{17, 0, -1, 424242, 17} {
			got := results[i].Breached
			if want < 0 && got != nil || want >= 0 && (got == nil || *got != want) {
				t.Errorf("%s: %q: breached %v, want %d (-1: nil)", kind, passwords[i], got, want)
			}
		}
	}
}

func TestAddBreachedMismatch(t *testing.T) {
	t.Parallel()
	src := breach.NewListSource("list", []string{"a"}, breach.KindSHA1)
	if err := passcheck.AddBreached(context.Background(), src, []string{"a", "b"}, make([]passcheck.Result, 1), nil); err == nil {
		t.Error("two passwords and one result: no error")
	}
}

// FuzzCheck: any input is rated or refused, never a panic; a rated one
// has a score in 0..4 with its label, the estimate's score and entropy and
// IsCommon's answer, and is refused exactly when it is not UTF-8 or too
// long.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"", "password", "Tr0ub4dor&3", "\xff", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, password string) {
		r, err := passcheck.Check(password)
		refuse := !utf8.ValidString(password) || utf8.RuneCountInString(password) > strength.MaxPasswordLength
		if (err != nil) != refuse {
			t.Fatalf("%q: error %v, want refused %v", password, err, refuse)
		}
		if err == nil && (r.Score < 0 || r.Score > 4 || r.Label != strength.Label(r.Score) || r.Breached != nil) {
			t.Fatalf("%q: %+v", password, r)
		}
		// A rated password gets exactly what the API's own calls answer.
		if err == nil {
			est := strength.Estimate(password)
			if want := (passcheck.Result{Score: est.Score, Label: est.Label, Entropy: est.Entropy, Common: strength.IsCommon(password)}); r != want {
				t.Fatalf("%q: %+v, want %+v", password, r, want)
			}
		}
	})
}
