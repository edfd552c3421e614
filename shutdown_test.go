package main

import (
	"bytes"
	"net/http"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestShutdownLeavesNoGoroutine serves with every listener (-metrics-addr
// and -pprof-addr too), hands the outbox a job, cancels, and finds none of
// the goroutines serve started still running once run has returned.
//
// Not parallel: it compares the process's goroutines before and after,
// which tests running meanwhile would add to.
func TestShutdownLeavesNoGoroutine(t *testing.T) {
	before := goroutines()
	db := filepath.Join(t.TempDir(), "shutdown.db")
	base, stdout, _, stop := serveInProcess(t, env(map[string]string{
		"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": sharedHashDB(t),
		"SECUTIL_METRICS_ADDR": "127.0.0.1:0", "SECUTIL_PPROF_ADDR": "127.0.0.1:0",
	}))
	for _, want := range []string{"metrics on http://", "profiler on http://"} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("start message lacks %q:\n%s", want, stdout)
		}
	}
	if status, m := postJSON(t, base+"/forgot-password", "", map[string]string{"email": "nobody@example.com"}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d %v", status, m) // its mail job runs on an outbox worker
	}
	stop(t)
	http.DefaultClient.CloseIdleConnections()

	// A goroutine told to stop may take a moment to be gone from the list.
	var left []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if left = newGoroutines(before, goroutines()); len(left) == 0 {
			return
		}
	}
	t.Fatalf("%d goroutines outlived the server:\n\n%s", len(left), strings.Join(left, "\n\n"))
}

var goroutineHeader = regexp.MustCompile(`^goroutine (\d+) `)

// goroutines are the stacks of the process's goroutines by id.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, stack := range bytes.Split(buf, []byte("\n\n")) {
		if m := goroutineHeader.FindSubmatch(stack); m != nil {
			out[string(m[1])] = string(stack)
		}
	}
	return out
}

// processWide are goroutines the first use of a package starts for the
// rest of the process, whoever used it: not the server's to stop.
var processWide = []string{"os/signal.loop", "os/signal.signal_recv"}

// newGoroutines are the stacks in after whose goroutines were not in
// before, but for the test's own and the process-wide ones.
func newGoroutines(before, after map[string]string) []string {
	var out []string
	for id, stack := range after {
		if _, old := before[id]; old || strings.Contains(stack, "testing.tRunner") {
			continue
		}
		if !containsAny(stack, processWide) {
			out = append(out, stack)
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
