package passcheck_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// pwnedFile writes a Pwned Passwords file of the kind with the passwords'
// counts, sorted by hash as the download is.
func pwnedFile(t *testing.T, kind breach.Kind, counts map[string]int64) *breach.File {
	t.Helper()
	hash := map[breach.Kind]func(string) []byte{breach.KindSHA1: breach.SHA1, breach.KindNTLM: breach.NTLM}[kind]
	var lines []string
	for p, n := range counts {
		lines = append(lines, strings.ToUpper(hex.EncodeToString(hash(p)))+":"+itoa(n))
	}
	slices.Sort(lines)
	path := filepath.Join(t.TempDir(), "pwned.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\r\n")+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := breach.OpenFile(path, kind)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestAddBreached: each result gets its own password's count, 0 for one
// the corpus lacks, nil for a skipped one; an NTLM corpus is asked NT
// hashes.
func TestAddBreached(t *testing.T) {
	t.Parallel()
	counts := map[string]int64{"password": 424242, "hunter2": 17, "Summer2024!": 3}
	passwords := []string{"hunter2", "not in the corpus", "skipped", "password", "hunter2"}
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		src := breach.NewFileSource(pwnedFile(t, kind, counts))
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
// has a score in 0..4 with its label, and is refused exactly when it is
// not UTF-8 or too long.
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
	})
}
