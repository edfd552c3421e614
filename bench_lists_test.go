package main

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
	"secutil/tools/strength"
)

// TestListsBenchmark measures the list commands of docs/BENCHMARKS.md on
// the built binary, when SECUTIL_LISTS_BENCH names the ones to run
// (identify, check, audit, or all):
//
//	SECUTIL_LISTS_BENCH=all SECUTIL_LISTS_BENCH_DIR=/var/tmp/lists \
//	  go test -run '^TestListsBenchmark$' -v -timeout 3h .
//
// It writes its inputs into SECUTIL_LISTS_BENCH_DIR (a temporary folder
// when unset), keeps those already there (the same size and seed write the
// same file), and deletes them at the end unless SECUTIL_LISTS_BENCH_KEEP
// is set:
//
//   - identify: a file of 1,000,000 hashes of every kind people paste
//     (writeMixedHashes), identified by `secutil identify` on one core
//     (taskset -c 0, GOMAXPROCS=1) and on every core, then by hashid 3.1.4
//     (`hashid FILE`, one thread) and hashcat's `--identify` (on the first
//     SECUTIL_LISTS_BENCH_HASHCAT lines, 20,000 by default: it compares
//     every line with each of its modes) when they are installed;
//   - check: 1,000,000 passwords (benchPassword) rated by `secutil check`
//     on both cores against generated Pwned Passwords SHA-1 files of
//     10,000,000 and 100,000,000 lines (0.44 and 4.4 GB), warm, the goal
//     checked against the first;
//   - audit: secretsdumps of 100,000 and 1,000,000 accounts (half of their
//     NT hashes in the file) audited by `secutil audit` against a generated
//     200,000,000-line NTLM file (7.4 GB) and the index serve seeds, with
//     the page cache dropped first (this needs root).
//
// Each figure is the wall time, the process's CPU time and its peak
// resident memory, beside the load average: on a busy machine the wall
// time measures the neighbours too, so the CPU-bound runs (identify,
// hashid, check) are each the quickest of SECUTIL_LISTS_BENCH_RUNS (3). It fails when a figure misses the
// issue's target; SECUTIL_LISTS_BENCH_<NAME> overrides a target (see
// listsTarget).
func TestListsBenchmark(t *testing.T) {
	which := os.Getenv("SECUTIL_LISTS_BENCH")
	if which == "" {
		t.Skip("set SECUTIL_LISTS_BENCH=identify,check,audit (or all) to measure the list commands")
	}
	bin := buildBinary(t)
	dir := os.Getenv("SECUTIL_LISTS_BENCH_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var made []string // the inputs to delete at the end
	t.Cleanup(func() {
		if os.Getenv("SECUTIL_LISTS_BENCH_KEEP") == "" {
			for _, p := range made {
				os.RemoveAll(p)
			}
		}
	})
	input := func(name string, write func(w io.Writer) error) string {
		path := filepath.Join(dir, name)
		made = append(made, path)
		if _, err := os.Stat(path); err == nil {
			return path
		}
		start := time.Now()
		if err := writeInput(path, write); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		t.Logf("wrote %s, %.2f GB, in %s", name, float64(fi.Size())/1e9, time.Since(start).Round(time.Second))
		return path
	}
	t.Logf("machine: %s, %d cores; load %s", strings.TrimSpace(runOut("uname", "-srm")), nproc(), loadAverage())
	run := func(name string) bool { return which == "all" || slices.Contains(strings.Split(which, ","), name) }
	if run("identify") {
		benchIdentify(t, bin, input("mixed-hashes-1000000.txt", func(w io.Writer) error { return writeMixedHashes(w, 1_000_000) }))
	}
	if run("check") {
		passwords := input("passwords-1000000.txt", func(w io.Writer) error { return writePasswords(w, 1_000_000) })
		// The goal is checked against the 10 M-line file; the 100 M-line one
		// is measured beside it, where each digest is looked up alone.
		for _, c := range []struct {
			lines  float64
			target float64
		}{{10e6, listsTarget(t, "CHECK_LINES_S", 150_000)}, {100e6, 0}} {
			sha1File := input(fmt.Sprintf("pwned-sha1-%.0f.txt", c.lines), func(w io.Writer) error {
				_, _, err := breachtest.WriteUniform(w, c.lines, breach.KindSHA1, 1)
				return err
			})
			benchCheck(t, bin, passwords, sha1File, c.target)
		}
	}
	if run("audit") {
		ntlm := input("pwned-ntlm-200000000.txt", func(w io.Writer) error {
			_, _, err := breachtest.WriteUniform(w, 200e6, breach.KindNTLM, 1)
			return err
		})
		index := filepath.Join(dir, "bench-hashes.db")
		made = append(made, index, index+"-wal", index+"-shm", index+"-runs")
		cmdtest.SeedHashDB(t, index)
		for _, c := range []struct {
			accounts int
			limit    float64
		}{{100_000, listsTarget(t, "AUDIT_100K_S", 10)}, {1_000_000, listsTarget(t, "AUDIT_1M_S", 60)}} {
			dump := input(fmt.Sprintf("secretsdump-%d.txt", c.accounts), func(w io.Writer) error { return writeDump(w, ntlm, c.accounts) })
			benchAudit(t, bin, dump, ntlm, index, c.accounts, c.limit)
		}
	}
}

// listsTarget is SECUTIL_LISTS_BENCH_<name> from the environment, or def.
func listsTarget(t *testing.T, name string, def float64) float64 {
	return envFloat(t, "SECUTIL_LISTS_BENCH_"+name, def)
}

func nproc() int {
	n, _ := strconv.Atoi(strings.TrimSpace(runOut("nproc")))
	return n
}

// writeInput writes a file through write, into a temporary name renamed
// into place when complete.
func writeInput(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path + ".part")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(path+".part", path)
}

