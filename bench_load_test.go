package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// loadBody is the request of the load comparison: a small base64 encode.
const loadBody = `{"text":"The quick brown fox jumps over the lazy dog","option":"encode"}`

// loadTarget is a server the load comparison drives.
type loadTarget struct {
	name   string
	url    string // the URL wrk posts to
	key    string // X-API-Key, for secutil
	pid    int    // the server's process, whose CPU time is read around each run
	target float64
	// metrics is the server's -metrics-addr, from which the meter's batch
	// sizes and commit times are read around the rounds.
	metrics string
}

// TestLoadBinaryVsBare measures throughput the way users run secutil: the
// built binary as its own process, writing its access log to a file, driven
// over loopback by wrk (another process: Debian's package) against a bare
// net/http server doing the same JSON work (testdata/loadbare), with the
// same body, 32 connections. Each round drives every server in turn for
// the same time; the figure is the median over the rounds of metered/bare.
// SQLite always; PostgreSQL too when SECUTIL_TEST_POSTGRES names a database
// (on the same machine, sharing its cores) and the binary serves it. Each
// line also shows the server process's CPU time per request (user and
// system, from /proc), which is steadier than the ratio on a busy machine.
// It is a measurement, not a unit test: it runs only with SECUTIL_LOAD=1
// (the command is in docs/BENCHMARKS.md). SECUTIL_LOAD_SECONDS,
// SECUTIL_LOAD_ROUNDS and SECUTIL_LOAD_CONNECTIONS tune it;
// SECUTIL_LOAD_PROFILE=DIR adds one round per secutil server with a CPU
// profile taken through -pprof-addr, written to DIR/<backend>.pprof;
// SECUTIL_LOAD_COMPARE=BINARY drives another secutil binary on SQLite in
// the same rounds, as "compared" (before and after a change, in one run);
// a comma-separated list of NAME=BINARY drives several, each under its name
// (main=/tmp/secutil-main,nometer=/tmp/secutil-nometer).
func TestLoadBinaryVsBare(t *testing.T) {
	t.Parallel()
	if os.Getenv("SECUTIL_LOAD") == "" {
		t.Skip("load comparison: SECUTIL_LOAD=1 go test -count=1 -run TestLoadBinaryVsBare -v .")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Fatal("the load comparison needs wrk (apt-get install wrk)")
	}
	seconds := envInt("SECUTIL_LOAD_SECONDS", 5)
	rounds := envInt("SECUTIL_LOAD_ROUNDS", 5)
	connections := envInt("SECUTIL_LOAD_CONNECTIONS", 32)
	profileDir := os.Getenv("SECUTIL_LOAD_PROFILE")

	dir := t.TempDir()
	bin := buildBinary(t)
	bareBin := filepath.Join(dir, "loadbare")
	if out, err := exec.Command("go", "build", "-o", bareBin, "./testdata/loadbare").CombinedOutput(); err != nil {
		t.Fatalf("go build loadbare: %v\n%s", err, out)
	}
	bareURL, barePID := startLoadServer(t, exec.Command(bareBin, "127.0.0.1:0"), filepath.Join(dir, "bare.log"))
	targets := []loadTarget{{name: "bare", url: bareURL + "/", pid: barePID}}
	type profiler struct{ addr, bin string } // a server's -pprof-addr, and its binary
	profilers := map[string]profiler{}
	type server struct{ name, bin, db string }
	servers := []server{{"sqlite", bin, filepath.Join(dir, "load.db")}}
	if url := os.Getenv("SECUTIL_TEST_POSTGRES"); url != "" {
		servers = append(servers, server{"postgres", bin, url})
	}
	for _, other := range comparedBinaries(os.Getenv("SECUTIL_LOAD_COMPARE")) {
		servers = append(servers, server{other[0], other[1], filepath.Join(dir, other[0]+".db")})
	}
	// A fresh account each run: a PostgreSQL database outlives the test.
	email := fmt.Sprintf("load-%d@example.com", time.Now().UnixNano())
	for _, sv := range servers {
		if sv.bin == bin {
			cmdtest.NewDatabase(t, sv.db) // as a first start would
		}
		addProAccount(t, sv.bin, sv.db, email)
		sides := freeLoopbackAddrs(t, 2) // -metrics-addr, -pprof-addr
		metricsAddr := sides[0]
		args := []string{"serve", "-addr", "127.0.0.1:0", "-db", sv.db, "-hash-db", filepath.Join(dir, sv.name+"-hashes.db"), "-metrics-addr", metricsAddr}
		profilers[sv.name] = profiler{sides[1], sv.bin}
		args = append(args, "-pprof-addr", sides[1])
		base, pid := startLoadServer(t, exec.Command(sv.bin, args...), filepath.Join(dir, sv.name+"-access.log"))
		target := map[string]float64{"sqlite": 0.70, "postgres": 0.40}[sv.name]
		targets = append(targets, loadTarget{name: sv.name, url: base + "/api/v1/base64", key: getKey(t, base, email, ""), pid: pid, target: target, metrics: metricsAddr})
	}

	for _, tg := range targets { // warm up: connections, caches, the meter
		wrk(t, dir, tg, connections, 1)
	}
	fmt.Printf("load: %d connections, %d rounds of %d s per server; load average %s\n", connections, rounds, seconds, loadAverage())
	batches := map[string]meterTotals{} // over all rounds
	ratios := map[string][]float64{}
	cpuPerRequest := map[string][]float64{} // µs of the server's CPU
	acknowledged := map[string]int{}
	for round := 1; round <= rounds; round++ {
		results := map[string]wrkResult{}
		roundBatches := map[string]meterTotals{}
		for _, tg := range targets {
			var before meterTotals
			if tg.metrics != "" {
				before = readMeterTotals(t, tg.metrics)
			}
			results[tg.name] = wrk(t, dir, tg, connections, seconds)
			if tg.metrics != "" {
				roundBatches[tg.name] = readMeterTotals(t, tg.metrics).minus(before)
				batches[tg.name] = batches[tg.name].plus(roundBatches[tg.name])
			}
			acknowledged[tg.name] += results[tg.name].requests
			cpuPerRequest[tg.name] = append(cpuPerRequest[tg.name], results[tg.name].cpuPerRequest())
		}
		fmt.Printf("round %d\n", round)
		for _, tg := range targets {
			line := fmt.Sprintf("  %-8s %v", tg.name, results[tg.name])
			if tg.name != "bare" {
				ratio := results[tg.name].perSec / results["bare"].perSec
				ratios[tg.name] = append(ratios[tg.name], ratio)
				line += fmt.Sprintf("  ratio %.2f; %v", ratio, roundBatches[tg.name])
			}
			fmt.Println(line)
		}
	}
	fmt.Printf("bare: median server CPU %.1f µs/req\n", median(cpuPerRequest["bare"]))
	for _, tg := range targets[1:] {
		status, m := cmdtest.PostJSON(t, strings.TrimSuffix(tg.url, "/base64")+"/user_info", tg.key, nil)
		if used, _ := m["api_usage"].(float64); status != http.StatusOK || int(used) < acknowledged[tg.name] {
			if tg.target == 0 { // a compared binary may be an experiment that counts nothing (docs/bench)
				fmt.Printf("%s: usage %v, %d calls answered 200\n", tg.name, m["api_usage"], acknowledged[tg.name])
			} else {
				t.Errorf("%s: usage %v is below the %d calls answered 200", tg.name, m["api_usage"], acknowledged[tg.name])
			}
		}
		ratio := median(ratios[tg.name])
		fmt.Printf("%s: median ratio %.2f of bare over %d rounds (target %.2f); rounds %.2f; median server CPU %.1f µs/req; %v\n",
			tg.name, ratio, rounds, tg.target, ratios[tg.name], median(cpuPerRequest[tg.name]), batches[tg.name])
		if ratio < tg.target { // the compared binary has no target
			t.Errorf("%s: metered throughput is %.2f of bare, want ≥ %.2f", tg.name, ratio, tg.target)
		}
	}
	fmt.Printf("load average after: %s\n", loadAverage())

	if profileDir != "" {
		for _, tg := range targets[1:] {
			p := profilers[tg.name]
			path := filepath.Join(profileDir, tg.name+".pprof")
			done := make(chan error, 1)
			go func() { done <- fetchProfile(p.addr, seconds, path) }()
			fmt.Printf("profiled round: %-8s %v\n", tg.name, wrk(t, dir, tg, connections, seconds))
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			fmt.Printf("CPU profile: %s (go tool pprof -top %s %s)\n", path, p.bin, path)
		}
	}
}

