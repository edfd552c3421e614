package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/internal/procstatus"
)

// TestPeakRSSOfSlowCalls runs the built binary and sends it 200 concurrent
// slow calls at once (scrypt and argon2id hashes, decryptions with a wrong
// password, and json_format at its limits, 50 of each; a call refused busy
// is sent again until it is answered), then reads the process's peak
// resident set (VmHWM). The memory-hard ones share the key-derivation
// slots, so the peak must stay under 1 GiB. docs/BENCHMARKS.md has the
// figures:
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
	idle := procstatus.PeakRSS(t, cmd.Process.Pid)
	start := time.Now()
	var wg sync.WaitGroup
	var busy atomic.Int64
	errs := make(chan string, 200)
	for i := range 200 {
		c := calls[i%len(calls)]
		raw, _ := json.Marshal(c.body)
		wg.Go(func() {
			// A call refused 503 busy (one client's share of the large
			// answers is taken) is sent again at once, so that the load
			// stays at its worst until every call is answered.
			for {
				req, _ := http.NewRequest(http.MethodPost, base+c.path, bytes.NewReader(raw))
				req.Header.Set("X-API-Key", key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				res.Body.Close()
				if res.StatusCode == http.StatusServiceUnavailable && time.Since(start) < time.Minute {
					busy.Add(1)
					continue
				}
				if res.StatusCode != c.want {
					errs <- fmt.Sprintf("%s: %d, want %d", c.path, res.StatusCode, c.want)
				}
				return
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	peak := procstatus.PeakRSS(t, cmd.Process.Pid)
	t.Logf("200 concurrent slow calls in %v (%d refused busy and sent again): peak RSS %d MiB (%d MiB before them)", time.Since(start).Round(time.Millisecond), busy.Load(), peak>>20, idle>>20)
	if peak >= 1<<30 {
		t.Fatalf("peak RSS %d MiB, want under 1 GiB", peak>>20)
	}
}
