package breach_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

type line struct {
	hash  string // upper-case hex
	count int64
}

// randomLines returns n distinct sorted hashes of the kind, uniformly
// spread, with random counts.
func randomLines(r *rand.Rand, n int, kind breach.Kind) []line {
	return spreadLines(r, n, kind, 1)
}

func writeFile(t testing.TB, lines []line, eol string, trailing bool) string {
	t.Helper()
	var b bytes.Buffer
	for i, l := range lines {
		b.WriteString(l.hash)
		b.WriteByte(':')
		b.Write(strconv.AppendInt(b.AvailableBuffer(), l.count, 10))
		if i < len(lines)-1 || trailing {
			b.WriteString(eol)
		}
	}
	path := filepath.Join(t.TempDir(), "pwned.txt")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// uniformFile writes a file of about lines uniformly spread hashes of the
// kind (breachtest.WriteUniform) in a new temporary folder, and returns its
// path, its content and its number of lines.
func uniformFile(t testing.TB, lines float64, kind breach.Kind, seed uint64) (path string, content []byte, n int64) {
	t.Helper()
	var b bytes.Buffer
	n, _, err := breachtest.WriteUniform(&b, lines, kind, seed)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "uniform.txt")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes(), n
}

func open(t testing.TB, path string, kind breach.Kind) *breach.File {
	t.Helper()
	f, err := breach.OpenFile(path, kind)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func mustHex(t testing.TB, s string) []byte {
	d, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestKnownVectors(t *testing.T) {
	if got, want := strings.ToUpper(hex.EncodeToString(breach.SHA1("password"))), "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got, want := strings.ToUpper(hex.EncodeToString(breach.NTLM("password"))), "8846F7EAEE8FB117AD06BDD830B7586C"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// linearCount is the reference the binary search must agree with.
func linearCount(lines []line, h string) (int64, bool) {
	for _, l := range lines {
		if l.hash == h {
			return l.count, true
		}
	}
	return 0, false
}

func TestCountMatchesLinearScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		for _, eol := range []string{"\n", "\r\n"} {
			for _, trailing := range []bool{true, false} {
				for _, n := range []int{1, 2, 3, 50, 200, 3000} {
					name := fmt.Sprintf("%v/eol=%q/trailing=%v/n=%d", kind, eol, trailing, n)
					t.Run(name, func(t *testing.T) {
						lines := randomLines(r, n, kind)
						f := open(t, writeFile(t, lines, eol, trailing), kind)
						probes := []string{lines[0].hash, lines[n-1].hash, lines[n/2].hash}
						for range 100 {
							probes = append(probes, lines[r.IntN(n)].hash)
						}
						for _, absent := range randomLines(r, 50, kind) {
							probes = append(probes, absent.hash)
						}
						probes = append(probes, strings.Repeat("0", 2*kind.DigestLen()), strings.Repeat("F", 2*kind.DigestLen()))
						for _, h := range probes {
							gotN, gotOK, err := f.Count(mustHex(t, h))
							if err != nil {
								t.Fatal(err)
							}
							wantN, wantOK := linearCount(lines, h)
							if gotN != wantN || gotOK != wantOK {
								t.Fatalf("%s: got (%d, %v), want (%d, %v)", h, gotN, gotOK, wantN, wantOK)
							}
						}
					})
				}
			}
		}
	}
}

func linearRange(lines []line, prefix string) []breach.RangeEntry {
	out := []breach.RangeEntry{}
	for _, l := range lines {
		if strings.HasPrefix(l.hash, prefix) {
			out = append(out, breach.RangeEntry{Suffix: l.hash[len(prefix):], Count: l.count})
		}
	}
	return out
}

func TestRange(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lines := randomLines(r, 2000, breach.KindSHA1)
	// Many lines sharing prefixes, including at the very start and end of the file.
	for i := range 300 {
		for _, p := range []string{"00000", "ABCDE", "FFFFF"} {
			lines = append(lines, line{p + fmt.Sprintf("%035X", i*7919), int64(i + 1)})
		}
	}
	slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.hash, b.hash) })
	for _, eol := range []string{"\n", "\r\n"} {
		f := open(t, writeFile(t, lines, eol, true), breach.KindSHA1)
		for _, prefix := range []string{"00000", "abcde", "FFFFF", lines[1000].hash[:5], "12345", "7fFfF"} {
			got, err := f.Range(prefix)
			if err != nil {
				t.Fatal(err)
			}
			want := linearRange(lines, strings.ToUpper(prefix))
			if !slices.Equal(got, want) {
				t.Fatalf("%s: got %d entries, want %d", prefix, len(got), len(want))
			}
		}
		for _, bad := range []string{"", "1234", "123456", "1234G"} {
			if _, err := f.Range(bad); !errors.Is(err, breach.ErrBadPrefix) {
				t.Fatalf("%q: got %v, want ErrBadPrefix", bad, err)
			}
		}
	}
	if got := len(linearRange(lines, "00000")); got != 300 {
		t.Fatalf("got %v, want %v", got, 300)
	}
}

func TestLowerCaseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lower.txt")
	content := "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8:10437277\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, breach.KindSHA1)
	n, ok, err := f.Count(breach.SHA1("password"))
	if err != nil || !ok || n != 10437277 {
		t.Fatalf("got (%d, %v, %v), want (10437277, true, nil)", n, ok, err)
	}
	got, err := f.Range("5baa6")
	if err != nil || len(got) != 1 || got[0].Suffix != "1E4C9B93F3F0682250B6CF8331B7EE68FD8" {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestOpenFileRejectsMalformed(t *testing.T) {
	sha := "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8"
	cases := map[string]struct {
		content string
		kind    breach.Kind
	}{
		"empty":           {"", breach.KindSHA1},
		"blank line":      {"\n", breach.KindSHA1},
		"no count":        {sha + "\n", breach.KindSHA1},
		"empty count":     {sha + ":\n", breach.KindSHA1},
		"non-hex":         {strings.Replace(sha, "5", "Z", 1) + ":3\n", breach.KindSHA1},
		"ntlm as sha1":    {"8846F7EAEE8FB117AD06BDD830B7586C:3\n", breach.KindSHA1},
		"sha1 as ntlm":    {sha + ":3\n", breach.KindNTLM},
		"negative count":  {sha + ":-3\n", breach.KindSHA1},
		"huge count":      {sha + ":1234567890123456789\n", breach.KindSHA1},
		"text file":       {"hello world, this is not a hash list\n", breach.KindSHA1},
		"space separator": {sha + " 3\n", breach.KindSHA1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.txt")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := breach.OpenFile(path, c.kind)
			if err == nil {
				f.Close()
				t.Fatal("got nil error")
			}
			if !strings.Contains(err.Error(), "HASH") && !strings.Contains(err.Error(), "hex digits") {
				t.Fatalf("error does not name the format: %v", err)
			}
		})
	}
	if _, err := breach.OpenFile(filepath.Join(t.TempDir(), "missing"), breach.KindSHA1); err == nil {
		t.Fatal("missing file: got nil error")
	}
}

func TestMalformedLineInsideFile(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lines := randomLines(r, 5000, breach.KindSHA1)
	path := writeFile(t, lines, "\n", true)
	data, _ := os.ReadFile(path)
	mid := len(data) / 2
	for data[mid] != '\n' {
		mid++
	}
	data = slices.Insert(data, mid+1, []byte("garbage\n")...)
	os.WriteFile(path, data, 0o600)
	f := open(t, path, breach.KindSHA1)
	var sawErr bool
	for _, l := range lines {
		if _, _, err := f.Count(mustHex(t, l.hash)); err != nil {
			if !errors.Is(err, breach.ErrMalformed) {
				t.Fatalf("got %v, want ErrMalformed", err)
			}
			sawErr = true
		}
	}
	if !sawErr {
		t.Fatal("no lookup noticed the malformed line")
	}
}

