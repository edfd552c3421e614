package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
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
// memory, so neither the pre-check before a metered call nor a batch reads
// the database for an account it has seen this period: the meter is the
// only writer of usage.
type meter struct {
	s       *Store
	wake    chan struct{} // one token per new pending batch
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once

	readStmt     *sql.Stmt
	writeStmt    *sql.Stmt
	dayStmt      *sql.Stmt
	lastUsedStmt *sql.Stmt

	// queueMu guards pending and closed. Charges join the pending batch
	// under a mutex rather than through a channel each: a caller then costs
	// no allocation and no wake-up of the meter, and one close answers a
	// whole batch.
	queueMu sync.Mutex
	pending *batch
	closed  bool

	observer atomic.Pointer[MeterObserver] // told of each transaction (stats.go)

	mu     sync.Mutex
	counts map[int64]periodCount
	// reserved is, per account, the calls holding a Reservation: under way,
	// not yet committed or released.
	reserved map[int64]int
	// lastUsed is when the meter last wrote a key's last_used_at; only the
	// meter goroutine touches it.
	lastUsed map[int64]time.Time
}

type periodCount struct {
	period string
	count  int
}

// batch is the charges of one group commit. committed is closed once
// results holds every charge's outcome.
type batch struct {
	charges   []Charge
	results   []chargeResult
	committed chan struct{}
}

type chargeResult struct {
	count int
	err   error
}

// maxBatch bounds one transaction, so a flood cannot hold the write lock long.
const maxBatch = 512

// gatherWindow is how long the meter collects charges before committing.
const gatherWindow = 300 * time.Microsecond

func startMeter(ctx context.Context, s *Store) (*meter, error) {
	m := &meter{
		s:        s,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
		counts:   make(map[int64]periodCount),
		reserved: make(map[int64]int),
		lastUsed: make(map[int64]time.Time),
	}
	statements := map[**sql.Stmt]string{&m.readStmt: readSQL, &m.writeStmt: writeSQL, &m.dayStmt: daySQL, &m.lastUsedStmt: lastUsedSQL}
	for stmt, query := range statements {
		var err error
		if *stmt, err = s.write.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
	}
	go m.run()
	return m, nil
}

// stop refuses new charges, commits those already queued and waits for the
// meter to end.
func (m *meter) stop() {
	m.once.Do(func() {
		m.queueMu.Lock()
		m.closed = true
		m.queueMu.Unlock()
		close(m.done)
		<-m.stopped
		m.readStmt.Close()
		m.writeStmt.Close()
		m.dayStmt.Close()
		m.lastUsedStmt.Close()
	})
}

// submit queues a charge and waits for its transaction. Once queued, the
// caller waits even if ctx ends: the charge may already be committed, and
// its caller must learn the outcome.
func (m *meter) submit(ctx context.Context, c Charge) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.queueMu.Lock()
	if m.closed {
		m.queueMu.Unlock()
		return 0, ErrClosed
	}
	b := m.pending
	if b == nil {
		b = &batch{committed: make(chan struct{})}
		m.pending = b
		m.wake <- struct{}{} // never blocks: the meter takes a batch per token
	}
	i := len(b.charges)
	b.charges = append(b.charges, c)
	m.queueMu.Unlock()
	<-b.committed
	r := b.results[i]
	return r.count, r.err
}

// take removes the pending batch, so the next charge starts a new one.
func (m *meter) take() *batch {
	m.queueMu.Lock()
	defer m.queueMu.Unlock()
	b := m.pending
	m.pending = nil
	return b
}

func (m *meter) run() {
	defer close(m.stopped)
	busy := false
	for {
		select {
		case <-m.wake:
		case <-m.done:
			// No charge can join after stop; commit those queued before it.
			if b := m.take(); b != nil {
				m.answer(b)
			}
			return
		}
		if busy {
			// Under concurrency, let more charges join for gatherWindow, so
			// one transaction carries many calls. The meter sleeps rather than
			// waking for each arrival. A lone call is committed at once: no
			// waiting when idle.
			time.Sleep(gatherWindow)
		}
		b := m.take()
		busy = len(b.charges) > 1
		m.answer(b)
	}
}

// answer commits a batch, at most maxBatch charges a transaction, and
// wakes its callers.
func (m *meter) answer(b *batch) {
	b.results = make([]chargeResult, len(b.charges))
	for i := 0; i < len(b.charges); i += maxBatch {
		end := min(i+maxBatch, len(b.charges))
		start := time.Now()
		m.commit(b.charges[i:end], b.results[i:end])
		m.observe(end-i, time.Since(start))
	}
	close(b.committed)
}

