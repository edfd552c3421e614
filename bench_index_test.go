package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/store/hashindex"
)

// TestIndexBenchmark is the reverse-lookup benchmark of docs/BENCHMARKS.md, run on the
// built binary when SECUTIL_INDEX_BENCH_WORDS is set:
//
//	SECUTIL_INDEX_BENCH_WORDS=100000000 SECUTIL_INDEX_BENCH_DIR=/work/bench \
//	  go test -run '^TestIndexBenchmark$' -v -timeout 3h .
//
// It writes the deterministic N-line wordlist (benchWord), imports it with
// `secutil import-wordlist` (wall time, peak RSS, the slowest 10-second stretch), measures
// the index on disk, imports the list again (it must add nothing), then serves the index
// and times single and 500-hash lookups over HTTP, first with the index's files evicted
// from the page cache (the first lookups after a start) and then warm, and single lookups
// in-process. It fails when a figure misses its threshold: the targets by
// default, each settable through the environment (see threshold).
func TestIndexBenchmark(t *testing.T) {
	t.Parallel()
	words, _ := strconv.ParseInt(os.Getenv("SECUTIL_INDEX_BENCH_WORDS"), 10, 64)
	if words <= 0 {
		t.Skip("set SECUTIL_INDEX_BENCH_WORDS to run the index benchmark")
	}
	bin := buildBinary(t)
	dir := os.Getenv("SECUTIL_INDEX_BENCH_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	list := filepath.Join(dir, fmt.Sprintf("bench-%d.txt", words))
	if _, err := os.Stat(list); err != nil {
		writeBenchList(t, list, words)
	}
	db := filepath.Join(dir, "bench.db")
	index := filepath.Join(dir, "bench-hashes.db") // where serve finds it by default, beside bench.db
	for _, p := range []string{db, db + "-wal", db + "-shm", index, index + "-wal", index + "-shm", index + "-runs"} {
		os.RemoveAll(p)
	}
	t.Cleanup(func() {
		if os.Getenv("SECUTIL_INDEX_BENCH_KEEP") == "" {
			os.RemoveAll(index + "-runs")
		}
	})
	t.Logf("machine: %s; load %s", strings.TrimSpace(runOut("uname", "-srm")), loadAverage())

	first := timedImport(t, bin, index, list)
	entries := 5 * distinctWords(words)
	if !strings.Contains(first.summary, fmt.Sprintf("; %d index entries added", entries)) {
		t.Fatalf("first import: %q, want %d entries", first.summary, entries)
	}
	size := indexBytes(index)
	firstRate := float64(words) / first.wall.Seconds()
	// On a busy machine the wall time measures the neighbours too; the process's CPU time
	// over the cores it could use bounds what the same import does on an idle machine.
	t.Logf("import: %d words in %s = %.0f words/s (slowest 10 s: %.0f words/s), peak RSS %d MiB, steal %.1f%%; CPU %s (%.0f words per CPU-second, %.0f words/s on %d idle cores)",
		words, first.wall.Round(time.Millisecond), firstRate, first.slowest, first.maxRSS>>20, first.steal,
		first.cpu.Round(time.Second), float64(words)/first.cpu.Seconds(), float64(words)/first.cpu.Seconds()*float64(runtime.NumCPU()), runtime.NumCPU())
	t.Logf("index: %d entries, %d bytes = %.2f bytes/entry; write-ahead log at most %.1f MiB during the import; runs: %s",
		entries, size, float64(size)/float64(entries), float64(first.maxWAL)/(1<<20), runsSummary(t, index))
	again := timedImport(t, bin, index, list)
	if !strings.Contains(again.summary, "(0 new, ") || strings.Contains(again.summary, "; skipped") || !strings.Contains(again.summary, "; 0 index entries added") || indexBytes(index) > size {
		t.Errorf("re-import added something: %q, %d bytes after, %d before", again.summary, indexBytes(index), size)
	}
	againRate := float64(words) / again.wall.Seconds()
	t.Logf("re-import: %.0f words/s (%.2f× the first), peak RSS %d MiB, adds nothing; CPU %s (%.0f words per CPU-second)",
		againRate, againRate/firstRate, again.maxRSS>>20, again.cpu.Round(time.Second), float64(words)/again.cpu.Seconds())

	// Lookups: each 500-hash request asks 100 words of the list under md5, sha1, sha256
	// and sha512 (400 hits) and 100 md5 digests of no word (misses, tried as md5 and ntlm).
	rng := rand.New(rand.NewPCG(uint64(words), 9))
	request := func(n int) (string, int) {
		var b strings.Builder
		hits := 0
		asked := map[string]bool{} // the server answers a repeated hash once
		for i := range n {
			w := []byte(benchWord(rng.Int64N(words)))
			for asked[string(w)] {
				w = []byte(benchWord(rng.Int64N(words)))
			}
			asked[string(w)] = true
			var d []byte
			switch i % 5 {
			case 0:
				d = []byte(hexMD5(string(w)))
			case 1:
				s := sha1.Sum(w)
				d = []byte(hex.EncodeToString(s[:]))
			case 2:
				d = []byte(hexSHA256(string(w)))
			case 3:
				s := sha512.Sum512(w)
				d = []byte(hex.EncodeToString(s[:]))
			case 4:
				d = []byte(hexMD5(string(w) + "\x00missing"))
			}
			if i%5 != 4 {
				hits++
			}
			b.Write(d)
			b.WriteByte('\n')
		}
		return b.String(), hits
	}
	evicted := evictFromPageCache(index) // before serve opens it; user add does not
	cmd, base, _, key := serveWithAccount(t, bin, db, "bench@example.com", "pro")
	client := &http.Client{Timeout: time.Minute}
	lookup := func(hashes string, wantFound int) time.Duration {
		body, _ := json.Marshal(map[string]string{"hashes": hashes})
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/hash_lookup", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		elapsed := time.Since(start)
		var answer struct {
			Summary struct {
				TotalFound int `json:"total_found"`
			}
		}
		if res.StatusCode != http.StatusOK || json.Unmarshal(data, &answer) != nil || answer.Summary.TotalFound != wantFound {
			t.Fatalf("hash_lookup: %d, %d found, want %d: %.300s", res.StatusCode, answer.Summary.TotalFound, wantFound, data)
		}
		return elapsed
	}
	if evicted {
		var single, batch []time.Duration
		for range 5 {
			single = append(single, lookup(request(1)))
		}
		for range 5 {
			batch = append(batch, lookup(request(hashindex.MaxLookupBatch)))
		}
		t.Logf("cold (index evicted from the page cache, server just started): single lookups over HTTP %v; 500-hash lookups %v", roundAll(single), roundAll(batch))
	} else {
		t.Logf("cold: could not evict the index from the page cache (dd iflag=nocache)")
	}
	readAll(index) // warm: the whole index in the page cache
	var single, batch []time.Duration
	for range 2000 {
		single = append(single, lookup(request(1)))
	}
	for range 300 {
		batch = append(batch, lookup(request(hashindex.MaxLookupBatch)))
	}
	singleMedian, _, singleMax := percentiles(single)
	median, p99, worst := percentiles(batch)
	t.Logf("warm, over HTTP: single lookup median %s (max %s); 500-hash lookup median %s, p99 %s, max %s (%d requests); load %s",
		singleMedian, singleMax, median, p99, worst, len(batch), loadAverage())
	cmd.Process.Kill()
	cmd.Wait()

	ix, err := hashindex.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var inProcess []time.Duration
	for range 20_000 {
		hashes, found := request(1)
		start := time.Now()
		hit, err := ix.Lookup(context.Background(), strings.TrimSpace(hashes), nil)
		inProcess = append(inProcess, time.Since(start))
		if err != nil || hit.Found != (found == 1) {
			t.Fatalf("Lookup: %+v, %v", hit, err)
		}
	}
	lookupMedian, lookupP99, _ := percentiles(inProcess)
	var many []time.Duration
	for range 300 {
		hashes, found := request(hashindex.MaxLookupBatch)
		start := time.Now()
		hits, err := ix.LookupMany(context.Background(), strings.Fields(hashes))
		many = append(many, time.Since(start))
		if err != nil || countFound(hits) != found {
			t.Fatalf("LookupMany: %d found, want %d (%v)", countFound(hits), found, err)
		}
	}
	manyMedian, manyP99, _ := percentiles(many)
	t.Logf("in process: single lookup (Index.Lookup) median %s, p99 %s; 500-hash lookup (Index.LookupMany) median %s, p99 %s",
		lookupMedian, lookupP99, manyMedian, manyP99)

	for _, c := range []struct {
		name       string
		got, limit float64
		atMost     bool
	}{
		{"import words/s", firstRate, threshold(t, "MIN_RATE", 250_000), false},
		// Robust to a busy machine: the target rate needs at most this many words per
		// CPU-second on the 2 cores of the target machine.
		{"import words per CPU-second", float64(words) / first.cpu.Seconds(), threshold(t, "MIN_CPU_RATE", 125_000), false},
		{"re-import words/s", againRate, firstRate * threshold(t, "MIN_REIMPORT_RATIO", 1), false},
		{"peak RSS MiB", float64(first.maxRSS >> 20), threshold(t, "MAX_RSS_MB", 1024), true},
		{"re-import peak RSS MiB", float64(again.maxRSS >> 20), threshold(t, "MAX_RSS_MB", 1024), true},
		{"write-ahead log MiB", float64(first.maxWAL) / (1 << 20), threshold(t, "MAX_WAL_MB", 64), true},
		{"bytes per entry", float64(size) / float64(entries), threshold(t, "MAX_BYTES_PER_ENTRY", 20), true},
		{"single lookup µs", float64(lookupMedian.Microseconds()), threshold(t, "MAX_LOOKUP_US", 100), true},
		{"500-hash median ms", float64(median.Microseconds()) / 1000, threshold(t, "MAX_MEDIAN_MS", 25), true},
		{"500-hash p99 ms", float64(p99.Microseconds()) / 1000, threshold(t, "MAX_P99_MS", 60), true},
	} {
		if c.atMost && c.got > c.limit || !c.atMost && c.got < c.limit {
			t.Errorf("%s: %.1f, limit %.1f", c.name, c.got, c.limit)
		}
	}
}

// runsSummary lists, per algorithm, the number of runs and the largest.
func runsSummary(t *testing.T, index string) string {
	ix, err := hashindex.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	counts, err := ix.RunCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, c := range counts {
		parts = append(parts, fmt.Sprintf("%s %d (largest %d entries)", c.Algorithm, c.Runs, c.Largest))
	}
	return strings.Join(parts, ", ")
}

func countFound(hits []hashindex.Hit) int {
	n := 0
	for _, h := range hits {
		if h.Found {
			n++
		}
	}
	return n
}

// threshold is SECUTIL_INDEX_BENCH_<name> from the environment, or def.
func threshold(t *testing.T, name string, def float64) float64 {
	return envFloat(t, "SECUTIL_INDEX_BENCH_"+name, def)
}

// envFloat is the number in the environment variable, or def when it is
// not set.
func envFloat(t *testing.T, variable string, def float64) float64 {
	s := os.Getenv(variable)
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", variable, s, err)
	}
	return v
}

