package jobqueue

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newQueue returns a queue logging to a buffer: slog's handler serializes
// the writes, and the tests read it once the writers are done.
func newQueue(t *testing.T) (*Queue, *bytes.Buffer) {
	t.Helper()
	logs := &bytes.Buffer{}
	q := New("test", slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { q.Close(context.Background()) })
	return q, logs
}

func TestRunsEveryJobAndLogsFailures(t *testing.T) {
	t.Parallel()
	q, logs := newQueue(t)
	var ran atomic.Int32
	for i := range 50 {
		q.Post("job", func(context.Context) error {
			ran.Add(1)
			if i == 7 {
				return errors.New("mail server down")
			}
			return nil
		})
	}
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ran.Load(); got != 50 {
		t.Fatalf("%d jobs ran, want 50", got)
	}
	if got := logs.String(); strings.Count(got, "level=ERROR msg=test job=job") != 1 || !strings.Contains(got, "mail server down") {
		t.Fatalf("log: %s", got)
	}
}

func TestAtMostWorkersAtOnce(t *testing.T) {
	t.Parallel()
	q, _ := newQueue(t)
	var now, most atomic.Int32
	release := make(chan struct{})
	for range 3 * Workers {
		q.Post("job", func(context.Context) error {
			n := now.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release
			now.Add(-1)
			return nil
		})
	}
	for deadline := time.Now().Add(10 * time.Second); now.Load() < Workers && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a worker too many would start a job now
	got := most.Load()
	close(release)
	q.Close(context.Background())
	if got != Workers {
		t.Fatalf("%d jobs ran at once, want %d", got, Workers)
	}
}

// TestFullQueueDrops: past MaxPending waiting jobs, a job is refused (the
// workers may have taken up to Workers of them off the queue by then).
func TestFullQueueDrops(t *testing.T) {
	t.Parallel()
	q, logs := newQueue(t)
	release := make(chan struct{})
	defer close(release)
	block := func(context.Context) error { <-release; return nil }
	queued := 0
	for queued <= MaxPending+Workers && q.Post("block", block) {
		queued++
	}
	if queued < MaxPending || queued > MaxPending+Workers {
		t.Fatalf("%d jobs queued before one was refused, want %d to %d", queued, MaxPending, MaxPending+Workers)
	}
	if !strings.Contains(logs.String(), `msg="test queue full; dropped" job=block`) {
		t.Fatalf("the dropped job is not logged: %s", logs.String())
	}
}

// TestCloseGivesUp: when Close's context ends, it drops the queue, cancels
// the running jobs and still waits for their goroutines.
func TestCloseGivesUp(t *testing.T) {
	t.Parallel()
	q, logs := newQueue(t)
	var returned atomic.Int32
	for range Workers + 5 {
		q.Post("stuck", func(ctx context.Context) error {
			<-ctx.Done()
			returned.Add(1)
			return ctx.Err()
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := q.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v, want the deadline", err)
	}
	if got := returned.Load(); got != Workers {
		t.Fatalf("%d jobs returned when Close did, want the %d running", got, Workers)
	}
	if !strings.Contains(logs.String(), "jobs=5") {
		t.Fatalf("the dropped jobs are not logged: %s", logs.String())
	}
	if q.Post("late", func(context.Context) error { return nil }) {
		t.Fatal("a closed queue took a job")
	}
}
