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

// TestWALStaysBoundedUnderLoad runs this release's built binary and the
// previous release's (previousRelease, whose checkpointer only ran passive
// checkpoints), each on a fresh SQLite database, under full metered load
// from wrk in another process (as TestLoadBinaryVsBare: base64 encodes with
// a pro account's key, 32 connections). It reads the size of the -wal file
// every second during the load and some seconds after it, and reports each
// binary's throughput and p50 and p99 latency beside it. It fails when this
// release's WAL passes walBound during the load or is not back under it
// after. It is a measurement, not a unit test: it runs only with
// SECUTIL_WAL_BENCH=1 (the command is in docs/BENCHMARKS.md).
// SECUTIL_WAL_BENCH_SECONDS (default 600) is each binary's load and
// SECUTIL_WAL_BENCH_SETTLE (default 10) the seconds it waits after.
// SECUTIL_WAL_BENCH_ROUNDS (default 1) splits the load into rounds that
// alternate between the binaries, both servers running throughout, so that
// both see the same neighbours on a shared machine; with 1, each binary
// has its whole load at once, one after the other. The previous release's
// WAL can grow by tens of MB a second: a server's load stops early, and
// says so, when the disk has less than SECUTIL_WAL_BENCH_MIN_FREE_GB
// (default 8) free.
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
	rounds := min(envInt("SECUTIL_WAL_BENCH_ROUNDS", 1), seconds)
	minFree := uint64(envInt("SECUTIL_WAL_BENCH_MIN_FREE_GB", 8)) << 30
	const connections = 32
	if deadline, ok := t.Deadline(); ok && time.Until(deadline) < time.Duration(2*seconds+settle+300)*time.Second {
		t.Fatalf("two loads of %d s need a longer -timeout than %v", seconds, time.Until(deadline).Round(time.Second))
	}
	servers := []*walServer{
		startWALServer(t, "after", buildBinary(t)),
		startWALServer(t, "before", buildPreviousRelease(t)),
	}
	fmt.Printf("WAL under load: %d connections, %d s of load per binary in %d rounds, alternating the binaries' order, then %d s idle; load average %s\n",
		connections, seconds, rounds, settle, loadAverage())
	for round := range rounds {
		roundSeconds := seconds / rounds
		if round < seconds%rounds {
			roundSeconds++
		}
		for i := range servers {
			s := servers[(i+round)%len(servers)] // each binary goes first in every other round
			if s.cut == "" {
				s.load(t, connections, roundSeconds, minFree)
			}
		}
	}
	time.Sleep(time.Duration(settle) * time.Second)
	for _, s := range servers {
		s.finish(t)
		fmt.Printf("%-6s %v\n", s.name, s)
	}
	after := servers[0]
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

// walServer is a binary serving its own SQLite database for
// TestWALStaysBoundedUnderLoad, and what its loads gave.
type walServer struct {
	name string
	db   string
	tg   loadTarget
	// rounds are wrk's results, one a load.
	rounds []wrkResult
	// loaded is the seconds of load so far, as the sampler counts them.
	loaded int
	// peak is the largest -wal file seen during the loads, peakAt after
	// how many seconds of load.
	peak   int64
	peakAt int
	// perMinute is the file's size at the end of each minute of load.
	perMinute []int64
	// settled is the file's size once the loads are over and the servers
	// idle for a while.
	settled int64
	// cut says why the load stopped early, if it did.
	cut string
	// loadAverage is the machine's at the first load and after the last.
	loadAverage [2]string
}

// startWALServer serves a fresh SQLite database with bin, with a pro
// account whose key the loads use.
func startWALServer(t *testing.T, name, bin string) *walServer {
	t.Helper()
	dir := t.TempDir()
	s := &walServer{name: name, db: filepath.Join(dir, "wal.db")}
	const email = "wal@example.com"
	addProAccount(t, bin, s.db, email)
	serve := exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-db", s.db, "-hash-db", filepath.Join(dir, "hashes.db"))
	base, pid := startLoadServer(t, serve, filepath.Join(dir, "access.log"))
	status, m := cmdtest.PostJSON(t, base+"/api/get_api_key", "", map[string]string{"email": email, "password": cmdtest.Password})
	if status != http.StatusOK {
		t.Fatalf("%s: get_api_key: %d %v", name, status, m)
	}
	s.tg = loadTarget{name: name, url: base + "/api/v1/base64", key: m["api_key"].(string), pid: pid}
	return s
}

