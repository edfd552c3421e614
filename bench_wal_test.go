package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// walBound is the most the SQLite write-ahead log's file may hold under
// full metered load and after it.
const walBound = 64 << 20

// walRun is what one binary's run under load gave.
type walRun struct {
	load wrkResult
	// peak is the largest -wal file seen during the load, peakAt when.
	peak   int64
	peakAt time.Duration
	// settled is the file's size settle seconds after the load stopped.
	settled int64
	// perMinute is the file's size at the end of each minute of load.
	perMinute []int64
	// cut says why the load stopped early, if it did.
	cut         string
	loadAverage [2]string // at the start and the end of the run
}

func (r walRun) String() string {
	sizes := make([]string, len(r.perMinute))
	for i, size := range r.perMinute {
		sizes[i] = mib(size)
	}
	s := fmt.Sprintf("WAL peak %s (at %v), %s after the load; at each minute: %s\n    %v\n    load average %s → %s",
		mib(r.peak), r.peakAt.Round(time.Second), mib(r.settled), strings.Join(sizes, " "), r.load, r.loadAverage[0], r.loadAverage[1])
	if r.cut != "" {
		s += "\n    load cut short: " + r.cut
	}
	return s
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// TestWALStaysBoundedUnderLoad runs this release's built binary and the
// previous release's (previousRelease, whose checkpointer only ran passive
// checkpoints), one after the other, each on a fresh SQLite database and
// for the full time, under full metered load from wrk in another process
// (as TestLoadBinaryVsBare: base64 encodes with a pro account's key, 32
// connections). It reads the size of the -wal file every second during
// the load and some seconds after it, and reports each binary's
// throughput and p50 and p99 latency beside it. It fails when this
// release's WAL passes walBound during the load or is not back under it
// after. It is a measurement, not a unit test: it runs only with
// SECUTIL_WAL_BENCH=1 (the command is in docs/BENCHMARKS.md);
// SECUTIL_WAL_BENCH_SECONDS (default 600) is each binary's load,
// SECUTIL_WAL_BENCH_SETTLE (default 10) the seconds it waits after.
// The previous release's WAL grows by tens of MB a second: its load stops
// early, and says so, when the disk has less than
// SECUTIL_WAL_BENCH_MIN_FREE_GB (default 8) free.
func TestWALStaysBoundedUnderLoad(t *testing.T) {
	t.Parallel()
	if os.Getenv("SECUTIL_WAL_BENCH") == "" {
		t.Skip("WAL under load: SECUTIL_WAL_BENCH=1 go test -count=1 -timeout 60m -run TestWALStaysBoundedUnderLoad -v .")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Fatal("the WAL measurement needs wrk (apt-get install wrk)")
	}
	seconds := envInt("SECUTIL_WAL_BENCH_SECONDS", 600)
	settle := envInt("SECUTIL_WAL_BENCH_SETTLE", 10)
	minFree := uint64(envInt("SECUTIL_WAL_BENCH_MIN_FREE_GB", 8)) << 30
	const connections = 32
	if deadline, ok := t.Deadline(); ok && time.Until(deadline) < time.Duration(2*(seconds+settle)+300)*time.Second {
		t.Fatalf("two runs of %d s need a longer -timeout than %v", seconds+settle, time.Until(deadline).Round(time.Second))
	}
	binaries := []struct{ name, bin string }{
		{"after", buildBinary(t)},
		{"before", buildPreviousRelease(t)},
	}
	fmt.Printf("WAL under load: %d connections, %d s of load then %d s idle per binary, one after the other; load average %s\n",
		connections, seconds, settle, loadAverage())
	runs := map[string]walRun{}
	for _, b := range binaries {
		runs[b.name] = runUnderLoad(t, b.name, b.bin, connections, seconds, settle, minFree)
		fmt.Printf("%-6s %v\n", b.name, runs[b.name])
	}
	after := runs["after"]
	if after.peak > walBound {
		t.Errorf("this release's WAL reached %s under load, over %s", mib(after.peak), mib(walBound))
	}
	if after.settled > walBound {
		t.Errorf("this release's WAL held %s %d s after the load, over %s", mib(after.settled), settle, mib(walBound))
	}
	if after.cut != "" {
		t.Errorf("this release's load was cut short: %s", after.cut)
	}
}

// runUnderLoad serves a fresh SQLite database with bin and drives it with
// wrk for seconds, sampling the WAL's size every second then for settle
// seconds more. The load stops early when the disk holds less than
// minFree.
func runUnderLoad(t *testing.T, name, bin string, connections, seconds, settle int, minFree uint64) walRun {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "wal.db")
	// The previous release's user add creates the database; this one's
	// opens only a database that exists.
	if bin == buildBinary(t) {
		cmdtest.NewDatabase(t, db)
	}
	email := "wal@example.com"
	if out, err := runCommand(bin, "user", "add", "-db", db, "-email", email, "-password", cmdtest.Password, "-plan", "pro"); err != nil {
		t.Fatalf("%s: user add: %v\n%s", name, err, out)
	}
	base, pid := startLoadServer(t, exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-db", db, "-hash-db", filepath.Join(dir, "hashes.db")), filepath.Join(dir, "access.log"))
	status, m := cmdtest.PostJSON(t, base+"/api/get_api_key", "", map[string]string{"email": email, "password": cmdtest.Password})
	if status != http.StatusOK {
		t.Fatalf("%s: get_api_key: %d %v", name, status, m)
	}
	key := m["api_key"].(string)
	tg := loadTarget{name: name, url: base + "/api/v1/base64", key: key, pid: pid}

	run := walRun{loadAverage: [2]string{loadAverage(), ""}}
	walSize := func() int64 {
		fi, err := os.Stat(db + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	ctx, cut := context.WithCancel(context.Background())
	defer cut()
	sampled := make(chan struct{}) // closed when the sampler, which writes run, is done
	start := time.Now()
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			size := walSize()
			if size > run.peak {
				run.peak, run.peakAt = size, time.Since(start)
			}
			if i%60 == 0 {
				run.perMinute = append(run.perMinute, size)
			}
			var fs syscall.Statfs_t
			if err := syscall.Statfs(dir, &fs); err == nil && fs.Bavail*uint64(fs.Bsize) < minFree {
				run.cut = fmt.Sprintf("after %v the disk had %s free, under %s", time.Since(start).Round(time.Second), mib(int64(fs.Bavail*uint64(fs.Bsize))), mib(int64(minFree)))
				cut()
				return
			}
		}
	}()
	load := wrkUntil(ctx, t, dir, tg, connections, seconds)
	cut()
	<-sampled
	run.load = load
	if size := walSize(); size > run.peak {
		run.peak, run.peakAt = size, time.Since(start)
	}
	time.Sleep(time.Duration(settle) * time.Second)
	run.settled = walSize()
	run.loadAverage[1] = loadAverage()

	status, m = cmdtest.PostJSON(t, base+"/api/v1/user_info", key, nil)
	if used, _ := m["api_usage"].(float64); status != http.StatusOK || int(used) < load.requests {
		t.Errorf("%s: usage %v is below the %d calls answered 200", name, m["api_usage"], load.requests)
	}
	// The server and its files go now, not at the end of the test: the
	// next run has the machine and the disk to itself.
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	return run
}
