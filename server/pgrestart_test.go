package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/store/pgtest"
)

// TestTwoServersRideOutAPostgresRestart: two servers on one PostgreSQL,
// metered calls from 8 goroutines spread over both, PostgreSQL restarted
// (pg_ctl restart -m fast) midway. No call answers 500, a 503 carries
// Retry-After, every 200 is counted exactly once, both servers serve again
// without a restart of their own, and each logs the outage as one warning,
// not an error per call. The cluster is this test's own (pgtest.NewCluster).
func TestTwoServersRideOutAPostgresRestart(t *testing.T) {
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	ctx := context.Background()
	var logs [2]safeBuffer
	var servers [2]*env
	for i := range servers {
		st, err := store.Open(ctx, cluster.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		logger := slog.New(slog.NewTextHandler(&logs[i], nil))
		st.SetLogger(logger)
		servers[i] = newEnv(t, func(d *server.Deps) { d.Store, d.Logger = st, logger })
		servers[i].store = st // accounts and usage on PostgreSQL too
	}
	const limit = 1_000_000
	first := servers[0]
	id := first.account("load@example.com", store.PlanEnterprise)
	if err := first.store.SetPlan(ctx, id, store.PlanEnterprise, nil, new(limit)); err != nil {
		t.Fatal(err)
	}
	key := first.post("/api/v1/get_api_key", map[string]string{"email": "load@example.com", "password": testPassword}).want(http.StatusOK).json()["api_key"].(string)

	var answered200, answered503 atomic.Int64
	meter := func(e *env) response {
		return e.post("/api/v1/hash_generator", map[string]string{"algorithm": "md5", "plaintext": "x"}, "X-API-Key", key)
	}
	var stopping atomic.Bool
	var wg sync.WaitGroup
	for worker := range 8 {
		which := worker % len(servers)
		e := servers[which]
		wg.Go(func() {
			for !stopping.Load() {
				res := meter(e)
				switch res.status {
				case http.StatusOK:
					answered200.Add(1)
				case http.StatusServiceUnavailable:
					answered503.Add(1)
					if res.header.Get("Retry-After") == "" {
						t.Errorf("server %d: a 503 without Retry-After: %s", which, res.body)
						return
					}
				default:
					t.Errorf("server %d: a metered call answered %d: %s", which, res.status, res.body)
					return
				}
			}
		})
	}
	stopLoad := sync.OnceFunc(func() { stopping.Store(true); wg.Wait() })
	defer stopLoad()

	waitFor(t, 10*time.Second, "calls before the restart", func() bool { return answered200.Load() >= 100 })
	cluster.Restart(t)
	sinceRestart := answered200.Load()
	waitFor(t, 15*time.Second, "calls answered 200 after the restart", func() bool { return answered200.Load() >= sinceRestart+100 })
	stopLoad()
	t.Logf("%d calls answered 200, %d answered 503", answered200.Load(), answered503.Load())

	for i, e := range servers {
		if res := meter(e); res.status != http.StatusOK {
			t.Errorf("server %d after the restart: %d %s", i, res.status, res.body)
		} else {
			answered200.Add(1)
		}
	}
	for i, e := range servers {
		if used := e.usage(id); int64(used) != answered200.Load() {
			t.Errorf("server %d reads usage %d; want the %d calls answered 200", i, used, answered200.Load())
		}
		log := logs[i].String()
		if strings.Count(log, "level=WARN") != 1 || strings.Contains(log, "level=ERROR") {
			t.Errorf("server %d: want the outage logged as one warning and no error; the log:\n%s", i, log)
		}
	}
}

// waitFor polls cond until it holds, failing t after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}
