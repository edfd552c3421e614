package hashindex_test

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/store/hashindex"
)

// openLoopEnv, in the environment of this test binary, makes it a process that opens the
// index the variable names, looks a word up and closes it, over and over while the last
// line on its standard input is "open" (it waits after "wait"), until its standard input
// ends, then prints how many times and exits (1 at the first error).
const openLoopEnv = "SECUTIL_HASHINDEX_OPEN_LOOP"

// runOpenLoop is that process: it exits the process when done.
func runOpenLoop(path string) {
	stop := make(chan struct{})
	var opening atomic.Bool
	go func() {
		for lines := bufio.NewScanner(os.Stdin); lines.Scan(); {
			opening.Store(lines.Text() == "open")
		}
		close(stop)
	}()
	opens, err := openLoop(path, &opening, stop)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(opens)
	os.Exit(0)
}

// openLoop opens the index at path, looks up the md5 of the list's first word (imported
// before the loop starts) and closes it, while opening is set, until stop is closed.
func openLoop(path string, opening *atomic.Bool, stop <-chan struct{}) (opens int, err error) {
	sum := md5.Sum([]byte(openLoopWord(0)))
	digest := hex.EncodeToString(sum[:])
	for {
		select {
		case <-stop:
			return opens, nil
		default:
		}
		if !opening.Load() {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		ix, err := hashindex.Open(path)
		if err != nil {
			return opens, err
		}
		hit, err := ix.Lookup(context.Background(), digest, []string{"md5"})
		ix.Close()
		if err != nil {
			return opens, err
		}
		if !hit.Found {
			return opens, fmt.Errorf("open %d: %s not found", opens, openLoopWord(0))
		}
		opens++
		time.Sleep(10 * time.Millisecond) // a start-up now and then, not a busy loop
	}
}

func openLoopWord(i int) string { return fmt.Sprintf("ol%07d", i) }

// TestOpenWhileMerging opens one index over and over from two goroutines and two other
// processes while an import merges its runs and deletes the files it replaced: every
// open and lookup must succeed, none may meet a run file deleted under it (issue 37:
// "open ...run: no such file or directory"). They open while a merge is due or running and
// during the batch after it, and wait while batches only add runs.
func TestOpenWhileMerging(t *testing.T) {
	t.Parallel()
	ix, path := mustOpenPath(t)
	const batch = 500
	hashindex.SetBatchWords(ix, batch)
	hashindex.SetTierBase(ix, 2*batch) // every 8th batch merges, the 64th twice
	var list strings.Builder
	for i := range 72 * batch {
		list.WriteString(openLoopWord(i) + "\n")
	}
	first, rest, _ := strings.Cut(list.String(), "\n")
	if _, err := ix.Import(context.Background(), strings.NewReader(first), []string{"md5"}, nil); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var opening atomic.Bool
	var procs []*exec.Cmd
	var outputs []*strings.Builder
	var stdins []io.Writer
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), openLoopEnv+"="+path)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { <-stop; stdin.Close() }()
		procs, outputs, stdins = append(procs, cmd), append(outputs, &out), append(stdins, stdin)
	}
	setOpening := func(on bool) {
		opening.Store(on)
		line := "wait\n"
		if on {
			line = "open\n"
		}
		for _, stdin := range stdins {
			io.WriteString(stdin, line)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	opens := make([]int, 2)
	for g := range errs {
		wg.Go(func() { opens[g], errs[g] = openLoop(path, &opening, stop) })
	}
	// The processes are started: import, and open while merges run.
	time.Sleep(100 * time.Millisecond)
	counts := map[string]int{}
	wasMerging := false
	_, err := ix.Import(context.Background(), strings.NewReader(rest), []string{"md5"}, func(p hashindex.Progress) {
		rc, _ := ix.RunCounts(context.Background())
		for _, c := range rc {
			counts[c.Algorithm] = max(counts[c.Algorithm], c.Runs)
		}
		// Eight runs of a tier merge into one of the next, so once no merge is due an
		// algorithm has as many runs as the digits of its batch count in base 8 add up to
		// (the first word was batch 1).
		settled := 0
		for n := 1 + p.Words/batch; n > 0; n /= 8 {
			settled += int(n % 8)
		}
		merging := slices.ContainsFunc(rc, func(c hashindex.RunCount) bool { return c.Runs > settled })
		setOpening(merging || wasMerging) // a merge deletes its inputs after the swap
		wasMerging = merging
	})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d, after %d opens: %v", g, opens[g], err)
		}
	}
	for p, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v: %s", p, err, outputs[p])
			continue
		}
		line, _ := bufio.NewReader(strings.NewReader(outputs[p].String())).ReadString('\n')
		t.Logf("process %d: %s opens", p, strings.TrimSpace(line))
	}
	t.Logf("goroutines: %v opens; at most %v runs", opens, counts)
	orphans, err := ix.Check(context.Background())
	if err != nil || orphans != 0 {
		t.Errorf("check: %d orphans, %v", orphans, err)
	}
	if errs[0] == nil && opens[0] == 0 {
		t.Error(errors.New("the goroutines never opened the index while it merged"))
	}
}