// meterTotals are the sums of the meter's histograms in /metrics: its
// transactions, the charges they committed and the seconds they took.
type meterTotals struct {
	transactions, charges, seconds float64
}

func (m meterTotals) minus(before meterTotals) meterTotals {
	return meterTotals{m.transactions - before.transactions, m.charges - before.charges, m.seconds - before.seconds}
}

func (m meterTotals) plus(more meterTotals) meterTotals {
	return meterTotals{m.transactions + more.transactions, m.charges + more.charges, m.seconds + more.seconds}
}

func (m meterTotals) String() string {
	if m.transactions == 0 {
		return "no meter transactions"
	}
	return fmt.Sprintf("%.0f meter transactions of %.1f charges, %.0f µs each",
		m.transactions, m.charges/m.transactions, 1e6*m.seconds/m.transactions)
}

// readMeterTotals reads the meter's totals from a server's -metrics-addr.
func readMeterTotals(t *testing.T, addr string) meterTotals {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	samples := map[string]float64{}
	lines := bufio.NewScanner(res.Body)
	for lines.Scan() {
		if name, value, ok := strings.Cut(lines.Text(), " "); ok && strings.HasPrefix(name, "secutil_meter_") {
			samples[name], _ = strconv.ParseFloat(value, 64)
		}
	}
	return meterTotals{
		transactions: samples["secutil_meter_batch_size_count"],
		charges:      samples["secutil_meter_batch_size_sum"],
		seconds:      samples["secutil_meter_commit_seconds_sum"],
	}
}

