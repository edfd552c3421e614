package store

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"time"
)

// ErrQuotaExceeded is returned when a charge would pass the account's cap.
// A refused batch of several items answers a *QuotaError, which is
// ErrQuotaExceeded too (errors.Is) and tells how many items were left.
var ErrQuotaExceeded = errors.New("plan limit reached")

// QuotaError refuses a batch larger than what is left of the account's
// cap: Left items were left (ItemsLeft reads it from any error).
type QuotaError struct{ Left int }

func (e *QuotaError) Error() string { return ErrQuotaExceeded.Error() }

// Is makes a QuotaError ErrQuotaExceeded for errors.Is.
func (e *QuotaError) Is(target error) bool { return target == ErrQuotaExceeded }

// ItemsLeft is how many items a refusal of the meter found left: a
// QuotaError's Left, and 0 for a refused single item, which is refused only
// when none is left.
func ItemsLeft(err error) int {
	if q, ok := errors.AsType[*QuotaError](err); ok {
		return q.Left
	}
	return 0
}

// Period names the UTC calendar month that t falls in, e.g. "2026-11".
func Period(t time.Time) string { return t.UTC().Format("2006-01") }

// Day names the UTC day that t falls in, e.g. "2026-11-05".
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// PeriodEnd is the start of the next UTC calendar month after t: the moment
// usage resets.
func PeriodEnd(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// Charge is one metered call to record: its items, one for a call of one
// item, the size of the batch for a batch, counted all or none.
type Charge struct {
	AccountID int64
	KeyID     int64 // 0 when the call was made with a session
	Cap       *int  // nil: no cap
	// Items is how many items the call counts for; 0 is one.
	Items int
	// Suggestion, when set, is stored in the same transaction, so a refused
	// call leaves no suggestion behind and a stored one is always counted.
	Suggestion *Suggestion
	// Reservation, when set, is the one Reserve gave the call: committing
	// the charge uses it up.
	Reservation *Reservation
}

// items is how many items the charge counts for.
func (c *Charge) items() int { return max(c.Items, 1) }

// Reservation holds some of an account's remaining items (one, unless it
// grew) for a call that is doing its work. It ends when its charge
// commits, or with Release.
type Reservation struct {
	m       *meter
	account int64
	items   int // guarded by m.mu
	held    atomic.Bool
}

// Release gives a call back, for a call that failed; after its charge
// committed it does nothing, so it suits a defer. A nil Reservation may be
// released.
func (r *Reservation) Release() {
	if r != nil && r.held.CompareAndSwap(true, false) {
		r.m.mu.Lock()
		r.m.unreserve(r.account, r.items)
		r.m.mu.Unlock()
	}
}

// Grow holds extra more items under limit for the same call, once it knows
// it is a batch: the batch's items are then all held before its work. It
// fails with a *QuotaError, holding nothing more, when fewer than extra
// are left besides the other calls' reservations; the reservation keeps
// what it held. Its charge must carry the whole batch as Items.
func (r *Reservation) Grow(ctx context.Context, limit, extra int) error {
	_, err := r.m.reserve(ctx, r.account, limit, extra, r)
	return err
}

// Reserve holds one of the calls left under limit in the account's current
// period, before a call does its work, so that concurrent calls never do
// more work than the account has calls left: it fails with
// ErrQuotaExceeded when the committed calls and those holding a
// reservation reach limit. Every charge of a capped account should carry
// one, or it may take a call another has reserved.
func (s *Store) Reserve(ctx context.Context, accountID int64, limit int) (*Reservation, error) {
	return s.meter.reserve(ctx, accountID, limit, 1, nil)
}

// Usage returns the account's metered calls in the period containing now,
// as the database has them: with several servers, every server's calls.
func (s *Store) Usage(ctx context.Context, accountID int64) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, countSQL, accountID, Period(s.now())).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, wrap("usage", err)
}

// UsageByDay returns the account's metered calls on each UTC day from
// from to to (both inclusive, any time of day), oldest first; a day without
// calls counts 0.
func (s *Store) UsageByDay(ctx context.Context, accountID int64, from, to time.Time) ([]int, error) {
	counts, err := s.usageByDay(ctx, accountID, from, to)
	return counts, wrap("usage by day", err)
}

func (s *Store) usageByDay(ctx context.Context, accountID int64, from, to time.Time) ([]int, error) {
	first := time.Date(from.UTC().Year(), from.UTC().Month(), from.UTC().Day(), 0, 0, 0, 0, time.UTC)
	days := int(to.UTC().Sub(first).Hours()/24) + 1
	if days <= 0 {
		return nil, nil
	}
	counts := make([]int, days)
	rows, err := s.read.QueryContext(ctx, `SELECT day, sum(count) FROM usage_days WHERE account_id = $1 AND day BETWEEN $2 AND $3 GROUP BY day`,
		accountID, Day(first), Day(to))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var day string
		var n int
		if err := rows.Scan(&day, &n); err != nil {
			return nil, err
		}
		t, err := time.Parse(time.DateOnly, day)
		if err != nil {
			return nil, err
		}
		counts[int(t.Sub(first).Hours()/24)] = n
	}
	return counts, rows.Err()
}

// CommitUsage counts a call's items (c.Items, one at least) against the
// account's current period, unless that would pass c.Cap, in which case it
// changes nothing and returns ErrQuotaExceeded, a *QuotaError for a batch
// (a charge with a reservation does not, unless the cap
// was lowered meanwhile or, with several servers, another server's calls
// took the account's last ones). The meter decides it with a conditional
// update of the account's usage row, under the row's lock, so concurrent
// calls, on this server or others sharing the database, can never
// overshoot the cap. It returns once the count is committed, with the count
// after it.
func (s *Store) CommitUsage(ctx context.Context, c Charge) (int, error) {
	if sg := c.Suggestion; sg != nil && hasNUL(sg.Email, sg.Message) {
		return 0, ErrInvalidText // refused before it can fail a batch
	}
	n, err := s.meter.submit(ctx, c)
	return n, wrap("commit usage", err)
}

// DeletedUsage is the monthly usage of a deleted account.
type DeletedUsage struct {
	AccountID int64
	Period    string
	Count     int64
	DeletedAt time.Time
}

// DeletedUsages lists the kept usage of deleted accounts, newest deletion
// first, at most limit.
func (s *Store) DeletedUsages(ctx context.Context, limit int) ([]DeletedUsage, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT account_id, period, count, deleted_at FROM deleted_usage ORDER BY deleted_at DESC, account_id, period LIMIT $1`, limit)
	if err != nil {
		return nil, wrap("deleted usages", err)
	}
	defer rows.Close()
	var out []DeletedUsage
	for rows.Next() {
		var d DeletedUsage
		var at int64
		if err := rows.Scan(&d.AccountID, &d.Period, &d.Count, &at); err != nil {
			return nil, wrap("deleted usages", err)
		}
		d.DeletedAt = time.Unix(at, 0).UTC()
		out = append(out, d)
	}
	return out, wrap("deleted usages", rows.Err())
}

// ResetUsage sets the account's count of metered calls this month to 0.
// It moves the auth generation, which makes every server's meter read the
// count again rather than trust the one it last saw.
func (s *Store) ResetUsage(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	return wrap("reset usage", s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1`+s.forUpdate, accountID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE usage SET count = 0 WHERE account_id = $1 AND period = $2`, accountID, Period(s.now()))
		}
		if err == nil {
			err = s.bumpAuthGeneration(ctx, tx)
		}
		return err
	}))
}
