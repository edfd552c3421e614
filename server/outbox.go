package server

import (
	"context"
	"log/slog"
	"sync"

	"secutil/server/internal/jobqueue"
)

// outbox runs account mail work after the response is sent. The
// forgot-password route answers at once and the same way for every email,
// so neither its answer nor its timing tells who has an account: looking
// the account up, storing a code and mailing it all happen here, on a
// jobqueue (bounded, a few workers).
type outbox struct{ jobs *jobqueue.Queue }

// newOutbox makes an outbox whose work ends with life: then queued jobs are
// dropped, running ones cancelled, and the queue's goroutines are waited
// for as part of workers, so whoever ends life and waits on workers leaves
// none behind. Nil for either: the work lives as long as the process, and
// nobody waits.
func newOutbox(logger *slog.Logger, life context.Context, workers *sync.WaitGroup) *outbox {
	o := &outbox{jobs: jobqueue.New("account mail", logger)}
	if life != nil && workers != nil {
		workers.Go(func() {
			<-life.Done()
			// life is over, so Close gives jobs no grace: it drops the
			// queued ones, cancels the running ones and waits for them.
			o.jobs.Close(life)
		})
	}
	return o
}

// post queues a job; it reports false when the queue was full or closed.
func (o *outbox) post(what string, do func(ctx context.Context) error) bool {
	return o.jobs.Post(what, do)
}
