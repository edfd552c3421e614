package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// ErrClosed is returned for a charge submitted after Close.
var ErrClosed = errors.New("store closed")

// meter commits usage increments by group commit: one goroutine owns the
// usage writes, and every charge that queues while a transaction commits
// goes into the next transaction together. Under load this turns N commits
// into one, with no added delay when idle. A charge's caller is answered
// only after its transaction has committed.
//
// The meter also keeps each account's count for the current period in
// memory, so the pre-check before a metered call reads no database.
type meter struct {
	s       *Store
	queue   chan *chargeRequest
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once

	chargeStmt   *sql.Stmt
	lastUsedStmt *sql.Stmt

	mu     sync.Mutex
	counts map[int64]periodCount
}

type periodCount struct {
	period string
	count  int
}

type chargeRequest struct {
	charge Charge
	result chan chargeResult
}

type chargeResult struct {
	count int
	err   error
}

// maxBatch bounds one transaction, so a flood cannot hold the write lock long.
const maxBatch = 512

func startMeter(ctx context.Context, s *Store) (*meter, error) {
	m := &meter{
		s:       s,
		queue:   make(chan *chargeRequest, maxBatch),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		counts:  make(map[int64]periodCount),
	}
	var err error
	if m.chargeStmt, err = s.write.PrepareContext(ctx, chargeSQL); err != nil {
		return nil, err
	}
	if m.lastUsedStmt, err = s.write.PrepareContext(ctx, lastUsedSQL); err != nil {
		return nil, err
	}
	go m.run()
	return m, nil
}

func (m *meter) stop() {
	m.once.Do(func() {
		close(m.done)
		<-m.stopped
		m.chargeStmt.Close()
		m.lastUsedStmt.Close()
	})
}

// submit queues a charge and waits for its transaction. Once queued, the
// caller waits even if ctx ends: the charge may already be committed, and
// its caller must learn the outcome.
func (m *meter) submit(ctx context.Context, c Charge) (int, error) {
	req := &chargeRequest{charge: c, result: make(chan chargeResult, 1)}
	select {
	case m.queue <- req:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-m.done:
		return 0, ErrClosed
	}
	r := <-req.result
	return r.count, r.err
}

func (m *meter) run() {
	defer close(m.stopped)
	for {
		var first *chargeRequest
		select {
		case first = <-m.queue:
		case <-m.done:
			m.drainAfterStop()
			return
		}
		batch := []*chargeRequest{first}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-m.queue:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		m.commit(batch)
	}
}

// drainAfterStop commits charges that were queued before Close.
func (m *meter) drainAfterStop() {
	for {
		select {
		case r := <-m.queue:
			m.commit([]*chargeRequest{r})
		default:
			return
		}
	}
}

// commit applies a batch in one transaction. A charge refused for its cap
// changes nothing and does not disturb the others; a charge whose writes
// fail midway is rolled back to its savepoint alone.
func (m *meter) commit(batch []*chargeRequest) {
	ctx := context.Background() // a client that hung up must not abort others' charges
	now := m.s.now()
	results := make([]chargeResult, len(batch))
	err := m.s.inTx(ctx, func(tx *sql.Tx) error {
		charge := tx.StmtContext(ctx, m.chargeStmt)
		lastUsed := tx.StmtContext(ctx, m.lastUsedStmt)
		for i, req := range batch {
			results[i].count, results[i].err = m.apply(ctx, tx, charge, lastUsed, req.charge, now)
		}
		return nil
	})
	period := Period(now)
	m.mu.Lock()
	for i, req := range batch {
		if err != nil {
			results[i] = chargeResult{err: err}
		} else if results[i].err == nil {
			m.counts[req.charge.AccountID] = periodCount{period: period, count: results[i].count}
		}
	}
	m.mu.Unlock()
	for i, req := range batch {
		req.result <- results[i]
	}
}

func (m *meter) apply(ctx context.Context, tx *sql.Tx, charge, lastUsed *sql.Stmt, c Charge, now time.Time) (int, error) {
	limit := int64(1) << 62
	if c.Cap != nil {
		limit = int64(*c.Cap)
	}
	if limit <= 0 {
		return 0, ErrQuotaExceeded
	}
	if c.Suggestion != nil {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT charge"); err != nil {
			return 0, err
		}
	}
	count, err := chargeOne(ctx, tx, charge, lastUsed, c, limit, now)
	if c.Suggestion != nil {
		if err != nil {
			tx.ExecContext(ctx, "ROLLBACK TO charge")
		}
		if _, rerr := tx.ExecContext(ctx, "RELEASE charge"); rerr != nil && err == nil {
			err = rerr
		}
	}
	return count, err
}

const chargeSQL = `INSERT INTO usage (account_id, period, count) VALUES (?, ?, 1)
	ON CONFLICT (account_id, period) DO UPDATE SET count = count + 1 WHERE usage.count < ?
	RETURNING count`

// last_used_at is shown on the dashboard at minute precision; writing it at
// most once a minute keeps most metered calls to one row change.
const lastUsedSQL = `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`

func chargeOne(ctx context.Context, tx *sql.Tx, charge, lastUsed *sql.Stmt, c Charge, limit int64, now time.Time) (int, error) {
	var count int
	err := charge.QueryRowContext(ctx, c.AccountID, Period(now), limit).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrQuotaExceeded
	}
	if err != nil {
		return 0, err
	}
	if c.KeyID != 0 {
		if _, err := lastUsed.ExecContext(ctx, unix(now), c.KeyID, unix(now)-60); err != nil {
			return 0, err
		}
	}
	if c.Suggestion != nil {
		if err := insertSuggestion(ctx, tx, *c.Suggestion, now); err != nil {
			return 0, err
		}
	}
	return count, nil
}

// cachedCount returns the account's count for period if the meter knows it.
func (m *meter) cachedCount(accountID int64, period string) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pc, ok := m.counts[accountID]
	if !ok || pc.period != period {
		return 0, false
	}
	return pc.count, true
}