// timedRun is one timed run of a command.
type timedRun struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
	stderr    string
	status    int
}

func (r timedRun) String() string {
	return fmt.Sprintf("wall %s, CPU %s, peak RSS %d MiB", r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.maxRSS>>20)
}

// timeCommand runs name with args, its output discarded, and times it.
func timeCommand(t *testing.T, env []string, name string, args ...string) timedRun {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := timedRun{wall: time.Since(start), stderr: stderr.String()}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", name, err)
	}
	r.status = cmd.ProcessState.ExitCode()
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.maxRSS = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	return r
}

// bestOf runs the command SECUTIL_LISTS_BENCH_RUNS times (3 unless set)
// and returns the quickest run: on a shared machine the others measure
// the neighbours as much as the command. It logs every run's wall time.
func bestOf(t *testing.T, env []string, name string, args ...string) timedRun {
	t.Helper()
	var best timedRun
	var walls []string
	for i := range int(listsTarget(t, "RUNS", 3)) {
		r := timeCommand(t, env, name, args...)
		walls = append(walls, r.wall.Round(time.Millisecond).String())
		if i == 0 || r.wall < best.wall {
			best = r
		}
	}
	t.Logf("%s %s: runs of %s", name, strings.Join(args[:min(len(args), 4)], " "), strings.Join(walls, ", "))
	return best
}

// warm reads path once, so that a run reads it from the page cache.
func warm(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.Copy(io.Discard, f)
}