func TestCountWrongDigestLength(t *testing.T) {
	f := open(t, writeFile(t, randomLines(rand.New(rand.NewPCG(7, 8)), 10, breach.KindNTLM), "\n", true), breach.KindNTLM)
	if _, _, err := f.Count(breach.SHA1("x")); !errors.Is(err, breach.ErrDigestLength) {
		t.Fatalf("got %v, want ErrDigestLength", err)
	}
	if got, want := f.Kind(), breach.KindNTLM; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestConcurrentCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	lines := randomLines(r, 20000, breach.KindSHA1)
	f := open(t, writeFile(t, lines, "\r\n", false), breach.KindSHA1)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(lines); i += 37 {
				n, ok, err := f.Count(mustHex(t, lines[i].hash))
				if err != nil || !ok || n != lines[i].count {
					errs <- fmt.Errorf("%s: got (%d, %v, %v)", lines[i].hash, n, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestListSourceHashesAtFirstLookup holds NewListSource to what its doc
// says: it hashes nothing until it is asked, so a server that never is
// spends nothing on it at start. Not parallel: it reads the allocation
// total of the whole process, which paused parallel tests leave alone.
func TestListSourceHashesAtFirstLookup(t *testing.T) {
	words := make([]string, 30000)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := breach.NewListSource("list", words, breach.KindSHA1)
	runtime.ReadMemStats(&after)
	// Hashing 30,000 words allocates about 1.7 MB: their hex digests and
	// the slice of them.
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 64<<10 {
		t.Fatalf("NewListSource allocated %d bytes before any lookup", allocated)
	}
	if _, ok, err := s.Count(breach.SHA1("word29999")); err != nil || !ok {
		t.Fatalf("the first lookup: found %v, %v", ok, err)
	}
}

func TestSources(t *testing.T) {
	words := []string{"password", "123456", "qwerty", "password"}
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		s := breach.NewListSource("embedded common-password list", words, kind)
		hash := breach.SHA1
		if kind == breach.KindNTLM {
			hash = breach.NTLM
		}
		if n, ok, err := s.Count(hash("password")); err != nil || !ok || n != 0 {
			t.Fatalf("%v: got (%d, %v, %v), want (0, true, nil)", kind, n, ok, err)
		}
		if _, ok, _ := s.Count(hash("correct horse battery staple")); ok {
			t.Fatalf("%v: absent word found", kind)
		}
		prefix := strings.ToUpper(hex.EncodeToString(hash("qwerty")))[:5]
		got, err := s.Range(strings.ToLower(prefix))
		if err != nil || len(got) != 1 || prefix+got[0].Suffix != strings.ToUpper(hex.EncodeToString(hash("qwerty"))) {
			t.Fatalf("%v: range got %v, %v", kind, got, err)
		}
		if got, want := s.Kind(), kind; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
	}

	lines := []line{{"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8", 10437277}}
	fs := breach.NewFileSource(open(t, writeFile(t, lines, "\n", true), breach.KindSHA1))
	if n, ok, err := fs.Count(breach.SHA1("password")); err != nil || !ok || n != 10437277 {
		t.Fatalf("got (%d, %v, %v)", n, ok, err)
	}
	if got, want := fs.Name(), "pwned-passwords file"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got, err := fs.Range("5BAA6"); err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestParseQuery(t *testing.T) {
	sha := "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"
	ntlm := "8846F7EAEE8FB117AD06BDD830B7586C"
	cases := []struct {
		name                         string
		password, sha1, ntlm, prefix string
		wantErr                      error
		wantKind                     breach.Kind
	}{
		{"password", "password", "", "", "", nil, breach.KindSHA1},
		{"sha1", "", sha, "", "", nil, breach.KindSHA1},
		{"ntlm", "", "", ntlm, "", nil, breach.KindNTLM},
		{"prefix", "", "", "", "5baa6", nil, breach.KindSHA1},
		{"none", "", "", "", "", breach.ErrQueryFields, 0},
		{"two", "password", sha, "", "", breach.ErrQueryFields, 0},
		{"short sha1", "", sha[:39], "", "", breach.ErrBadSHA1, 0},
		{"bad sha1", "", "X" + sha[1:], "", "", breach.ErrBadSHA1, 0},
		{"bad ntlm", "", "", sha, "", breach.ErrBadNTLM, 0},
		{"bad prefix", "", "", "", "5baa", breach.ErrBadPrefix, 0},
		{"long password", strings.Repeat("a", breach.MaxPasswordBytes+1), "", "", "", breach.ErrLongPassword, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := breach.ParseQuery(c.password, c.sha1, c.ntlm, c.prefix)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("got %v, want %v", err, c.wantErr)
			}
			if err == nil && q.Kind != c.wantKind {
				t.Fatalf("got %v, want %v", q.Kind, c.wantKind)
			}
		})
	}
	q, _ := breach.ParseQuery("password", "", "", "")
	if got, want := hex.EncodeToString(q.Digest), sha; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	q, _ = breach.ParseQuery("", "", "", "5baa6")
	if got, want := q.Prefix, "5BAA6"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func FuzzParseQuery(f *testing.F) {
	f.Add("password", "", "", "")
	f.Add("", "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8", "", "")
	f.Add("", "", "8846F7EAEE8FB117AD06BDD830B7586C", "")
	f.Add("", "", "", "5baa6")
	f.Add("x", "y", "z", "w")
	f.Fuzz(func(t *testing.T, password, sha1hex, ntlmhex, prefix string) {
		q, err := breach.ParseQuery(password, sha1hex, ntlmhex, prefix)
		if err != nil {
			return
		}
		if q.Prefix != "" {
			if len(q.Prefix) != breach.PrefixLen || q.Digest != nil || strings.ToUpper(q.Prefix) != q.Prefix {
				t.Fatalf("bad prefix query %+v", q)
			}
			return
		}
		if len(q.Digest) != q.Kind.DigestLen() {
			t.Fatalf("digest length %d for kind %v", len(q.Digest), q.Kind)
		}
	})
}

func TestOpenFileDirectory(t *testing.T) {
	if _, err := breach.OpenFile(t.TempDir(), breach.KindSHA1); err == nil {
		t.Fatal("directory: got nil error")
	}
}

// FuzzCorruptFile overwrites part of a valid file with arbitrary bytes:
// lookups, single or in a batch, may fail or miss, but must not panic or
// loop.
func FuzzCorruptFile(f *testing.F) {
	f.Add(uint64(1), uint16(3000), []byte("garbage\n"), "5BAA6")
	f.Add(uint64(2), uint16(10), []byte(":\r\n\n\n"), "00000")
	f.Add(uint64(3), uint16(60000), []byte(strings.Repeat("A", 300)), "FFFFF")
	f.Fuzz(func(t *testing.T, seed uint64, pos uint16, garbage []byte, prefix string) {
		lines := randomLines(rand.New(rand.NewPCG(seed, 0)), 400, breach.KindSHA1)
		path := writeFile(t, lines, "\n", true)
		data, _ := os.ReadFile(path)
		at := min(int(pos), len(data))
		data = append(data[:at], append(garbage, data[min(at+len(garbage), len(data)):]...)...)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := breach.OpenFile(path, breach.KindSHA1)
		if err != nil {
			return
		}
		defer file.Close()
		var digests [][]byte
		for _, l := range lines[:20] {
			file.Count(mustHex(t, l.hash))
			digests = append(digests, mustHex(t, l.hash))
		}
		if hits, err := file.CountMany(context.Background(), append(digests, breach.SHA1(prefix)), nil); err == nil && len(hits) != len(digests)+1 {
			t.Fatalf("%d answers for %d digests", len(hits), len(digests)+1)
		}
		file.Count(breach.SHA1(prefix))
		if entries, err := file.Range(prefix); err == nil && len(entries) > breach.MaxRangeEntries {
			t.Fatalf("%d entries exceed the bound", len(entries))
		}
		for _, pad := range []bool{false, true} {
			if answer, err := file.AppendRange(nil, prefix, pad); err == nil && strings.Count(string(answer), "\n") >= max(breach.MaxRangeEntries, breach.MaxPaddedLines) {
				t.Fatalf("an answer of %d lines exceeds the bound", strings.Count(string(answer), "\n")+1)
			}
		}
	})
}

func TestHasCounts(t *testing.T) {
	if breach.HasCounts(breach.NewListSource("list", []string{"password"}, breach.KindSHA1)) {
		t.Error("a word list has no counts")
	}
	path := filepath.Join(t.TempDir(), "pwned.txt")
	if err := os.WriteFile(path, []byte("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := breach.OpenFile(path, breach.KindSHA1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !breach.HasCounts(breach.NewFileSource(f)) {
		t.Error("a Pwned Passwords file has counts")
	}
}
