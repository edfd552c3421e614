package store_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

func TestStats(t *testing.T) {
	t.Parallel()
	s, path := mustOpenStore(t)
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Pages not yet checkpointed from the WAL are not in the file.
	if st.SizeBytes < 4096 || st.SizeBytes < fi.Size() {
		t.Fatalf("size %d bytes, file %d bytes", st.SizeBytes, fi.Size())
	}
	if st.WriteConnections != 1 || st.ReadConnections < 1 {
		t.Fatalf("connections: %+v", st)
	}
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
