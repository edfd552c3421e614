package cmd

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// Lines wait in the buffer until a tick, then go out together; Close
// writes out the rest. The ticks are the test's, so no timer races it.
func TestLogBufferWritesOnEveryTick(t *testing.T) {
	t.Parallel()
	out := &cmdtest.SyncBuffer{}
	ticks := make(chan time.Time)
	stopped := false
	b := flushOnTicks(out, ticks, func() { stopped = true })
	b.Write([]byte("one\n"))
	b.Write([]byte("two\n"))
	if out.String() != "" {
		t.Fatalf("written before a tick: %q; want the lines gathered", out.String())
	}
	// The second tick is taken only once the first one's flush is done.
	ticks <- time.Now()
	ticks <- time.Now()
	if out.String() != "one\ntwo\n" {
		t.Fatalf("after a tick: %q", out.String())
	}
	b.Write([]byte("three\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\ntwo\nthree\n" {
		t.Fatalf("Close did not write out the last line: %q", out.String())
	}
	if !stopped {
		t.Fatal("Close left the ticks running")
	}
}

// newLogBuffer's own ticker writes a line out without Close.
func TestLogBufferFlushesOnItsOwn(t *testing.T) {
	t.Parallel()
	out := &cmdtest.SyncBuffer{}
	b := newLogBuffer(out)
	defer b.Close()
	b.Write([]byte("one\n"))
	for deadline := time.Now().Add(10 * time.Second); out.String() != "one\n"; time.Sleep(logFlushInterval / 10) {
		if time.Now().After(deadline) {
			t.Fatalf("not written out 10 s after, with a flush every %v", logFlushInterval)
		}
	}
}

// -access-log off (SECUTIL_ACCESS_LOG) leaves out the line of every
// request that succeeded in good time; on, the default, logs each.
func TestAccessLogSetting(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		setting string
		logged  bool
	}{{"", true}, {"on", true}, {"off", false}} {
		t.Run("access-log="+c.setting, func(t *testing.T) {
			t.Parallel()
			vars := env(map[string]string{"SECUTIL_DB": cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "log.db")), "SECUTIL_ADDR": "127.0.0.1:0",
				"SECUTIL_HASH_DB": cmdtest.SharedHashDB(t), "SECUTIL_ACCESS_LOG": c.setting})
			base, _, stderr, stop := serveInProcess(t, vars)
			res, err := http.Get(base + "/robots.txt")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			stop(t) // writes out the log
			if got := strings.Contains(stderr.String(), "msg=request method=GET path=/robots.txt status=200"); got != c.logged {
				t.Errorf("the request's line logged: %v, want %v; log:\n%s", got, c.logged, stderr)
			}
		})
	}
}
