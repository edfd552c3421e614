package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUnavailable is wrapped by the error of an operation that failed
// because the database could not be reached: PostgreSQL restarting,
// failing over, or out of the network for a moment. It is an operating
// event, not a fault of the request: the server answers 503 with
// Retry-After (RetryAfter). The operations a metered call needs (the meter's
// batches, the key lookup, the reservation's count) are first tried again
// for up to RetryBudget, so a fast restart costs those calls only latency.
var ErrUnavailable = errors.New("the database is unreachable")

// RetryBudget is how long an operation safe to repeat is tried again while
// the database is unreachable, before it fails with ErrUnavailable; a fast
// restart of PostgreSQL (pg_ctl restart -m fast) takes about half a second.
const RetryBudget = 5 * time.Second

// RetryAfter is the wait a refusal with ErrUnavailable suggests to clients.
const RetryAfter = 5 * time.Second

// unreachable reports whether err says that the database could not be
// reached, rather than that it refused the statement: a connection refused,
// reset or cut, or PostgreSQL's connection exceptions (SQLSTATE class 08)
// and its operator interventions that end sessions (57P01 admin_shutdown,
// 57P02 crash_shutdown, 57P03 cannot_connect_now, which a server starting
// or shutting down answers).
func unreachable(err error) bool {
	// A caller that gave up, or whose deadline passed (a poll's, say, on a
	// busy machine), learnt nothing of the database but that it was slow.
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var connect *pgconn.ConnectError
	var opErr *net.OpError
	return errors.As(err, &connect) || errors.As(err, &opErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// outage keeps whether the database is unreachable, and since when, so that
// an outage is logged once as a warning when it begins and once as info
// when it ends, however many calls fail meanwhile. It ends at the first
// success a settling time after the last failure: while PostgreSQL stops,
// a session it has not ended yet still answers between failures of the
// others, which is one outage, not several.
type outage struct {
	down        atomic.Bool  // read on every success; mu guards the change
	lastFailure atomic.Int64 // Unix nanoseconds
	mu          sync.Mutex
	since       time.Time
	logger      atomic.Pointer[slog.Logger]
}

// outageSettling is how long the database must have answered without an
// unreachable failure for an outage to end.
const outageSettling = time.Second

// SetLogger sets where the store logs the beginning and end of an outage
// of the database; without it, slog's default logger.
func (s *Store) SetLogger(logger *slog.Logger) { s.outage.logger.Store(logger) }

func (o *outage) log() *slog.Logger {
	if l := o.logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// observe records the outcome of a database operation: an unreachable
// database begins an outage, and an answer of the database (a success, no
// row, or an error of PostgreSQL's own) ends one. Other errors, such as a
// caller's deadline, tell neither.
func (o *outage) observe(err error) {
	var answered *pgconn.PgError
	switch {
	case unreachable(err):
		o.begin(err)
	case err == nil || errors.Is(err, sql.ErrNoRows) || errors.Is(err, ErrNotFound) || errors.As(err, &answered):
		if o.down.Load() && time.Since(time.Unix(0, o.lastFailure.Load())) >= outageSettling {
			o.end()
		}
	}
}

func (o *outage) begin(err error) {
	o.lastFailure.Store(time.Now().UnixNano())
	if o.down.Load() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down.Load() {
		return
	}
	o.since = time.Now()
	o.down.Store(true)
	o.log().Warn("database unreachable: calls that need it wait up to the retry budget, then answer 503",
		"err", err, "retry_budget", RetryBudget)
}

func (o *outage) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down.Load() {
		return
	}
	o.down.Store(false)
	o.log().Info("database reachable again", "outage", time.Since(o.since).Round(time.Millisecond))
}

// Unreachable reports whether the database is unreachable, as the
// operations on it found (the auth watcher reads it twice a second), and
// since when. An outage ends outageSettling after the last failure.
func (s *Store) Unreachable() (bool, time.Time) {
	s.outage.mu.Lock()
	defer s.outage.mu.Unlock()
	return s.outage.down.Load(), s.outage.since
}

// retry runs op, which must be safe to repeat (a read, or a write whose
// failure left nothing behind), until it succeeds, fails otherwise than by
// an unreachable database, ctx ends or RetryBudget has passed; the pause
// between tries grows from 25 ms to half a second.
func (s *Store) retry(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(RetryBudget)
	pause := 25 * time.Millisecond
	for {
		err := op()
		s.outage.observe(err)
		if !unreachable(err) || time.Now().Add(pause).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
}

// errStillOpen is txCommitted's answer for a transaction still open.
var errStillOpen = errors.New("the transaction is still open")

// txCommitted learns whether the PostgreSQL transaction xid committed (it
// may be sent again when not), asking again until deadline while the
// database is unreachable or the transaction is still open; xid 0 (not
// known) cannot be asked about.
func (s *Store) txCommitted(xid int64, deadline time.Time) (bool, error) {
	if xid == 0 {
		return false, errors.New("the transaction's id is not known")
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for {
		var status sql.NullString
		err := s.retry(ctx, func() error {
			return s.write.QueryRowContext(ctx, `SELECT txid_status($1)`, xid).Scan(&status)
		})
		switch {
		case err != nil:
			return false, err
		case status.String == "committed":
			return true, nil
		case status.String == "aborted":
			return false, nil
		case status.String != "in progress":
			return false, fmt.Errorf("transaction %d is too old to tell whether it committed", xid)
		}
		select {
		case <-ctx.Done():
			return false, errStillOpen
		case <-time.After(25 * time.Millisecond):
		}
	}
}