func benchIdentify(t *testing.T, bin, hashes string) {
	const lines = 1_000_000
	warm(t, hashes)
	// One core: the process may run on CPU 0 only, and Go uses one thread
	// for its goroutines.
	load := loadAverage()
	own := bestOf(t, []string{"GOMAXPROCS=1"}, "taskset", "-c", "0", bin, "identify", hashes)
	if own.status > 1 {
		t.Fatalf("secutil identify: status %d\n%s", own.status, own.stderr)
	}
	wallRate, cpuRate := lines/own.wall.Seconds(), lines/own.cpu.Seconds()
	t.Logf("secutil identify, one core: %s = %.0f lines/s wall, %.0f lines per CPU-second; load %s → %s", own, wallRate, cpuRate, load, loadAverage())
	if target := listsTarget(t, "IDENTIFY_LINES_S", 200_000); cpuRate < target {
		t.Errorf("secutil identify: %.0f lines per CPU-second, want at least %.0f", cpuRate, target)
	}
	// As a user runs it: every core.
	load = loadAverage()
	all := bestOf(t, nil, bin, "identify", hashes)
	t.Logf("secutil identify, %d cores: %s = %.0f lines/s wall; load %s → %s", nproc(), all, lines/all.wall.Seconds(), load, loadAverage())
	if _, err := exec.LookPath("hashid"); err == nil {
		load := loadAverage()
		other := bestOf(t, nil, "hashid", hashes)
		t.Logf("hashid %s (one thread): %s = %.0f lines/s wall, %.0f lines per CPU-second; load %s → %s",
			strings.TrimSpace(runOut("dpkg-query", "-W", "-f", "${Version}", "hashid")), other, lines/other.wall.Seconds(), lines/other.cpu.Seconds(), load, loadAverage())
		t.Logf("secutil identify is %.1f× faster than hashid as each runs by default (wall), %.1f× on one core (CPU time)",
			other.wall.Seconds()/all.wall.Seconds(), other.cpu.Seconds()/own.cpu.Seconds())
		if ratio, target := other.wall.Seconds()/all.wall.Seconds(), listsTarget(t, "IDENTIFY_VS_HASHID", 20); ratio < target {
			t.Errorf("secutil identify is %.1f× hashid's speed, want at least %.0f×", ratio, target)
		}
	} else {
		t.Log("hashid is not installed: not compared")
	}
	if _, err := exec.LookPath("hashcat"); err == nil {
		n := int(listsTarget(t, "HASHCAT", 20_000))
		head := filepath.Join(t.TempDir(), "head.txt")
		if err := writeInput(head, func(w io.Writer) error { return copyLines(w, hashes, n) }); err != nil {
			t.Fatal(err)
		}
		own := timeCommand(t, []string{"GOMAXPROCS=1"}, "taskset", "-c", "0", bin, "identify", head)
		other := timeCommand(t, nil, "taskset", "-c", "0", "hashcat", "--identify", "--quiet", head)
		t.Logf("hashcat --identify, one core, the first %d lines: %s = %.0f lines/s wall, %.0f lines per CPU-second; secutil identify on the same: %s; secutil is %.0f× faster (CPU)",
			n, other, float64(n)/other.wall.Seconds(), float64(n)/other.cpu.Seconds(), own, other.cpu.Seconds()/own.cpu.Seconds())
	}
}

// copyLines copies the first n lines of the file at path to w.
func copyLines(w io.Writer, path string, n int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; i < n && sc.Scan(); i++ {
		fmt.Fprintln(w, sc.Text())
	}
	return sc.Err()
}

// benchCheck measures check against sha1File and fails below target lines
// a second on two cores (none when 0).
func benchCheck(t *testing.T, bin, passwords, sha1File string, target float64) {
	const lines = 1_000_000
	warm(t, passwords)
	warm(t, sha1File)
	load := loadAverage()
	r := bestOf(t, nil, bin, "check", "-breach-file", sha1File, passwords)
	if r.status > 1 {
		t.Fatalf("secutil check: status %d\n%s", r.status, r.stderr)
	}
	wallRate, cpuRate := lines/r.wall.Seconds(), lines/r.cpu.Seconds()*float64(min(2, nproc()))
	fi, _ := os.Stat(sha1File)
	t.Logf("secutil check, strength, common and breach (%s, %.2f GB, warm), %d cores: %s = %.0f lines/s wall, %.0f lines/s on two idle cores (from the CPU time); load %s → %s",
		filepath.Base(sha1File), float64(fi.Size())/1e9, nproc(), r, wallRate, cpuRate, load, loadAverage())
	if cpuRate < target {
		t.Errorf("secutil check: %.0f lines/s on two cores, want at least %.0f", cpuRate, target)
	}
}

