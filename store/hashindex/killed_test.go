package hashindex_test

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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

// killedImportEnv, in the environment of this test binary, makes it an importer that
// TestImportKilledMidway kills: it imports standard input into the index the variable
// names, committing every killedBatch words, and writes a line to standard output after
// each commit: the words read so far.
const killedImportEnv = "SECUTIL_HASHINDEX_KILLED_IMPORT"

// killedBatch is the batch size of the killed imports: small, so that each of the
// batches the test needs (the 8th starts a merge) takes a fraction of a second.
const killedBatch = 5_000

// runKilledImport is the importer process: it exits the process when done.
func runKilledImport(path string) {
	ix, err := hashindex.Open(path)
	if err == nil {
		hashindex.SetBatchWords(ix, killedBatch)
		_, err = ix.Import(context.Background(), os.Stdin, nil, func(p hashindex.Progress) { fmt.Println(p.Words) })
		ix.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// killedWord is line i of the killed imports' list: distinct words.
func killedWord(i int) string { return fmt.Sprintf("kw%07d", i) }

// killedLines writes lines [from, to) of the list to w.
func killedLines(w io.Writer, from, to int) error {
	var b strings.Builder
	for i := from; i < to; i++ {
		b.WriteString(killedWord(i))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TestImportKilledMidway kills an importing process with SIGKILL twice mid-import
// (while a batch's run files are written, and while the 8th batch's commit has started a
// merge of 8 runs) and checks each time that the index opens, holds exactly the batches
// committed before the kill (a prefix of the list, whole batches) and answers for them;
// then that running the import again completes it with every entry once and no stray
// file. The importer is this test binary (killedImportEnv) with small batches; the test
// feeds its standard input batch by batch and never closes it before a kill, so the
// import cannot finish before the kill, and a run file always follows the commit it waits
// for.
func TestImportKilledMidway(t *testing.T) {
	t.Parallel()
	// 10 batches: the import is killed in the 2nd and in the 9th at the latest.
	const lines = 10 * killedBatch
	indexPath := filepath.Join(t.TempDir(), "idx-hashes.db")
	for kill, after := range []int{1, 8} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killedImportEnv+"="+indexPath)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		committedWords := make(chan int64)
		go func() {
			defer close(committedWords)
			for sc := bufio.NewScanner(stdout); sc.Scan(); {
				n, _ := strconv.ParseInt(sc.Text(), 10, 64)
				committedWords <- n
			}
		}()
		// The batches committed already are skipped as words the index holds.
		fed := 0
		feed := func(to int) {
			if err := killedLines(stdin, fed*killedBatch, to*killedBatch); err != nil {
				t.Fatal(err)
			}
			fed = to
		}
		deadline := time.Now().Add(2 * time.Minute)
		feed(after)
		waitForCommit(t, deadline, committedWords, after)
		committedRuns := runFiles(t, indexPath)
		feed(after + 1)
		waitUntil(t, deadline, "a run file after the commit", func() bool {
			return len(slices.DeleteFunc(runFiles(t, indexPath), func(name string) bool { return slices.Contains(committedRuns, name) })) > 0
		})
		cmd.Process.Signal(syscall.SIGKILL)
		for range committedWords { // to the end of its output, before Wait closes the pipe
		}
		cmd.Wait()
		committed := checkPrefix(t, indexPath, lines)
		t.Logf("kill %d: %d lines committed", kill+1, committed)
		if committed < after*killedBatch || committed > (after+1)*killedBatch {
			t.Fatalf("kill %d: %d lines committed, want %d to %d", kill+1, committed, after*killedBatch, (after+1)*killedBatch)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killedImportEnv+"="+indexPath)
	var list strings.Builder
	if err := killedLines(&list, 0, lines); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = strings.NewReader(list.String())
	if out, err := cmd.CombinedOutput(); err != nil {
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

// waitForCommit waits until the importer reports the commit of batch n (its words read
// so far on committedWords), failing the test at deadline or when the importer stops.
func waitForCommit(t *testing.T, deadline time.Time, committedWords <-chan int64, n int) {
	t.Helper()
	timeout := time.After(time.Until(deadline))
	for {
		select {
		case words, ok := <-committedWords:
			if !ok {
				t.Fatalf("the importer stopped before the commit of batch %d", n)
			}
			if words >= int64(n*killedBatch) {
				return
			}
		case <-timeout:
			t.Fatalf("gave up waiting for the commit of batch %d", n)
		}
	}
}

// waitUntil polls cond until it holds, failing the test at deadline.
func waitUntil(t *testing.T, deadline time.Time, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // each look opens the index
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

// checkPrefix opens the index and checks that it holds whole batches from the start of
// the list and nothing after them: the first, middle and last word of each batch are
// found (under md5 and sha256) exactly for the committed batches, and the entry count is
// that of their words under the five algorithms. It returns the number of committed lines.
func checkPrefix(t *testing.T, path string, lines int) int {
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
	committed := 0
	for start := 0; start < lines; start += killedBatch {
		end := min(start+killedBatch, lines)
		var digests []string
		for _, i := range []int{start, end - 1, (start + end) / 2} {
			m, s := md5.Sum([]byte(killedWord(i))), sha256.Sum256([]byte(killedWord(i)))
			digests = append(digests, hex.EncodeToString(m[:]), hex.EncodeToString(s[:]))
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
	if want := int64(5 * committed); entries != want {
		t.Fatalf("%d entries for %d committed lines, want %d", entries, committed, want)
	}
	return committed
}
