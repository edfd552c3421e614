package breach_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"secutil/internal/procstatus"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

// coldBatchEnv turns TestColdBatch on. It writes a 7 GB file and drops the
// machine's page cache (root), so it never runs by default.
const coldBatchEnv = "SECUTIL_BREACH_BATCH_COLD"

// TestColdBatch is the measurement of a password audit's breach lookups
// (issue 36): a batch of 100,000 and one of 1,000,000 NTLM digests, half of
// them in the file, against a generated 200,000,000-line NTLM file with the
// page cache dropped, in at most 10 and 60 s, with the process's peak
// resident memory at most 256 MiB. The file is written into a temporary
// directory outside the checkout and deleted after, unless
// SECUTIL_BREACH_BATCH_FILE names where to keep it (an existing file there
// is used as it is); SECUTIL_BREACH_BATCH_LINES sets its size.
//
//	SECUTIL_BREACH_BATCH_COLD=1 go test -run TestColdBatch -v -timeout 30m ./tools/breach
func TestColdBatch(t *testing.T) {
	if os.Getenv(coldBatchEnv) == "" {
		t.Skip("set " + coldBatchEnv + "=1 to run (writes 7 GB and drops the page cache as root)")
	}
	lines := 200e6
	if s := os.Getenv("SECUTIL_BREACH_BATCH_LINES"); s != "" {
		var err error
		if lines, err = strconv.ParseFloat(s, 64); err != nil || lines < 1 {
			t.Fatalf("SECUTIL_BREACH_BATCH_LINES=%q: want a positive number", s)
		}
	}
	path := os.Getenv("SECUTIL_BREACH_BATCH_FILE")
	if path == "" {
		dir, err := os.MkdirTemp("", "secutil-breach-batch-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		path = filepath.Join(dir, "pwned-ntlm.txt")
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		start := time.Now()
		n, size, err := writeUniformFile(path, lines)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d lines, %.2f GB, in %s", n, float64(size)/1e9, time.Since(start).Round(time.Second))
	} else if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		digests int
		limit   time.Duration
	}{{100_000, 10 * time.Second}, {1_000_000, 60 * time.Second}} {
		digests, err := breachtest.Batch(path, breach.KindNTLM, c.digests, c.digests/2, uint64(c.digests))
		if err != nil {
			t.Fatal(err)
		}
		if err := breachtest.DropPageCache(); err != nil {
			t.Fatal(err)
		}
		if err := procstatus.ResetPeak(); err != nil {
			t.Fatal(err)
		}
		before, err := breachtest.ProcIO()
		if err != nil {
			t.Fatal(err)
		}
		load := breachtest.LoadAverage()
		start := time.Now()
		f, err := breach.OpenFile(path, breach.KindNTLM)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := f.CountMany(context.Background(), digests, nil)
		elapsed := time.Since(start)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		after, err := breachtest.ProcIO()
		if err != nil {
			t.Fatal(err)
		}
		peak := procstatus.MiB(procstatus.PeakResident)
		found := 0
		for _, h := range hits {
			if h.Found {
				found++
			}
		}
		t.Logf("%d digests against %.2f GB: %s, %d found; %d read calls, %.2f GB from disk; peak RSS %.0f MiB; load average %s before, %s after",
			c.digests, float64(f.Size())/1e9, elapsed.Round(time.Millisecond), found, after["syscr"]-before["syscr"],
			float64(after["read_bytes"]-before["read_bytes"])/1e9, peak, load, breachtest.LoadAverage())
		// The random half is absent but by a chance of about 2^-100.
		if found != c.digests/2 {
			t.Errorf("%d digests: %d found, want the %d drawn from the file", c.digests, found, c.digests/2)
		}
		if elapsed > c.limit || peak > 256 {
			t.Errorf("%d digests: %s and %.0f MiB, want at most %s and 256 MiB", c.digests, elapsed.Round(time.Millisecond), peak, c.limit)
		}
	}
}
