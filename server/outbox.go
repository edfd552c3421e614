package server

import (
	"context"
	"log/slog"

	"secutil/server/internal/jobqueue"
)

// outbox runs account mail work after the response is sent. The
// forgot-password route answers at once and the same way for every email,
// so neither its answer nor its timing tells who has an account: looking
// the account up, storing a code and mailing it all happen here, on a
// jobqueue (bounded, a few workers; Close stops them on shutdown).
type outbox struct{ jobs *jobqueue.Queue }

func newOutbox(logger *slog.Logger) *outbox {
	return &outbox{jobs: jobqueue.New("account mail", logger)}
}

// post queues a job; it reports false when the queue was full.
func (o *outbox) post(what string, do func(ctx context.Context) error) bool {
	return o.jobs.Post(what, do)
}
