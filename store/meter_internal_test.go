package store

import (
	"context"
	"runtime"
	"testing"
)

func TestBatchTargetIsHalfTheClients(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		clients func() int
		want    int
	}{
		{nil, 0},                     // not told: every batch waits out the window
		{func() int { return 0 }, 1}, // no client lately: commit at once
		{func() int { return 1 }, 1},
		{func() int { return 2 }, 1},
		{func() int { return 3 }, 1},
		{func() int { return 5 }, 2},
		{func() int { return 32 }, 16},
	} {
		m := &meter{}
		m.clients.Store(&tc.clients)
		if got := m.batchTarget(); got != tc.want {
			n := -1
			if tc.clients != nil {
				n = tc.clients()
			}
			t.Errorf("%d clients: target %d, want %d", n, got, tc.want)
		}
	}
}

// TestBatchFullAtTarget: the charge that brings the pending batch to half
// the clients marks it full, which ends the meter's gather window; the
// charges before it do not. No meter goroutine runs: the test answers the
// batch itself.
func TestBatchFullAtTarget(t *testing.T) {
	t.Parallel()
	m := &meter{wake: make(chan struct{}, 1)}
	clients := func() int { return 6 } // a full batch holds 3
	m.clients.Store(&clients)
	answered := make(chan error, 3)
	for i := 1; i <= 3; i++ {
		go func() {
			_, err := m.submit(context.Background(), Charge{AccountID: int64(i)})
			answered <- err
		}()
		b := waitForCharges(m, i)
		select {
		case <-b.full:
			if i < 3 {
				t.Fatalf("batch full at %d charges, want 3", i)
			}
		default:
			if i == 3 {
				t.Fatal("batch not full at 3 charges of 6 clients")
			}
		}
	}
	b := m.take()
	b.results = make([]chargeResult, len(b.charges))
	close(b.committed)
	for range 3 {
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
	}
}

// waitForCharges returns the pending batch once it holds n charges.
func waitForCharges(m *meter, n int) *batch {
	for {
		m.queueMu.Lock()
		b := m.pending
		queued := b != nil && len(b.charges) == n
		m.queueMu.Unlock()
		if queued {
			return b
		}
		runtime.Gosched()
	}
}