// walBytes is the size of the server's -wal file, 0 when there is none.
func (s *walServer) walBytes() int64 {
	fi, err := os.Stat(s.db + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// load drives the server with wrk for seconds, reading the WAL's size
// every second, and stops early when the disk holds less than minFree.
func (s *walServer) load(t *testing.T, connections, seconds int, minFree uint64) {
	t.Helper()
	if s.loadAverage[0] == "" {
		s.loadAverage[0] = loadAverage()
	}
	ctx, cut := context.WithCancel(context.Background())
	defer cut()
	sampled := make(chan struct{}) // closed when the sampler, which writes s, is done
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			s.loaded++
			if size := s.walBytes(); size > s.peak {
				s.peak, s.peakAt = size, s.loaded
			}
			if s.loaded%60 == 0 {
				s.perMinute = append(s.perMinute, s.walBytes())
			}
			var fs syscall.Statfs_t
			if err := syscall.Statfs(s.db, &fs); err == nil && fs.Bavail*uint64(fs.Bsize) < minFree {
				s.cut = fmt.Sprintf("after %d s of load the disk had %s free, under %s", s.loaded, mib(int64(fs.Bavail*uint64(fs.Bsize))), mib(int64(minFree)))
				cut()
				return
			}
		}
	}()
	s.rounds = append(s.rounds, wrkUntil(ctx, t, filepath.Dir(s.db), s.tg, connections, seconds))
	cut()
	<-sampled
	if size := s.walBytes(); size > s.peak {
		s.peak, s.peakAt = size, s.loaded
	}
}

// finish reads the WAL's size after the loads, checks that every call
// answered 200 was counted, and stops the server.
func (s *walServer) finish(t *testing.T) {
	t.Helper()
	s.settled = s.walBytes()
	s.loadAverage[1] = loadAverage()
	status, m := cmdtest.PostJSON(t, strings.TrimSuffix(s.tg.url, "/base64")+"/user_info", s.tg.key, nil)
	if used, _ := m["api_usage"].(float64); status != http.StatusOK || int(used) < s.requests() {
		t.Errorf("%s: usage %v is below the %d calls answered 200", s.name, m["api_usage"], s.requests())
	}
	if p, err := os.FindProcess(s.tg.pid); err == nil {
		p.Kill()
	}
}

func (s *walServer) requests() int {
	n := 0
	for _, r := range s.rounds {
		n += r.requests
	}
	return n
}

// loadTime is the time wrk drove the server, over all rounds.
func (s *walServer) loadTime() time.Duration {
	var d time.Duration
	for _, r := range s.rounds {
		d += time.Duration(float64(r.requests) / r.perSec * float64(time.Second))
	}
	return d
}

// latencies are the median over the rounds of wrk's p50 and p99, and
// the highest p99 of a round.
func (s *walServer) latencies() (p50, p99, worstP99 time.Duration) {
	var p50s, p99s []float64
	for _, r := range s.rounds {
		a, _ := time.ParseDuration(r.p50)
		b, _ := time.ParseDuration(r.p99)
		p50s, p99s = append(p50s, float64(a)), append(p99s, float64(b))
		worstP99 = max(worstP99, b)
	}
	return time.Duration(median(p50s)), time.Duration(median(p99s)), worstP99
}

func (s *walServer) String() string {
	sizes := make([]string, len(s.perMinute))
	for i, size := range s.perMinute {
		sizes[i] = mib(size)
	}
	p50, p99, worstP99 := s.latencies()
	text := fmt.Sprintf("WAL peak %s (after %d s of load), %s after the load; at each minute of load: %s\n"+
		"    %d calls in %v: %.0f calls/s; median over %d rounds: p50 %v, p99 %v (worst round %v); load average %s → %s",
		mib(s.peak), s.peakAt, mib(s.settled), strings.Join(sizes, " "),
		s.requests(), s.loadTime().Round(time.Second), float64(s.requests())/max(s.loadTime().Seconds(), 1), len(s.rounds), p50, p99, worstP99, s.loadAverage[0], s.loadAverage[1])
	for i, r := range s.rounds {
		text += fmt.Sprintf("\n    round %2d: %v", i+1, r)
	}
	if s.cut != "" {
		text += "\n    load cut short: " + s.cut
	}
	return text
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
