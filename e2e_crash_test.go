package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
	"secutil/store/pgtest"
)

// TestCrashLosesNoAcknowledgedCall runs metered load against the real
// binary, kills it with SIGKILL mid-run, restarts it, and checks that every
// call the server acknowledged is counted (and its suggestion stored), that
// nothing unacknowledged beyond the calls in flight was counted, and that
// the database is sound: on SQLite, whose file the process was writing, by
// integrity_check; on PostgreSQL, which aborts the dead connection's
// transaction, by the counts alone.
func TestCrashLosesNoAcknowledgedCall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary under load")
	}
	bin := secutilBinary(t)
	for _, backend := range []string{store.SQLite, store.Postgres} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			crashUnderLoad(t, bin, testDatabase(t, backend, "crash.db"))
		})
	}
}

// testDatabase is a new, empty database: an SQLite file called name, or a
// PostgreSQL schema of its own (skipping without SECUTIL_TEST_POSTGRES).
func testDatabase(t *testing.T, backend, name string) string {
	if backend == store.Postgres {
		return pgtest.URL(t)
	}
	return filepath.Join(t.TempDir(), name)
}

// ackedBeforeKill is how many acknowledged calls the load reaches before
// the kill, with 16 more in flight.
const ackedBeforeKill = 300

func crashUnderLoad(t *testing.T, bin, db string) {
	// The hash index plays no part: the servers share the seeded one.
	index := cmdtest.SharedHashDB(t)
	cmd, base, _, key := serveWithAccount(t, bin, db, "load@example.com", "pro", "-hash-db", index)

	var acked, unanswered atomic.Int64
	cmdtest.MustStep(t, "SIGKILL under load after some acknowledged calls", func(t *testing.T) {
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
		stop, loaded := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/suggestion",
						bytes.NewReader([]byte(fmt.Sprintf(`{"message":"load %d"}`, i))))
					req.Header.Set("X-API-Key", key)
					res, err := client.Do(req)
					if err != nil {
						// Sent but unanswered: the server may or may not have counted it.
						unanswered.Add(1)
						return
					}
					res.Body.Close()
					if res.StatusCode == http.StatusOK && acked.Add(1) == ackedBeforeKill {
						close(loaded)
					}
				}
			}()
		}
		// Let the load build up, then kill the server without warning.
		select {
		case <-loaded:
		case <-time.After(10 * time.Second):
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		close(stop)
		wg.Wait()
		if acked.Load() == 0 {
			t.Fatal("no call was acknowledged before the kill")
		}
	})

	var usage int64
	cmdtest.MustStep(t, "after a restart every acknowledged call is counted", func(t *testing.T) {
		// The same file: the server recovers the WAL.
		cmd2, base2, _, _ := startBinary(t, bin, db, "-hash-db", index)
		defer func() { cmd2.Process.Kill(); cmd2.Wait() }()
		status, m := cmdtest.PostJSON(t, base2+"/api/v1/user_info", key, nil)
		if status != 200 {
			t.Fatalf("the key did not survive the crash: %d %v", status, m)
		}
		usage = int64(m["api_usage"].(float64))
		t.Logf("acknowledged %d, unanswered %d, counted %d", acked.Load(), unanswered.Load(), usage)
		if usage < acked.Load() || usage > acked.Load()+unanswered.Load() {
			t.Fatalf("counted %d calls; acknowledged %d with %d unanswered", usage, acked.Load(), unanswered.Load())
		}
	})

	t.Run("the database is intact and holds one suggestion per counted call", func(t *testing.T) {
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.IntegrityCheck(context.Background()); err != nil {
			t.Fatal(err)
		}
		suggestions, err := st.Suggestions(context.Background(), 1_000_000, 0)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(suggestions)) != usage {
			t.Fatalf("%d suggestions stored for %d counted calls", len(suggestions), usage)
		}
	})
}
