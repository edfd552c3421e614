package cmd

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// serveToCancel runs serve in-process on a new database with vars until
// the test calls the cancel it returns, with the cause it is given; done
// receives run's error.
func serveToCancel(t *testing.T, vars map[string]string) (base string, cancel context.CancelCauseFunc, done <-chan error) {
	t.Helper()
	all := map[string]string{"SECUTIL_DB": cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "drain.db")), "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t)}
	for k, v := range vars {
		all[k] = v
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	stdout, stderr := &cmdtest.SyncBuffer{}, &cmdtest.SyncBuffer{}
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, []string{"secutil"}, env(all), nil, stdout, stderr) }()
	return cmdtest.WaitForURL(t, stdout), cancel, errc
}

// health is GET /health's status code, its "status" and whether the
// server closes the connection after it (Connection: close).
func health(t *testing.T, base string) (int, string, bool) {
	t.Helper()
	res, err := http.Get(base + "/health")
	if err != nil {
		t.Fatalf("/health while draining: %v", err)
	}
	defer res.Body.Close()
	var m struct{ Status string }
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m.Status, res.Close
}

// TestServeDrainsOnSIGTERM: stopped by SIGTERM (the cause errTerminated,
// which stopOnSignal gives), serve answers /health with 503 "draining"
// for -drain while its other routes still answer, each answer closing its
// connection, then stops and returns nil.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	const grace = time.Second
	base, cancel, done := serveToCancel(t, map[string]string{"SECUTIL_DRAIN": grace.String()})
	if status, s, _ := health(t, base); status != http.StatusOK || s != "ok" {
		t.Fatalf("/health before SIGTERM: %d %q", status, s)
	}
	stopped := time.Now()
	cancel(errTerminated)
	for {
		status, s, closes := health(t, base)
		if status == http.StatusServiceUnavailable && s == "draining" {
			if !closes {
				t.Error("a draining answer keeps its connection open; want Connection: close")
			}
			break
		}
		if status != http.StatusOK || time.Since(stopped) > grace/2 {
			t.Fatalf("/health after SIGTERM: %d %q; want 503 draining within %v", status, s, grace/2)
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := http.Get(base + "/robots.txt")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/robots.txt while draining: %v %v; want 200", err, res)
	}
	res.Body.Close()
	// Without a key, so that the answer costs no password hash and comes
	// well within the drain even under -race.
	status, m := cmdtest.PostJSON(t, base+"/api/v1/base64", "", map[string]string{"text": "x", "option": "encode"})
	if status != http.StatusUnauthorized {
		t.Fatalf("an API call while draining: %d %v; want it answered (401)", status, m)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after draining: %v", err)
		}
		if took := time.Since(stopped); took < grace {
			t.Fatalf("run returned %v after SIGTERM, before the %v drain was over", took, grace)
		}
	case <-time.After(grace + 30*time.Second):
		t.Fatal("run did not return after the drain")
	}
}

// An interrupt (Ctrl-C), a cancelled context, and -drain 0 stop at once:
// /health never says draining, and run returns long before the grace.
func TestServeStopsAtOnceWithoutSIGTERM(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		drain string
		cause error
	}{
		{"interrupt", "10m", errInterrupted},
		{"cancelled", "10m", context.Canceled},
		{"-drain 0", "0", errTerminated},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, cancel, done := serveToCancel(t, map[string]string{"SECUTIL_DRAIN": c.drain})
			cancel(c.cause)
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("run is still serving 30 s after the stop")
			}
		})
	}
}
