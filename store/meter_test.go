package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"secutil/store"
)

// BenchmarkCommitUsage is the meter's cost per call under concurrency, as
// 32 concurrent callers on two cores put it: the group commit's share of a
// metered call. SQLite always; PostgreSQL with SECUTIL_TEST_POSTGRES.
func BenchmarkCommitUsage(b *testing.B) {
	eachBenchBackend(b, func(b *testing.B, s *store.Store, charge store.Charge) {
		b.SetParallelism(16)
		b.ResetTimer()
		cpu := processCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.CommitUsage(context.Background(), charge); err != nil {
					b.Error(err)
					return
				}
			}
		})
		// Wall time per call is bound by the gather window; the CPU it
		// takes, both cores counted, is the cost to a server.
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkCommitUsageAlone is one call at a time, each its own batch: the
// meter's fixed cost per transaction, which the batches of a busy server
// share between their calls.
func BenchmarkCommitUsageAlone(b *testing.B) {
	eachBenchBackend(b, func(b *testing.B, s *store.Store, charge store.Charge) {
		for b.Loop() {
			if _, err := s.CommitUsage(context.Background(), charge); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// eachBenchBackend runs bench on SQLite and, with SECUTIL_TEST_POSTGRES, on
// PostgreSQL, with a fresh store and the charge of a call by one of its
// accounts.
func eachBenchBackend(b *testing.B, bench func(*testing.B, *store.Store, store.Charge)) {
	for _, backend := range []string{store.SQLite, store.Postgres} {
		b.Run(backend, func(b *testing.B) {
			s := newTestDB(b, backend).open(b)
			id, err := s.CreateAccount(context.Background(), store.NewAccount{Email: "bench@example.com", PasswordHash: "x", Plan: store.PlanPro, Verified: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			bench(b, s, store.Charge{AccountID: id, KeyID: 1})
		})
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCloseCommitsQueuedCharges(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, path := db.open(t), db.dsn
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		var wg sync.WaitGroup
		var mu sync.Mutex
		acked := 0
		for i := 0; i < 100; i++ {
			items := 1 + i%3 // batches among the single calls
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Items: items}); err == nil {
					mu.Lock()
					acked += items
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		s.Close()
		s2, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if got, _ := s2.Usage(ctx, id); got != acked {
			t.Fatalf("usage after reopen %d, acknowledged %d", got, acked)
		}
	})
}

// TestMeterObserver: the observer hears of every usage transaction, and
// the charges it is told of add up to those committed.
func TestMeterObserver(t *testing.T) {
	t.Parallel()
	// SQLite only: the observer is called by the meter's Go code around its
	// transaction; the meter's transactions run on PostgreSQL in the usage
	// tests.
	onSQLiteOnly(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanPro)
		var mu sync.Mutex
		charges, transactions := 0, 0
		s.ObserveMeter(func(n int, took time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if n < 1 || took <= 0 {
				t.Errorf("observed a transaction of %d charges taking %v", n, took)
			}
			charges += n
			transactions++
		})
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if _, err := s.CommitUsage(context.Background(), store.Charge{AccountID: id}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		if charges != 50 || transactions < 1 || transactions > 50 {
			t.Fatalf("observed %d charges in %d transactions, want 50", charges, transactions)
		}
	})
}

// One charge that cannot be stored fails alone; the others of its batch
// are counted.
func TestABadChargeFailsAlone(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		var wg sync.WaitGroup
		var failed atomic.Int64
		for i := range 64 {
			account := id
			if i == 32 {
				account = 999 // no such account: its usage row breaks the foreign key
			}
			wg.Go(func() {
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: account}); err != nil {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if got, _ := s.Usage(ctx, id); got != 63 || failed.Load() != 1 {
			t.Fatalf("usage %d with %d failures; want 63 and the one bad charge", got, failed.Load())
		}
	})
}