// commit applies a batch in one transaction and puts each charge's outcome
// in results. Charges are grouped by account, so a batch costs one read and
// one write per account, and one write of the day's count per key used (or
// session), however many calls it holds. Each charge still gets its own cap decision, in arrival
// order: the batch never lets an account past its cap. The meter is the
// only writer of usage, and the transaction holds SQLite's write lock, so
// the count read here cannot change before the write.
func (m *meter) commit(batch []Charge, results []chargeResult) {
	ctx := context.Background() // a client that hung up must not abort others' charges
	now := m.s.now()
	period, day := Period(now), Day(now)
	counts := map[int64]int{}
	daily := map[dayCount]int{} // the calls this batch adds to each account's and key's day
	touched := map[int64]bool{}
	var deleted []int64
	apply := func(tx *sql.Tx) error {
		for i, c := range batch {
			switch c.op {
			case opResetUsage:
				counts[c.AccountID] = 0
				continue
			case opDeleteAccount:
				if results[i].err = deleteAccount(ctx, tx, c.AccountID); results[i].err == nil {
					delete(counts, c.AccountID)
					deleted = append(deleted, c.AccountID)
				}
				continue
			}
			count, seen := counts[c.AccountID]
			if !seen {
				var known bool
				if count, known = m.cachedCount(c.AccountID, period); !known {
					err := tx.StmtContext(ctx, m.readStmt).QueryRowContext(ctx, c.AccountID, period).Scan(&count)
					if err != nil && !errors.Is(err, sql.ErrNoRows) {
						return err
					}
				}
			}
			if c.Cap != nil && count >= *c.Cap {
				results[i].err = ErrQuotaExceeded
				counts[c.AccountID] = count
				continue
			}
			if c.Suggestion != nil {
				// A failed INSERT changes nothing (SQLite undoes the statement),
				// so only this charge fails.
				if err := insertSuggestion(ctx, tx, *c.Suggestion, now); err != nil {
					results[i].err = err
					counts[c.AccountID] = count
					continue
				}
			}
			counts[c.AccountID] = count + 1
			results[i].count = count + 1
			daily[dayCount{c.AccountID, c.KeyID}]++
			if c.KeyID != 0 && now.Sub(m.lastUsed[c.KeyID]) >= time.Minute {
				touched[c.KeyID] = true
			}
		}
		// Statements are bound to the transaction only when used: most batches
		// read nothing and touch no key.
		write := tx.StmtContext(ctx, m.writeStmt)
		for account, count := range counts {
			_, err := write.ExecContext(ctx, account, period, count)
			if accountMissing(err) == ErrNotFound {
				// Deleted while its call ran: only its charges fail (SQLite
				// undid just this statement).
				failCharges(batch, results, account, ErrNotFound)
				delete(counts, account)
				for d := range daily {
					if d.account == account {
						delete(daily, d)
					}
				}
				continue
			}
			if err != nil {
				return err
			}
		}
		for d, n := range daily {
			if _, err := tx.StmtContext(ctx, m.dayStmt).ExecContext(ctx, d.account, day, d.key, n); err != nil {
				return err
			}
		}
		for key := range touched {
			if _, err := tx.StmtContext(ctx, m.lastUsedStmt).ExecContext(ctx, unix(now), key, unix(now)-60); err != nil {
				return err
			}
		}
		return nil
	}
	tx, err := m.s.write.BeginTx(ctx, nil)
	if err == nil {
		if err = apply(tx); err != nil {
			tx.Rollback()
		}
	}
	// The commit and the counts it publishes happen together under m.mu, so
	// a reservation never reads the new count from the database while this
	// batch's reservations are still held (it would count those calls twice
	// and refuse a call the account still has).
	m.mu.Lock()
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		for i := range results {
			results[i] = chargeResult{err: err}
		}
	}
	if err == nil {
		for account, count := range counts {
			m.counts[account] = periodCount{period: period, count: count}
		}
		// A committed call's reservation becomes part of the count in the
		// same step, so committed plus reserved never dips and lets a
		// reservation slip past the cap.
		for i, c := range batch {
			if results[i].err == nil && c.Reservation != nil && c.Reservation.held.CompareAndSwap(true, false) {
				m.unreserve(c.AccountID)
			}
		}
		for key := range touched {
			m.lastUsed[key] = now
		}
		for _, account := range deleted {
			delete(m.counts, account) // SQLite may give its id to the next new account
		}
	}
	m.mu.Unlock()
}

// failCharges gives err to the counts and resets of account that have no
// outcome yet (a deletion in the same batch keeps its own).
func failCharges(batch []Charge, results []chargeResult, account int64, err error) {
	for i, c := range batch {
		if c.AccountID == account && c.op != opDeleteAccount && results[i].err == nil {
			results[i] = chargeResult{err: err}
		}
	}
}

const (
	readSQL  = `SELECT count FROM usage WHERE account_id = ? AND period = ?`
	writeSQL = `INSERT INTO usage (account_id, period, count) VALUES (?, ?, ?)
		ON CONFLICT (account_id, period) DO UPDATE SET count = excluded.count`
)

// dayCount names a row of usage_days: an account's calls with a key (0 for
// a session) on a day.
type dayCount struct{ account, key int64 }

// daySQL adds a batch's calls to an account's and key's count of the day.
const daySQL = `INSERT INTO usage_days (account_id, day, key_id, count) VALUES (?, ?, ?, ?)
	ON CONFLICT (account_id, day, key_id) DO UPDATE SET count = usage_days.count + excluded.count`

// last_used_at is shown on the dashboard at minute precision; writing it at
// most once a minute keeps most batches to one row change per account.
const lastUsedSQL = `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`

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

// reserve holds a call for the account when its committed calls (the
// cached count, or used as read when the meter has none) and its
// reservations leave one under limit.
func (m *meter) reserve(ctx context.Context, accountID int64, limit int, period string) (*Reservation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var used int
	if pc, ok := m.counts[accountID]; ok && pc.period == period {
		used = pc.count
	} else {
		// Read under m.mu: a batch commits and publishes its counts under it
		// too, so this read sees a batch together with its reservations'
		// release, or neither.
		err := m.s.read.QueryRowContext(ctx, readSQL, accountID, period).Scan(&used)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	if used+m.reserved[accountID] >= limit {
		return nil, ErrQuotaExceeded
	}
	m.reserved[accountID]++
	r := &Reservation{m: m, account: accountID}
	r.held.Store(true)
	return r, nil
}

// unreserve ends one of the account's reservations; m.mu is held.
func (m *meter) unreserve(accountID int64) {
	if m.reserved[accountID]--; m.reserved[accountID] <= 0 {
		delete(m.reserved, accountID)
	}
}