// addProAccount adds a pro account with bin's user add. The releases
// before this one's first-start rule create the database in user add; a
// binary as recent as this one opens only a database that exists, so the
// database is created first, as a first start would, when it says so.
func addProAccount(t *testing.T, bin, db, email string) {
	t.Helper()
	args := []string{"user", "add", "-db", db, "-email", email, "-password", cmdtest.Password, "-plan", "pro"}
	out, err := runCommand(bin, args...)
	if err != nil && bytes.Contains(out, []byte("only serve creates a database")) {
		cmdtest.NewDatabase(t, db)
		out, err = runCommand(bin, args...)
	}
	if err != nil {
		t.Fatalf("%s user add: %v\n%s", bin, err, out)
	}
}

// comparedBinaries reads SECUTIL_LOAD_COMPARE: one binary, named
// "compared", or a comma-separated list of NAME=BINARY. It returns name,
// binary pairs.
func comparedBinaries(list string) [][2]string {
	var out [][2]string
	for item := range strings.SplitSeq(list, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, bin, named := strings.Cut(item, "=")
		if !named {
			name, bin = "compared", item
		}
		out = append(out, [2]string{name, bin})
	}
	return out
}

// startLoadServer starts cmd with its standard error, the access log, going
// to the file logPath (as a service writes its log), and returns the URL
// from its "listening on" line and its process ID.
func startLoadServer(t *testing.T, cmd *exec.Cmd, logPath string) (string, int) {
	t.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd.Stderr = logFile
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m := cmdtest.ListenLine.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stdout)
			return m[1], cmd.Process.Pid
		}
	}
	t.Fatalf("%s did not say where it listens; see %s", cmd.Path, logPath)
	return "", 0
}

type wrkResult struct {
	requests int
	perSec   float64
	p50, p99 string
	cpu      time.Duration // the server process's CPU time during the run
	machine  machineCPU    // the whole machine's, during the run
}

func (r wrkResult) String() string {
	return fmt.Sprintf("%8.0f req/s  p50 %-8s p99 %-8s server CPU %5.1f µs/req (%d requests)  machine %4.1f%% idle, %5.1f µs/req busy",
		r.perSec, r.p50, r.p99, r.cpuPerRequest(), r.requests, r.idlePercent(), r.machineBusyPerRequest())
}

