// Package jobqueue runs work after an HTTP answer is sent, on a few
// goroutines that exist only while there is work. The queue is bounded: past
// MaxPending a job is dropped (and logged), since a flood of requests must
// not grow memory. Close stops it and waits for its goroutines, so a
// shutting-down process leaves none behind; a job still queued when the
// process stops is lost.
package jobqueue

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

const (
	// MaxPending bounds the jobs waiting for a worker.
	MaxPending = 1000
	// Workers is how many jobs run at once.
	Workers = 4
	// JobTimeout bounds one job.
	JobTimeout = time.Minute
)

// Queue runs posted jobs in the order they came. Its zero value is not
// usable: make one with New.
type Queue struct {
	name   string // starts its log lines
	logger *slog.Logger
	ctx    context.Context // cancelled by Close when its deadline passes
	cancel context.CancelFunc
	done   sync.WaitGroup // one per running worker

	mu      sync.Mutex
	pending []job
	running int
	closed  bool
}

type job struct {
	what string // for the log
	do   func(ctx context.Context) error
}

// New returns an empty queue that logs failed and dropped jobs to logger,
// under the queue's name ("account mail").
func New(name string, logger *slog.Logger) *Queue {
	ctx, cancel := context.WithCancel(context.Background())
	return &Queue{name: name, logger: logger, ctx: ctx, cancel: cancel}
}

// Post queues a job, described by what in the log; it reports false when
// the queue was full or closed. do gets a context that ends after
// JobTimeout, or when Close gives up waiting.
func (q *Queue) Post(what string, do func(ctx context.Context) error) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		q.logger.Warn(q.name+" queue closed; dropped", "job", what)
		return false
	}
	if len(q.pending) >= MaxPending {
		q.logger.Warn(q.name+" queue full; dropped", "job", what)
		return false
	}
	q.pending = append(q.pending, job{what: what, do: do})
	if q.running < Workers {
		q.running++
		q.done.Add(1)
		go q.work()
	}
	return true
}

// work runs queued jobs until there are none.
func (q *Queue) work() {
	defer q.done.Done()
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.running--
			q.mu.Unlock()
			return
		}
		next := q.pending[0]
		q.pending = q.pending[1:]
		q.mu.Unlock()
		ctx, cancel := context.WithTimeout(q.ctx, JobTimeout)
		if err := next.do(ctx); err != nil {
			q.logger.Error(q.name, "job", next.what, "err", err)
		}
		cancel()
	}
}

// Close stops taking jobs and waits until the workers have run the queued
// ones, or until ctx ends: then it drops what is still queued, cancels the
// running jobs' contexts and waits for their goroutines to return. It
// returns ctx's error when it gave up on jobs.
func (q *Queue) Close(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	finished := make(chan struct{})
	go func() {
		q.done.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		q.cancel()
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if n := len(q.pending); n > 0 {
		q.logger.Warn(q.name+" queue closing; dropped", "jobs", n)
	}
	q.pending = nil
	q.mu.Unlock()
	q.cancel()
	<-finished
	return ctx.Err()
}
