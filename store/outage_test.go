package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/store"
	"secutil/store/pgtest"
)

// logBuffer is a log a test reads while stores write to it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// PostgreSQL restarted (pg_ctl restart -m fast) under metered calls from
// two stores, as two servers: every call is answered counted or
// ErrUnavailable, never another error, and within the retry budget none is
// unavailable; the count is exactly the calls answered counted; both stores
// serve again without being reopened; each logs the outage as one warning
// and its end as one info line, not an error per call. The test restarts a
// cluster of its own (pgtest.NewCluster), not the one other tests share.
func TestMeteredCallsRideOutARestart(t *testing.T) {
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	ctx := context.Background()
	var logs [2]logBuffer
	var stores [2]*store.Store
	for i := range stores {
		s, err := store.Open(ctx, cluster.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		s.SetLogger(slog.New(slog.NewTextHandler(&logs[i], nil)))
		stores[i] = s
	}
	const limit = 1_000_000
	id := mustAccount(t, stores[0], "load@example.com", store.PlanEnterprise)
	if err := stores[0].SetPlan(ctx, id, store.PlanEnterprise, nil, new(limit)); err != nil {
		t.Fatal(err)
	}
	hash := sha256.Sum256([]byte("the load's key"))
	if err := stores[0].IssueKey(ctx, id, "default", hash[:], "sk_…"); err != nil {
		t.Fatal(err)
	}

	var counted, unavailable atomic.Int64
	var restarted atomic.Bool
	var afterRestart [len(stores)]atomic.Int64
	// call is one metered call as the server makes it: the key's lookup,
	// a reservation, the charge.
	call := func(s *store.Store) error {
		key, _, err := s.KeyByHash(ctx, hash[:])
		if err != nil {
			return err
		}
		r, err := s.Reserve(ctx, id, limit)
		if err != nil {
			return err
		}
		defer r.Release()
		_, err = s.CommitUsage(ctx, store.Charge{AccountID: id, KeyID: key.ID, Cap: new(limit), Reservation: r})
		return err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for worker := range 8 {
		which := worker % len(stores)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				switch err := call(stores[which]); {
				case err == nil:
					counted.Add(1)
					if restarted.Load() {
						afterRestart[which].Add(1)
					}
				case errors.Is(err, store.ErrUnavailable):
					unavailable.Add(1)
				default:
					t.Errorf("a call failed with %v, which is not ErrUnavailable", err)
					return
				}
			}
		})
	}
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopLoad()

	waitUntil(t, 10*time.Second, "calls before the restart", func() bool { return counted.Load() >= 200 })
	before := counted.Load()
	start := time.Now()
	cluster.Restart(t)
	took := time.Since(start)
	restarted.Store(true)
	waitUntil(t, 15*time.Second, "both stores serving after the restart", func() bool {
		return afterRestart[0].Load() >= 50 && afterRestart[1].Load() >= 50
	})
	stopLoad()
	waitUntil(t, 5*time.Second, "both stores finding the database reachable again", func() bool {
		down0, _ := stores[0].Unreachable()
		down1, _ := stores[1].Unreachable()
		return !down0 && !down1
	})

	t.Logf("restart took %v; %d calls counted (%d before it), %d unavailable", took.Round(time.Millisecond), counted.Load(), before, unavailable.Load())
	if n := unavailable.Load(); n > 0 && took < store.RetryBudget/2 {
		t.Errorf("%d calls unavailable, though the restart took %v and the retry budget is %v", n, took, store.RetryBudget)
	}
	for i, s := range stores {
		if used, err := s.Usage(ctx, id); err != nil || int64(used) != counted.Load() {
			t.Errorf("store %d: usage %d, %v; want the %d calls answered counted", i, used, err, counted.Load())
		}
		log := logs[i].String()
		if strings.Count(log, "level=WARN") != 1 || strings.Count(log, "database reachable again") != 1 || strings.Contains(log, "level=ERROR") {
			t.Errorf("store %d: want the outage logged as one warning and its end as one info line; the log:\n%s", i, log)
		}
	}
}
