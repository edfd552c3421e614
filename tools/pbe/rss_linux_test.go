package pbe_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"secutil/internal/procstatus"
	"secutil/tools/pbe"
)

// loadSpecEnv tells a child started by peakRSS what load to run.
const loadSpecEnv = "SECUTIL_PBE_LOAD"

// loadSpec is a burst of simultaneous Encrypt calls on one Engine.
type loadSpec struct {
	concurrency, requests int
	params                pbe.Params
}

func (l loadSpec) String() string {
	return fmt.Sprintf("%d %d %d %d %d", l.concurrency, l.requests, l.params.MemoryKiB, l.params.Time, l.params.Parallelism)
}

// TestEncryptLoadChild is the child process of peakRSS: it runs the load
// named by SECUTIL_PBE_LOAD, alone in its process, so the process's peak
// resident memory is the load's.
func TestEncryptLoadChild(t *testing.T) {
	spec := os.Getenv(loadSpecEnv)
	if spec == "" {
		t.Skip("child process of TestConcurrentEncryptMemoryIsBounded and BenchmarkPeakRSS")
	}
	var l loadSpec
	if _, err := fmt.Sscan(spec, &l.concurrency, &l.requests, &l.params.MemoryKiB, &l.params.Time, &l.params.Parallelism); err != nil {
		t.Fatalf("%s=%q: %v", loadSpecEnv, spec, err)
	}
	e := pbe.NewEngine(l.concurrency, l.params)
	var wg sync.WaitGroup
	for i := range l.requests {
		wg.Go(func() {
			if _, err := e.Encrypt(ctx, fmt.Sprint("text ", i), "pw"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	fmt.Printf("peak-kib %d\n", procstatus.PeakRSS(t, procstatus.Self)>>10)
}

// peakRSS runs l in a child process and returns the child's peak resident
// memory (VmHWM) in MiB. The child reports it itself: the ru_maxrss that
// wait4 returns would carry this process's peak, since exec records the
// high-water mark of the memory the child shared with its parent.
func peakRSS(tb testing.TB, l loadSpec) float64 {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEncryptLoadChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), loadSpecEnv+"="+l.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("load %v: %v\n%s", l, err, out)
	}
	m := regexp.MustCompile(`peak-kib (\d+)`).FindSubmatch(out)
	if m == nil {
		tb.Fatalf("load %v: no peak reported:\n%s", l, out)
	}
	kib, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		tb.Fatal(err)
	}
	return kib / 1024
}

// TestConcurrentEncryptMemoryIsBounded checks the Engine's promise: however
// many calls arrive at once, at most `concurrency` key derivations hold
// their memory. It first measures an idle process and one derivation in
// this build (the race detector doubles both), then 10 simultaneous calls
// through two slots. The garbage collector lets the heap grow to twice its
// live size, so two slots peak near 4 derivations' worth; the ceiling allows
// 6, where no bound at all would take 10 (a peak of 166 MiB against a
// ceiling of 104 when measured).
func TestConcurrentEncryptMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("derives 11 keys of 16 MiB in child processes")
	}
	params := pbe.Params{MemoryKiB: 16 * 1024, Time: 1, Parallelism: 1}
	idle := peakRSS(t, loadSpec{concurrency: 1, requests: 0, params: params})
	perDerivation := peakRSS(t, loadSpec{concurrency: 1, requests: 1, params: params}) - idle
	burst := loadSpec{concurrency: 2, requests: 10, params: params}
	ceiling := idle + 3*float64(burst.concurrency)*perDerivation
	peak := peakRSS(t, burst)
	t.Logf("idle %.0f MiB, one derivation %.0f MiB; %d calls through %d slots: peak %.0f MiB (ceiling %.0f)",
		idle, perDerivation, burst.requests, burst.concurrency, peak, ceiling)
	if peak > ceiling {
		t.Fatalf("peak RSS %.0f MiB exceeds %.0f MiB: more than %d key derivations held memory at once", peak, ceiling, burst.concurrency)
	}
}

// BenchmarkPeakRSS reports the peak resident memory of the server's setting:
// 100 simultaneous encrypts with DefaultParams and one slot per CPU.
//
//	go test -run '^$' -bench PeakRSS -benchtime 1x ./tools/pbe
func BenchmarkPeakRSS(b *testing.B) {
	l := loadSpec{concurrency: runtime.NumCPU(), requests: 100, params: pbe.DefaultParams}
	var peak float64
	for b.Loop() {
		peak = max(peak, peakRSS(b, l))
	}
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(float64(l.concurrency), "slots")
}
