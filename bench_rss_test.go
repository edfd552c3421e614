package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// TestPeakRSSOfSlowCalls runs the built binary and sends it 200 concurrent
// slow calls at once (scrypt and argon2id hashes, decryptions with a wrong
// password, and json_format at its limits, 50 of each), then reads the
// process's peak resident set (VmHWM). The memory-hard ones share the
// key-derivation slots, so the peak must stay under 1 GiB. docs/BENCHMARKS.md
// has the figures:
//
//	flock /tmp/secutil-measure.lock env SECUTIL_LOAD=1 go test -count=1 -run '^TestPeakRSSOfSlowCalls$' -v .
func TestPeakRSSOfSlowCalls(t *testing.T) {
	t.Parallel()
	if os.Getenv("SECUTIL_LOAD") == "" {
		t.Skip("a load run: SECUTIL_LOAD=1 go test -run TestPeakRSSOfSlowCalls -v .")
	}
	bin := buildBinary(t)
	cmd, base, _, key := serveWithAccount(t, bin, filepath.Join(t.TempDir(), "rss.db"), "load@example.com", "pro")
	status, m := cmdtest.PostJSON(t, base+"/api/v1/secure_encrypt", key, map[string]string{"text": "secret", "password": "right"})
	if status != 200 {
		t.Fatalf("secure_encrypt: %d %v", status, m)
	}
	envelope := m["result"].(string)
	// The largest JSON json_format accepts whose answer stays in bounds:
	// 512 KiB of a flat array formats to about 2.5 times its size.
	wide := "[" + strings.Repeat("1,", (512<<10)/2-2) + "1]"
	calls := []struct {
		path string
		body map[string]string
		want int
	}{
		{"/api/v1/hash_generator", map[string]string{"algorithm": "scrypt", "plaintext": "pw"}, 200},
		{"/api/v1/hash_generator", map[string]string{"algorithm": "argon2id", "plaintext": "pw"}, 200},
		{"/api/v1/secure_decrypt", map[string]string{"text": envelope, "password": "wrong"}, 400},
		{"/api/v1/json_format", map[string]string{"text": wide}, 200},
	}
	idle := peakRSS(t, cmd.Process.Pid)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan string, 200)
	for i := range 200 {
		c := calls[i%len(calls)]
		raw, _ := json.Marshal(c.body)
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, base+c.path, bytes.NewReader(raw))
			req.Header.Set("X-API-Key", key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			res.Body.Close()
			if res.StatusCode != c.want {
				errs <- fmt.Sprintf("%s: %d, want %d", c.path, res.StatusCode, c.want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("200 concurrent slow calls in %v: peak RSS %d MiB (%d MiB before them)", time.Since(start).Round(time.Millisecond), peak>>20, idle>>20)
	if peak >= 1<<30 {
		t.Fatalf("peak RSS %d MiB, want under 1 GiB", peak>>20)
	}
}

// peakRSS is the peak resident set of a process, in bytes (Linux).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