type importRun struct {
	cpu     time.Duration // user and system time of the process
	maxWAL  int64         // bytes: the largest the index's write-ahead log was seen (every 50 ms)
	wall    time.Duration
	maxRSS  int64   // bytes
	slowest float64 // words/s over the slowest interval between progress lines
	steal   float64 // percent of the machine's CPU time stolen by the hypervisor meanwhile
	summary string
}

var progressWords = regexp.MustCompile(`^(\d+) words, `)

// timedImport runs `secutil import-wordlist` on list and times it.
func timedImport(t *testing.T, bin, index, list string) importRun {
	t.Helper()
	cmd := exec.Command(bin, "import-wordlist", "-hash-db", index, list)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, _ := cmd.StderrPipe()
	before := readMachineCPU()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := importRun{slowest: -1}
	walDone := make(chan struct{})
	walWatched := make(chan int64)
	go func() {
		var largest int64
		for {
			if fi, err := os.Stat(index + "-wal"); err == nil {
				largest = max(largest, fi.Size())
			}
			select {
			case <-walDone:
				walWatched <- largest
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	lastWords, lastAt := int64(0), start
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if m := progressWords.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			if now := time.Now(); n > lastWords && now.Sub(lastAt) > 5*time.Second {
				if rate := float64(n-lastWords) / now.Sub(lastAt).Seconds(); run.slowest < 0 || rate < run.slowest {
					run.slowest = rate
				}
				lastWords, lastAt = n, now
			}
		}
	}
	err := cmd.Wait()
	run.wall = time.Since(start)
	close(walDone)
	run.maxWAL = <-walWatched
	if err != nil {
		t.Fatalf("import-wordlist: %v\n%s", err, log.String())
	}
	after := readMachineCPU()
	if after.total > before.total {
		run.steal = 100 * float64(after.steal-before.steal) / float64(after.total-before.total)
	}
	run.maxRSS = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	run.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	run.summary = strings.TrimSpace(stdout.String())
	return run
}

// machineCPU is the machine's CPU time, all cores, in clock ticks, from
// the first line of /proc/stat.
type machineCPU struct{ idle, steal, total int64 }

func readMachineCPU() machineCPU {
	var m machineCPU
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return m
	}
	fields := strings.Fields(strings.SplitN(string(data), "\n", 2)[0])
	for i, f := range fields[1:] {
		n, _ := strconv.ParseInt(f, 10, 64)
		switch i {
		case 3, 4: // idle, iowait
			m.idle += n
		case 7:
			m.steal = n
		}
		if i < 8 { // user nice system idle iowait irq softirq steal
			m.total += n
		}
	}
	return m
}