func benchAudit(t *testing.T, bin, dump, ntlm, index string, accounts int, limit float64) {
	if err := breachtest.DropPageCache(); err != nil {
		t.Fatalf("dropping the page cache (root only): %v", err)
	}
	load := loadAverage()
	r := timeCommand(t, nil, bin, "audit", "-breach-file-ntlm", ntlm, "-hash-db", index, dump)
	if r.status != 0 {
		t.Fatalf("secutil audit: status %d\n%s", r.status, r.stderr)
	}
	t.Logf("secutil audit, %d accounts, NTLM file and index cold: %s; load %s → %s", accounts, r, load, loadAverage())
	if r.wall.Seconds() > limit {
		t.Errorf("%d accounts: %s, want at most %.0f s", accounts, r.wall.Round(time.Millisecond), limit)
	}
	if mib := listsTarget(t, "AUDIT_RSS_MIB", 256); float64(r.maxRSS>>20) > mib {
		t.Errorf("%d accounts: peak RSS %d MiB, want at most %.0f", accounts, r.maxRSS>>20, mib)
	}
}

// writeDump writes a secretsdump of n accounts whose NT hashes are drawn
// as a batch of the NTLM file's (breachtest.Batch): half in the file
// (some shared by several accounts), half not.
func writeDump(w io.Writer, ntlm string, n int) error {
	digests, err := breachtest.Batch(ntlm, breach.KindNTLM, n, n/2, uint64(n))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "[*] Dumping Domain Credentials (domain\\uid:rid:lmhash:nthash)")
	for i, d := range digests {
		user := fmt.Sprintf("user%07d", i)
		if i%50 == 0 {
			user = fmt.Sprintf("WS%06d$", i)
		}
		if _, err := fmt.Fprintf(w, "CORP\\%s:%d:aad3b435b51404eeaad3b435b51404ee:%x::: (status=Enabled)\n", user, 1100+i, d); err != nil {
			return err
		}
	}
	return nil
}