// idlePercent is the share of the machine's CPU time left idle during the
// run: what the server under test, waiting, did not give the load
// generator or itself to do.
func (r wrkResult) idlePercent() float64 {
	return 100 * float64(r.machine.idle) / float64(max(r.machine.total, 1))
}

// machineBusyPerRequest is the CPU time the whole machine spent per
// request, in µs: the server's, the load generator's and the kernel's.
// /proc/stat counts in clock ticks of 1/100 s.
func (r wrkResult) machineBusyPerRequest() float64 {
	return float64(r.machine.total-r.machine.idle-r.machine.steal) * 1e4 / float64(max(r.requests, 1))
}

func (r wrkResult) cpuPerRequest() float64 {
	return float64(r.cpu.Microseconds()) / float64(max(r.requests, 1))
}

func median(xs []float64) float64 {
	sorted := slices.Sorted(slices.Values(xs))
	return sorted[len(sorted)/2]
}

var (
	wrkRequests = regexp.MustCompile(`(\d+) requests in`)
	wrkPerSec   = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	wrkLatency  = regexp.MustCompile(`(?m)^\s+(50|99)%\s+(\S+)`)
)

// wrk posts loadBody to tg for seconds over connections keep-alive
// connections (two threads, one per core) and fails the test on any answer
// but 200.
func wrk(t *testing.T, dir string, tg loadTarget, connections, seconds int) wrkResult {
	t.Helper()
	return wrkUntil(context.Background(), t, dir, tg, connections, seconds)
}

// wrkUntil is wrk, cut short when ctx ends: wrk stops at SIGINT and
// reports the run so far.
func wrkUntil(ctx context.Context, t *testing.T, dir string, tg loadTarget, connections, seconds int) wrkResult {
	t.Helper()
	script := filepath.Join(dir, tg.name+".lua")
	lua := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %q\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", loadBody)
	if tg.key != "" {
		lua += fmt.Sprintf("wrk.headers[\"X-API-Key\"] = %q\n", tg.key)
	}
	if err := os.WriteFile(script, []byte(lua), 0o600); err != nil {
		t.Fatal(err)
	}
	cpuBefore, machineBefore := processCPU(t, tg.pid), readMachineCPU()
	cmd := exec.CommandContext(ctx, "wrk", "-t2", fmt.Sprintf("-c%d", connections), fmt.Sprintf("-d%ds", seconds), "--latency", "-s", script, tg.url)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	out, err := cmd.CombinedOutput()
	cpu, machineAfter := processCPU(t, tg.pid)-cpuBefore, readMachineCPU()
	if err != nil && ctx.Err() == nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "Non-2xx") || strings.Contains(text, "Socket errors") {
		t.Fatalf("%s answered errors:\n%s", tg.name, text)
	}
	r := wrkResult{cpu: cpu, machine: machineCPU{
		idle:  machineAfter.idle - machineBefore.idle,
		steal: machineAfter.steal - machineBefore.steal,
		total: machineAfter.total - machineBefore.total,
	}}
	if m := wrkRequests.FindStringSubmatch(text); m != nil {
		r.requests, _ = strconv.Atoi(m[1])
	}
	if m := wrkPerSec.FindStringSubmatch(text); m != nil {
		r.perSec, _ = strconv.ParseFloat(m[1], 64)
	}
	for _, m := range wrkLatency.FindAllStringSubmatch(text, -1) {
		if m[1] == "50" {
			r.p50 = m[2]
		} else {
			r.p99 = m[2]
		}
	}
	if r.perSec == 0 {
		t.Fatalf("no throughput in wrk's output:\n%s", text)
	}
	return r
}

// processCPU is the user and system CPU time process pid has used, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux).
func processCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func fetchProfile(addr string, seconds int, path string) error {
	res, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, seconds))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// freeLoopbackAddrs returns n loopback addresses with ports free a moment
// ago, distinct: each is held open until all are chosen.
func freeLoopbackAddrs(t *testing.T, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		addrs[i] = ln.Addr().String()
	}
	return addrs
}

func envInt(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return fallback
}