func loadAverage() string {
	data, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(data))[:min(3, len(strings.Fields(string(data))))], " ")
}

func runOut(name string, args ...string) string {
	out, _ := exec.Command(name, args...).Output()
	return string(out)
}

// indexFiles are the files of the index at path.
func indexFiles(path string) []string {
	runs, _ := filepath.Glob(path + "-runs/*.run")
	return append([]string{path, path + "-wal"}, runs...)
}

func indexBytes(path string) int64 {
	var n int64
	for _, f := range indexFiles(path) {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// evictFromPageCache drops the index's files from the page cache (GNU dd's nocache), and
// reports whether it could.
func evictFromPageCache(path string) bool {
	exec.Command("sync").Run()
	for _, f := range indexFiles(path) {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if exec.Command("dd", "if="+f, "iflag=nocache", "count=0", "status=none").Run() != nil {
			return false
		}
	}
	return true
}

func readAll(path string) {
	for _, name := range indexFiles(path) {
		if f, err := os.Open(name); err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
	}
}

// percentiles returns the median, the 99th percentile and the maximum.
func percentiles(d []time.Duration) (median, p99, worst time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Microsecond), s[len(s)*99/100].Round(time.Microsecond), s[len(s)-1].Round(time.Microsecond)
}

func roundAll(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, x := range d {
		out[i] = x.Round(100 * time.Microsecond)
	}
	return out
}

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
	const lines = 200_000
	seen := make(map[string]int64, lines) // sized: growing it was a third of the test's CPU
	for i := range int64(lines) {
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

func hexMD5(w string) string { d := md5.Sum([]byte(w)); return hex.EncodeToString(d[:]) }

func hexSHA256(w string) string { d := sha256.Sum256([]byte(w)); return hex.EncodeToString(d[:]) }