// writeMixedHashes writes n lines of what people paste into a hash
// identifier, from seed-drawn words: raw MD5, SHA-1, SHA-256 and NT
// digests, LM:NT pairs, pwdump and secretsdump lines, user:hash lines,
// shadow lines (sha512crypt, md5crypt, yescrypt, descrypt, locked),
// bcrypt, Argon2 and PBKDF2 strings, and a few lines that are no hash.
func writeMixedHashes(w io.Writer, n int) error {
	rng := rand.New(rand.NewPCG(36, 2))
	const b64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	salt := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = b64[rng.IntN(len(b64))]
		}
		return string(b)
	}
	word := func() string { return benchPassword(rng) }
	md5hex := func(s string) string { d := md5.Sum([]byte(s)); return hex.EncodeToString(d[:]) }
	ntlm := func(s string) string { return hex.EncodeToString(breach.NTLM(s)) }
	const emptyLM = "aad3b435b51404eeaad3b435b51404ee"
	shadow := ":20000:0:99999:7:::"
	kinds := []struct {
		weight int
		line   func(i int) string
	}{
		{22, func(int) string { return md5hex(word()) }},
		{10, func(int) string { d := sha1.Sum([]byte(word())); return hex.EncodeToString(d[:]) }},
		{5, func(int) string { d := sha256.Sum256([]byte(word())); return hex.EncodeToString(d[:]) }},
		{8, func(int) string { return ntlm(word()) }},
		{4, func(int) string { return emptyLM + ":" + ntlm(word()) }},
		{14, func(i int) string { return fmt.Sprintf("u%d:%d:%s:%s:::", i, 1000+i%9000, emptyLM, ntlm(word())) }},
		{6, func(i int) string {
			return fmt.Sprintf(`CORP\u%d:%d:%s:%s::: (status=Enabled)`, i, 1000+i%9000, emptyLM, ntlm(word()))
		}},
		{10, func(i int) string { return fmt.Sprintf("u%d@example.com:%s", i, md5hex(word())) }},
		{8, func(i int) string { return fmt.Sprintf("u%d:$6$%s$%s%s", i, salt(16), salt(86), shadow) }},
		{2, func(i int) string { return fmt.Sprintf("u%d:$1$%s$%s%s", i, salt(8), salt(22), shadow) }},
		{2, func(i int) string { return fmt.Sprintf("u%d:$y$j9T$%s$%s%s", i, salt(22), salt(43), shadow) }},
		{1, func(i int) string { return fmt.Sprintf("u%d:%s%s", i, salt(13), shadow) }},
		{1, func(i int) string { return fmt.Sprintf("u%d:!*%s", i, shadow) }},
		{4, func(int) string { return "$2y$10$" + salt(53) }},
		{1, func(int) string { return "$argon2id$v=19$m=65536,t=3,p=4$" + salt(22) + "$" + salt(43) }},
		{1, func(int) string { return "pbkdf2_sha256$600000$" + salt(22) + "$" + salt(43) + "=" }},
		{1, func(int) string { return word() }},
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	for i := range n {
		r := rng.IntN(total)
		for _, k := range kinds {
			if r -= k.weight; r < 0 {
				if _, err := io.WriteString(w, k.line(i)+"\n"); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// benchCommon is the embedded common-password list, read once, on first
// use: decoding it at init would cost every process this test binary
// starts as secutil (secutilBinary) a few milliseconds.
var benchCommon = sync.OnceValue(strength.CommonPasswords)

// benchPassword draws a password as people choose them, in the shares of a
// leaked list such as RockYou's, mostly short: a common password as it is
// (35%), a common word and digits (30%), a capitalised word, a year and a
// symbol (10%), digits or a date (10%), random characters (10%), a
// passphrase of three words (5%).
func benchPassword(rng *rand.Rand) string {
	common := benchCommon()
	word := func() string { return common[rng.IntN(len(common))] }
	switch r := rng.IntN(100); {
	case r < 35:
		return word()
	case r < 65:
		return word() + strconv.Itoa(rng.IntN(10000))
	case r < 75:
		w := word()
		return strings.ToUpper(w[:1]) + w[1:] + strconv.Itoa(1950+rng.IntN(80)) + string("!#$.*"[rng.IntN(5)])
	case r < 85:
		return strconv.Itoa(rng.IntN(1_000_000_000))
	case r < 95:
		const chars = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!@#%&*-_"
		b := make([]byte, 8+rng.IntN(7))
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	default:
		return word() + " " + word() + " " + word()
	}
}

// writePasswords writes n passwords (benchPassword), one a line.
func writePasswords(w io.Writer, n int) error {
	rng := rand.New(rand.NewPCG(36, 3))
	for range n {
		if _, err := io.WriteString(w, benchPassword(rng)+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// TestBenchInputs: the generators write what the benchmark counts on: the
// line counts, and the same file for the same seed.
func TestBenchInputs(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	if err := writeMixedHashes(&a, 2000); err != nil {
		t.Fatal(err)
	}
	writeMixedHashes(&b, 2000)
	if a.String() != b.String() || strings.Count(a.String(), "\n") != 2000 {
		t.Fatal("writeMixedHashes: not the same 2,000 lines twice")
	}
	var p strings.Builder
	writePasswords(&p, 1000)
	if lines := strings.Split(strings.TrimSuffix(p.String(), "\n"), "\n"); len(lines) != 1000 || slices.Contains(lines, "") {
		t.Errorf("writePasswords: %d lines", len(lines))
	}
}
