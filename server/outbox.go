package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// outbox runs account mail work after the response is sent. The
// forgot-password route answers at once and the same way for every email,
// so neither its answer nor its timing tells who has an account: looking
// the account up, storing a code and mailing it all happen here. Jobs run
// on a few goroutines that exist only while there is work; a job still
// queued when the process stops is lost (the user asks again).
type outbox struct {
	logger *slog.Logger
	// life ends the work: queued jobs are then dropped, running ones
	// cancelled; workers counts the goroutines, for their owner to wait.
	life    context.Context
	workers *sync.WaitGroup
	mu      sync.Mutex
	pending []outboxJob
	running int
}

type outboxJob struct {
	what string // for the log
	do   func(ctx context.Context) error
}

const (
	// maxOutboxPending bounds the queue; past it a job is dropped (and
	// logged), as a flood of requests must not grow memory.
	maxOutboxPending = 1000
	outboxWorkers    = 4
	// outboxJobTimeout bounds one job; the SMTP mailer has a shorter one.
	outboxJobTimeout = time.Minute
)

// newOutbox makes an outbox whose work ends with life and whose
// goroutines workers counts; nil for either: the process's life, counted
// by nobody.
func newOutbox(logger *slog.Logger, life context.Context, workers *sync.WaitGroup) *outbox {
	if life == nil {
		life = context.Background()
	}
	if workers == nil {
		workers = new(sync.WaitGroup)
	}
	return &outbox{logger: logger, life: life, workers: workers}
}

// post queues a job; it reports false when the queue was full or the
// outbox's life has ended.
func (o *outbox) post(what string, do func(ctx context.Context) error) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.life.Err() != nil {
		o.logger.Warn("account mail after shutdown began; dropped", "job", what)
		return false
	}
	if len(o.pending) >= maxOutboxPending {
		o.logger.Warn("account mail queue full; dropped", "job", what)
		return false
	}
	o.pending = append(o.pending, outboxJob{what: what, do: do})
	if o.running < outboxWorkers {
		o.running++
		o.workers.Go(o.work)
	}
	return true
}

// work runs queued jobs until there are none, or the outbox's life ends.
func (o *outbox) work() {
	for {
		o.mu.Lock()
		if len(o.pending) == 0 || o.life.Err() != nil {
			o.pending = nil
			o.running--
			o.mu.Unlock()
			return
		}
		job := o.pending[0]
		o.pending = o.pending[1:]
		o.mu.Unlock()
		ctx, cancel := context.WithTimeout(o.life, outboxJobTimeout)
		if err := job.do(ctx); err != nil {
			o.logger.Error("account mail", "job", job.what, "err", err)
		}
		cancel()
	}
}
