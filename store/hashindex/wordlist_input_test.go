package hashindex_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/store/hashindex"
)

// md5Hex is the md5 digest of word in hex.
func md5Hex(word string) string {
	sum := md5.Sum([]byte(word))
	return hex.EncodeToString(sum[:])
}

// gzipped compresses data with gzip.
func gzipped(t testing.TB, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bzipped compresses data with the bzip2 command (compress/bzip2 only reads), or skips
// the test without it.
func bzipped(t testing.TB, data string) []byte {
	t.Helper()
	path, err := exec.LookPath("bzip2")
	if err != nil {
		t.Skip("no bzip2 command")
	}
	cmd := exec.Command(path, "-c")
	cmd.Stdin = strings.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tempFile writes data to a file of the given name and opens it.
func tempFile(t testing.TB, name string, data []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// importFile imports data from a file of the given name, through an *os.File, as
// import-wordlist does.
func importFile(t testing.TB, ix *hashindex.Index, name string, data []byte, algorithms []string) (hashindex.Stats, error) {
	t.Helper()
	return ix.Import(context.Background(), tempFile(t, name, data), algorithms, nil)
}

// TestImportCompressed: gzip and bzip2 input is read decompressed whatever the file's
// name (several members or streams one after the other included), and a plain file named
// like a compressed one is read as it is.
func TestImportCompressed(t *testing.T) {
	t.Parallel()
	list := "alpha\r\nbeta\n\ngamma\n" + strings.Repeat("x", hashindex.MaxWordBytes+1) + "\ndelta"
	words := []string{"alpha", "beta", "gamma", "delta"}
	fixture, err := os.ReadFile("testdata/words-bzip2.txt") // made with bzip2 -9
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		data    func(t *testing.T) []byte
		words   []string
		skipped int64
	}{
		{"list.txt", func(*testing.T) []byte { return []byte(list) }, words, 1},
		{"list.txt.gz", func(*testing.T) []byte { return []byte(list) }, words, 1},
		{"rockyou.txt", func(t *testing.T) []byte { return gzipped(t, list) }, words, 1},
		{"two-members", func(t *testing.T) []byte {
			return append(gzipped(t, "alpha\nbeta\n"), gzipped(t, "gamma\ndelta\n")...)
		}, words, 0},
		{"words-bzip2.txt", func(*testing.T) []byte { return fixture }, []string{"bzip2word1", "bzip2word2", "bzip2word3"}, 0},
		{"list.bz2", func(t *testing.T) []byte { return bzipped(t, list) }, words, 1},
		{"two-streams.bin", func(t *testing.T) []byte {
			return append(bzipped(t, "alpha\nbeta\n"), bzipped(t, "gamma\ndelta")...)
		}, words, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ix := mustOpen(t)
			stats, err := importFile(t, ix, c.name, c.data(t), []string{"md5"})
			if err != nil {
				t.Fatal(err)
			}
			if stats.Words != int64(len(c.words)) || stats.NewWords != int64(len(c.words)) || stats.Skipped != c.skipped {
				t.Errorf("got %+v, want %d new words and %d skipped", stats, len(c.words), c.skipped)
			}
			for _, w := range c.words {
				if hit := mustLookup(t, ix, md5Hex(w), []string{"md5"}); hit.Plaintext != w {
					t.Errorf("%s: got %+v", w, hit)
				}
			}
		})
	}
}

// TestImportCompressedProgress: the bytes a progress report counts of a compressed file
// are the file's own, so that the share read and the time left are right.
func TestImportCompressedProgress(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	hashindex.SetBatchWords(ix, 1000)
	var list strings.Builder
	r := rand.New(rand.NewPCG(1, 1))
	for range 20_000 {
		list.WriteString(hex.EncodeToString(binaryWord(r)) + "\n")
	}
	data := gzipped(t, list.String())
	var reports []int64
	if _, err := ix.Import(context.Background(), tempFile(t, "list.gz", data), []string{"md5"}, func(p hashindex.Progress) { reports = append(reports, p.Bytes) }); err != nil {
		t.Fatal(err)
	}
	if len(reports) != 20 || !slices.IsSorted(reports) || reports[len(reports)-1] > int64(len(data)) || reports[len(reports)-1] < int64(len(data))*9/10 {
		t.Errorf("progress bytes %v, want 20 growing reports ending near the file's %d bytes", reports, len(data))
	}
}

func binaryWord(r *rand.Rand) []byte {
	w := make([]byte, 8)
	for i := range w {
		w[i] = byte(r.UintN(256))
	}
	return w
}

// indexFiles lists the files of the index's run directory (the lock files aside).
func indexFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestImportRefusesBinary: input that is not a wordlist is refused with an error naming
// the file, and the index is left as it was: no word, entry, list record or run file.
// Text in an 8-bit encoding is not refused.
func TestImportRefusesBinary(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 3))
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	noNUL := bytes.ReplaceAll(random[:2000], []byte{0}, []byte{1})
	utf16 := []byte("\xff\xfe")
	for _, c := range "password\n123456\n" {
		utf16 = append(utf16, byte(c), 0)
	}
	ix, path := mustOpenPath(t)
	mustImport(t, ix, "password\nletmein\n", nil)
	for _, c := range []struct {
		name, reason string
		data         []byte
	}{
		{"random.txt", "NUL bytes", random},
		{"random-no-nul.txt", "control characters", noNUL},
		{"elf", "NUL bytes", append([]byte("\x7fELF\x02\x01\x01\x00"), random[:500]...)},
		{"binary.gz", "NUL bytes", gzipped(t, string(random))},
		{"list.xz", "compressed with xz", []byte("\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46")},
		{"list.zst", "compressed with zstd", []byte("\x28\xb5\x2f\xfd\x04\x58")},
		{"list.zip", "compressed with zip", []byte("PK\x03\x04\x14\x00")},
		{"list-utf16.txt", "UTF-16", utf16},
	} {
		// One after the other on one index: each refusal must leave it as it was.
		t.Run(c.name, func(t *testing.T) {
			before, err := ix.Summary(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			files := indexFiles(t, path+"-runs")
			_, err = importFile(t, ix, c.name, c.data, nil)
			var refused *hashindex.NotWordlistError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.reason) || !strings.Contains(err.Error(), "nothing was imported") {
				t.Fatalf("got %v, want a refusal naming %s and saying %q", err, c.name, c.reason)
			}
			after, err := ix.Summary(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			after.Bytes = before.Bytes // the write-ahead log may have been checkpointed
			if !equalSummaries(before, after) {
				t.Errorf("summary changed from %+v to %+v", before, after)
			}
			if got := indexFiles(t, path+"-runs"); !slices.Equal(got, files) {
				t.Errorf("run files changed from %v to %v", files, got)
			}
			if orphans, err := ix.Check(context.Background()); err != nil || orphans != 0 {
				t.Errorf("check: %d orphans, %v", orphans, err)
			}
		})
	}
	for _, text := range []string{
		"caf\xe9\nna\xefve\nstra\xdfe\n",                       // Latin-1
		"\xcf\xf0\xe8\xe2\xe5\xf2\n\xef\xe0\xf0\xee\xeb\xfc\n", // CP1251
		"one\x1bescape\nand\ttab\nand\fform feed\n",            // a control character in a word
	} {
		if _, err := importFile(t, ix, "list.txt", []byte(text), nil); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func equalSummaries(a, b hashindex.Summary) bool {
	return a.Words == b.Words && a.Bytes == b.Bytes && slices.Equal(a.Entries, b.Entries) &&
		slices.EqualFunc(a.Lists, b.Lists, func(x, y hashindex.ImportedList) bool {
			return x.Name == y.Name && x.Imported.Equal(y.Imported) && x.Words == y.Words && x.NewWords == y.NewWords &&
				x.Entries == y.Entries && x.Skipped == y.Skipped && slices.Equal(x.Algorithms, y.Algorithms)
		})
}

// TestHexWords: a word that is not valid UTF-8 (or holds a control character) is stored
// as its bytes and answered in hashcat's $HEX[...] form; a $HEX[...] line imports as the bytes it stands for, so that
// the answers import back as the same words.
func TestHexWords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ab", hashindex.MaxWordBytes)
	cases := []struct {
		line, word, answer string
	}{
		{"caf\xe9", "caf\xe9", "$HEX[636166e9]"},
		{"\x80\xff", "\x80\xff", "$HEX[80ff]"},
		{"$HEX[00FF]", "\x00\xff", "$HEX[00ff]"},
		{"$HEX[70617373776f7264]", "password", "password"},
		{"$HEX[C3A9T\xe9]", "$HEX[C3A9T\xe9]", "$HEX[" + hex.EncodeToString([]byte("$HEX[C3A9T\xe9]")) + "]"},
		{"$HEX[c3a9]", "é", "é"},
		{"$HEX[0a41]", "\nA", "$HEX[0a41]"},
		{"tab\there", "tab\there", "$HEX[" + hex.EncodeToString([]byte("tab\there")) + "]"},
		{"$HEX[zz]", "$HEX[zz]", "$HEX[" + hex.EncodeToString([]byte("$HEX[zz]")) + "]"},
		{"$HEX[abc]", "$HEX[abc]", "$HEX[" + hex.EncodeToString([]byte("$HEX[abc]")) + "]"},
		{"$HEX[" + long + "]", strings.Repeat("\xab", hashindex.MaxWordBytes), "$HEX[" + long + "]"},
		{"pässwörd", "pässwörd", "pässwörd"},
	}
	// The words are distinct, so one index holds them all: each line's digest finds its
	// own word only.
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	ix := mustOpen(t)
	mustImport(t, ix, strings.Join(lines, "\n")+"\n", []string{"md5"})
	var hits []hashindex.Hit
	for _, c := range cases {
		hit := mustLookup(t, ix, md5Hex(c.word), []string{"md5"})
		if !hit.Found || hit.Plaintext != c.answer {
			t.Errorf("%q: got %+v, want the answer %q", c.line, hit, c.answer)
		}
		hits = append(hits, hit)
	}
	if t.Failed() {
		return
	}
	// The answers, imported into another index, are the same words: as many new words
	// as lines, each found by its digest with the same answer.
	var answers []string
	for _, hit := range hits {
		answers = append(answers, hit.Plaintext)
	}
	again := mustOpen(t)
	if stats := mustImport(t, again, strings.Join(answers, "\n")+"\n", []string{"md5"}); stats.NewWords != int64(len(cases)) {
		t.Errorf("the answers import as %d new words, want %d: %+v", stats.NewWords, len(cases), stats)
	}
	for i, c := range cases {
		if back := mustLookup(t, again, md5Hex(c.word), []string{"md5"}); back != hits[i] {
			t.Errorf("%q: the answer %q imports as another word: %+v", c.line, hits[i].Plaintext, back)
		}
	}
	// $HEX[] is an empty word, ignored; a $HEX[...] of more than MaxWordBytes bytes is skipped.
	stats := mustImport(t, ix, "$HEX[]\n$HEX["+long+"00]\nok\n", []string{"md5"})
	if stats.Words != 1 || stats.Skipped != 1 {
		t.Errorf("got %+v, want 1 word and 1 skipped", stats)
	}
}

// TestSummary: the words, entries by algorithm, imported lists and size an index reports.
func TestSummary(t *testing.T) {
	t.Parallel()
	ix, path := mustOpenPath(t)
	ctx := context.Background()
	empty, err := ix.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Words != 0 || len(empty.Lists) != 0 || len(empty.Entries) != len(hashindex.Algorithms) || empty.Bytes <= 0 {
		t.Fatalf("empty index: %+v", empty)
	}
	start := time.Now().Add(-time.Second)
	if err := ix.EnsureSeeded(ctx, []string{"password", "123456", "qwerty"}); err != nil {
		t.Fatal(err)
	}
	// 5 lines, 4 distinct words of which 1 (password) is held, 1 skipped; md5 and sha1
	// (sha256 is always added).
	list := "password\nletmein\ndragon\nletmein\nmonkey\n" + strings.Repeat("y", hashindex.MaxWordBytes+1) + "\n"
	if _, err := importFile(t, ix, "my-list.txt", gzipped(t, list), []string{"sha1", "md5"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Import(ctx, strings.NewReader("extra\n"), []string{"ntlm"}, nil); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Import(canceled, strings.NewReader("never\n"), nil, nil); err == nil {
		t.Fatal("a cancelled import succeeded")
	}
	if _, err := importFile(t, ix, "binary", []byte("\x00\x01"), nil); err == nil {
		t.Fatal("a binary import succeeded")
	}
	s, err := ix.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(time.Second)
	// Words: the 3 seeded, letmein, dragon, monkey, extra.
	wantEntries := []hashindex.AlgorithmEntries{{"md5", 3 + 3}, {"sha1", 3 + 3}, {"sha256", 3 + 3 + 1}, {"sha512", 3}, {"ntlm", 3 + 1}}
	if s.Words != 7 || !slices.Equal(s.Entries, wantEntries) {
		t.Errorf("got %d words, entries %v; want 7 and %v", s.Words, s.Entries, wantEntries)
	}
	wantLists := []hashindex.ImportedList{
		{Name: hashindex.SeedListName, Words: 3, NewWords: 3, Entries: 15, Algorithms: hashindex.Algorithms},
		{Name: "my-list.txt", Words: 5, NewWords: 3, Entries: 9, Skipped: 1, Algorithms: []string{"md5", "sha1", "sha256"}},
		{Name: "the input", Words: 1, NewWords: 1, Entries: 2, Algorithms: []string{"sha256", "ntlm"}},
	}
	if len(s.Lists) != len(wantLists) {
		t.Fatalf("got lists %+v, want %+v", s.Lists, wantLists)
	}
	for i, l := range s.Lists {
		if l.Imported.Before(start) || l.Imported.After(end) {
			t.Errorf("list %d imported at %v, not during the test", i, l.Imported)
		}
		l.Imported = time.Time{}
		l.Name = filepath.Base(l.Name) // the path as given: here in a temporary directory
		if w := wantLists[i]; !equalSummaries(hashindex.Summary{Lists: []hashindex.ImportedList{l}}, hashindex.Summary{Lists: []hashindex.ImportedList{w}}) {
			t.Errorf("list %d: got %+v, want %+v", i, l, w)
		}
	}
	if _, bytes, err := ix.Size(ctx); err != nil || s.Bytes != bytes {
		t.Errorf("summary says %d bytes, Size %d (%v)", s.Bytes, bytes, err)
	}
	// Another process sees the same records.
	other, err := hashindex.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if s2, err := other.Summary(ctx); err != nil || !equalSummaries(s, s2) {
		t.Errorf("reopened: %+v (%v), want %+v", s2, err, s)
	}
}
