package main

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/store/hashindex"
)

// benchWord is line i of the deterministic benchmark wordlist: one or two syllables,
// sometimes capitalised, and a six-character base-36 tail that is a permutation of i, so
// the lines are distinct words (for i < 36^6) of 8 to 18 bytes, 10.5 on average. Every
// 50th line repeats the line 49 before it, as real lists repeat words.
func benchWord(i int64) string {
	if i%50 == 49 {
		i -= 49
	}
	syllables := [...]string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "ban", "dor", "fel", "gim",
		"har", "jon", "kel", "mar", "nor", "pet", "qui", "ros", "sun", "tor", "wen", "zar", "love", "star", "dragon"}
	const span = 36 * 36 * 36 * 36 * 36 * 36
	x := uint64(i) * 2654435761 % span // a bijection on [0, 36^6): the factor is prime to 36
	h := x * 0x9e3779b97f4a7c15
	var b strings.Builder
	for s := range 1 + h>>63 {
		syl := syllables[h>>(8*s)%uint64(len(syllables))]
		if s == 0 && h>>40&3 == 0 {
			syl = strings.ToUpper(syl[:1]) + syl[1:]
		}
		b.WriteString(syl)
	}
	tail := strconv.FormatUint(x, 36)
	b.WriteString(strings.Repeat("0", 6-len(tail)) + tail)
	return b.String()
}

// writeBenchList writes lines 0 to n-1 of the benchmark wordlist to path.
func writeBenchList(t testing.TB, path string, n int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		w.WriteString(benchWord(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBenchWordsAreDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]int64{}
	for i := range int64(200_000) {
		w := benchWord(i)
		if j, ok := seen[w]; ok && i%50 != 49 {
			t.Fatalf("lines %d and %d are both %q", j, i, w)
		}
		seen[w] = i
		if len(w) < 8 || len(w) > 18 {
			t.Fatalf("line %d: %q", i, w)
		}
	}
}

// distinctWords counts the distinct words of lines [0, n): every 50th line repeats one.
func distinctWords(n int64) int64 { return n - n/50 }

func hexMD5(w string) string    { d := md5.Sum([]byte(w)); return hex.EncodeToString(d[:]) }
func hexSHA256(w string) string { d := sha256.Sum256([]byte(w)); return hex.EncodeToString(d[:]) }

// TestImportKilledMidway kills `secutil import-wordlist` with SIGKILL twice mid-import
// (while batches are written and runs merged) and checks each time that the index opens,
// holds exactly the batches committed before the kill (a prefix of the list, whole
// batches) and answers for them; then that running the import again completes it with
// every entry once and no stray file.
func TestImportKilledMidway(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("imports 2,250,000 words with the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	// 9 batches: the 8th triggers a merge of the first 8 runs, and the 9th is still to
	// come when the second kill interrupts that merge.
	const lines = 9 * hashindex.ImportBatchWords
	list := filepath.Join(dir, "words.txt")
	writeBenchList(t, list, lines)
	indexPath := filepath.Join(dir, "idx-hashes.db")
	committed := int64(0)
	// The first kill comes in the second batch, the second just after the 8th batch, whose
	// commit starts a merge of 8 runs of each algorithm: each once the work after the
	// commit has begun writing a run file (the next batch's or the merge's).
	for kill, after := range []int64{1, 8} {
		cmd := exec.Command(bin, "import-wordlist", "-hash-db", indexPath, list)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Minute)
		waitUntil(t, deadline, "the commit of batch "+strconv.FormatInt(after, 10), func() bool {
			return committedEntries(t, indexPath) >= 5*distinctWords(after*hashindex.ImportBatchWords)
		})
		committedRuns := runFiles(t, indexPath)
		waitUntil(t, deadline, "a run file after the commit", func() bool {
			return len(slices.DeleteFunc(runFiles(t, indexPath), func(name string) bool { return slices.Contains(committedRuns, name) })) > 0
		})
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		committed = checkPrefix(t, indexPath, lines)
		t.Logf("kill %d: %d lines committed", kill+1, committed)
		if committed == lines {
			t.Fatalf("the import finished before the kill: use a longer list")
		}
	}
	if out, err := exec.Command(bin, "import-wordlist", "-hash-db", indexPath, list).CombinedOutput(); err != nil {
		t.Fatalf("import after the kills: %v\n%s", err, out)
	}
	if got := checkPrefix(t, indexPath, lines); got != lines {
		t.Fatalf("after the import completed, %d lines of %d are in the index", got, lines)
	}
	ix, err := hashindex.Open(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if orphans, err := ix.Check(context.Background()); err != nil || orphans != 0 {
		t.Fatalf("after the import completed: %d stray run files, check %v", orphans, err)
	}
}

// waitUntil polls cond until it holds, failing the test at deadline.
func waitUntil(t *testing.T, deadline time.Time, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond) // a batch takes far longer; each look opens the index
	}
}

// runFiles names the run files of the index at path: those of committed batches and
// merges, and those being written.
func runFiles(t *testing.T, path string) []string {
	t.Helper()
	entries, err := os.ReadDir(path + "-runs")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".run") {
			names = append(names, e.Name())
		}
	}
	return names
}

// committedEntries is the entry count of the index at path, 0 while it does not exist.
func committedEntries(t *testing.T, path string) int64 {
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	ix, err := hashindex.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	entries, _, err := ix.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// checkPrefix opens the index and checks that it holds whole batches from the start of
// the list and nothing after them: the first and last word of each batch are found (under
// md5 and sha256) exactly for the committed batches, and the entry count is that of their
// distinct words. It returns the number of committed lines.
func checkPrefix(t *testing.T, path string, lines int64) int64 {
	t.Helper()
	ix, err := hashindex.Open(path)
	if err != nil {
		t.Fatalf("the index does not open: %v", err)
	}
	defer ix.Close()
	orphans, err := ix.Check(context.Background())
	if err != nil {
		t.Fatalf("the index is damaged: %v", err)
	}
	t.Logf("%d run files of the interrupted batch or merge await deletion", orphans)
	batch := int64(hashindex.ImportBatchWords)
	committed := int64(0)
	for start := int64(0); start < lines; start += batch {
		end := min(start+batch, lines)
		var digests []string
		for _, i := range []int64{start, end - 1, (start + end) / 2} {
			digests = append(digests, hexMD5(benchWord(i)), hexSHA256(benchWord(i)))
		}
		hits, err := ix.LookupMany(context.Background(), digests)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, h := range hits {
			if h.Found {
				found++
			}
		}
		switch {
		case found == 0:
		case found == len(hits) && committed == start:
			committed = end
		default:
			t.Fatalf("batch at line %d is partly in the index, or after a missing batch (%d of %d found; committed up to %d)", start, found, len(hits), committed)
		}
	}
	entries, _, err := ix.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 * distinctWords(committed); entries != want {
		t.Fatalf("%d entries for %d committed lines, want %d", entries, committed, want)
	}
	return committed
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := hashindex.Progress{Words: 500_000, NewWords: 400_000, Entries: 2_000_000, Bytes: 5_000_000, Duration: 2 * time.Second}
	for _, tc := range []struct {
		size int64
		want string
	}{
		{20_000_000, "500000 words, 400000 new, 2000000 entries, 250000 words/s, 25.0%, ETA 6s"},
		{-1, "500000 words, 400000 new, 2000000 entries, 250000 words/s"}, // standard input: no ETA
	} {
		if got := progressLine(p, tc.size); got != tc.want {
			t.Errorf("size %d: got %q, want %q", tc.size, got, tc.want)
		}
	}
}
