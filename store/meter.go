package store

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// ErrClosed is returned for a charge submitted after Close.
var ErrClosed = errors.New("store closed")

// meter commits usage increments by group commit: one goroutine owns this
// server's usage writes, and every charge that queues while a transaction
// commits goes into the next transaction together. Under load this turns N
// commits into one, with no added delay when idle. A charge's caller is
// answered only after its transaction has committed.
//
// The database is the authority on counts. Each transaction adds an
// account's calls with one conditional update of its usage row, which
// grants only what the cap leaves, under the row's lock, so several
// servers sharing a PostgreSQL database never pass a cap between them. The
// meter also remembers the last count it saw of each account, a floor the
// true count can only have grown from: with the reservations of this
// server's calls under way, enough to refuse a call before its work, never
// to allow one past the cap.
type meter struct {
	s       *Store
	wake    chan struct{} // one token per new pending batch
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once

	// prepared are meterSQL prepared on SQLite's writer connection; only
	// the meter goroutine touches them. PostgreSQL's driver caches its
	// prepared statements itself.
	prepared preparedStatements

	// queueMu guards pending and closed. Charges join the pending batch
	// under a mutex rather than through a channel each: a caller then costs
	// no allocation and no wake-up of the meter, and one close answers a
	// whole batch.
	queueMu sync.Mutex
	pending *batch
	closed  bool

	observer atomic.Pointer[MeterObserver] // told of each transaction (ObserveMeter)
	clients  atomic.Pointer[func() int]    // see Store.SetClients
	timer    *time.Timer                   // the gather window; only the meter goroutine uses it

	// committing is held for writing from a batch's commit to the
	// publication of its outcome (the floors raised, the counted calls'
	// reservations ended), and for reading by a reservation that reads an
	// account's count from the database: that read then sees a batch
	// together with its publication, or neither. Seeing the commit alone
	// would count its calls twice, as committed and as reserved, and refuse
	// a call the account still has.
	committing sync.RWMutex

	mu     sync.Mutex // guards floors and reserved
	floors map[int64]floor
	// reserved is, per account, the calls holding a Reservation: under way,
	// not yet committed or released.
	reserved map[int64]int
	// lastUsed is when the meter last wrote a key's last_used_at; only the
	// meter goroutine touches it.
	lastUsed map[int64]time.Time
}

// floor is a count of an account's calls in period that the meter saw in
// the database, under the auth cache's generation. A later generation (an
// account deleted, its usage reset, on any server) makes it untrustworthy,
// and the meter reads the count again.
type floor struct {
	period     string
	count      int
	generation uint64
}

// batch is the charges of one group commit. committed is closed once
// results holds every charge's outcome; full once the batch holds half as
// many charges as there are clients (see Store.SetClients).
type batch struct {
	charges   []Charge
	results   []chargeResult
	committed chan struct{}
	full      chan struct{}
}

type chargeResult struct {
	count int
	err   error
}

// maxBatch bounds one transaction, so a flood cannot hold the write lock long.
const maxBatch = 512

// gatherWindow is how long the meter collects charges before committing,
// unless the batch is full sooner. A busy machine answers calls slowly: a
// window of 300 µs closed batches of 6 calls where 32 clients make 16, and
// the transaction's cost, about the same for any batch, was then the
// largest part of a call's; 1 ms keeps them at 12-14 (docs/BENCHMARKS.md).
const gatherWindow = 1 * time.Millisecond

func startMeter(s *Store) *meter {
	m := &meter{
		s:        s,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
		floors:   make(map[int64]floor),
		reserved: make(map[int64]int),
		lastUsed: make(map[int64]time.Time),
		timer:    time.NewTimer(time.Hour),
	}
	m.timer.Stop()
	go m.run()
	return m
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
		m.closeStatements()
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
		b = &batch{committed: make(chan struct{}), full: make(chan struct{})}
		m.pending = b
		m.wake <- struct{}{} // never blocks: the meter takes a batch per token
	}
	i := len(b.charges)
	b.charges = append(b.charges, c)
	if target := m.batchTarget(); target > 0 && len(b.charges) >= target {
		b.markFull()
	}
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
			m.gather()
		}
		b := m.take()
		busy = len(b.charges) > 1
		m.answer(b)
	}
}

// markFull closes b.full, once; queueMu is held.
func (b *batch) markFull() {
	select {
	case <-b.full:
	default:
		close(b.full)
	}
}

// gather lets more charges join the pending batch, so that one transaction
// carries many calls, until the batch is full or gatherWindow has passed.
// The meter waits rather than waking for each arrival. Only under
// concurrency: a lone call is committed at once, with no waiting when idle.
//
// A full batch is committed at once because waiting longer would leave the
// server idle: its clients' calls are then mostly waiting for this batch or
// for the one before, with no other work to do. With 32 clients on two
// cores, committing at 16 rather than at the end of the window took the
// idle time during a load run from 20-29 % to 11-18 % at about the same
// batch size, and throughput up by a fifth (docs/BENCHMARKS.md).
func (m *meter) gather() {
	m.queueMu.Lock()
	b := m.pending
	m.queueMu.Unlock()
	m.timer.Reset(gatherWindow)
	select {
	case <-b.full:
		m.timer.Stop()
	case <-m.timer.C:
	}
}

// batchTarget is the number of charges that makes a batch full: half the
// clients, at least one, or 0 when the meter does not know them. With
// fewer than four clients every batch is full at its first charge, and the
// meter commits as fast as it can, gathering what arrives meanwhile.
// queueMu is held.
func (m *meter) batchTarget() int {
	clients := m.clients.Load()
	if clients == nil || *clients == nil {
		return 0
	}
	return max((*clients)()/2, 1)
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

// commit applies charges in one transaction and puts each one's outcome in
// results. When the transaction fails as a whole, each charge is tried in
// a transaction of its own, so that one that cannot be stored (PostgreSQL
// aborts the whole transaction at a failed statement) fails alone.
func (m *meter) commit(charges []Charge, results []chargeResult) {
	if err := m.commitTx(charges, results); err == nil || len(charges) == 1 || unreachable(err) {
		return // (an unreachable database fails every charge alike)
	}
	for i := range charges {
		m.commitTx(charges[i:i+1], results[i:i+1])
	}
}

// reserve holds items for the account when its committed items in the
// current period (the floor, or the count as read when the meter has none)
// and this server's reservations leave that many under limit: in a new
// Reservation, or added to grow. Other servers' calls can only make the
// true count higher: the grant at commit has the last word. A single item
// is refused with ErrQuotaExceeded, several with a *QuotaError telling how
// many are left; any other error is wrapped as the store's are.
//
// Only the first call of an account (in a period, or since the auth
// generation moved) reads the database; it waits for a batch being
// committed, the others never do.
func (m *meter) reserve(ctx context.Context, accountID int64, limit, items int, grow *Reservation) (*Reservation, error) {
	period := Period(m.s.now())
	m.mu.Lock()
	_, known := m.floor(accountID, period)
	m.mu.Unlock()
	var read int
	if !known {
		// Under m.committing for each try, not between tries: a batch
		// waiting out an outage must not wait for this one too.
		err := m.s.retry(ctx, func() error {
			m.committing.RLock()
			defer m.committing.RUnlock()
			seen := m.s.auth.generation.Load()
			err := m.s.read.QueryRowContext(ctx, countSQL, accountID, period).Scan(&read)
			if errors.Is(err, sql.ErrNoRows) {
				err = nil
			}
			if err == nil {
				m.mu.Lock()
				m.raiseFloor(accountID, period, read, seen)
				m.mu.Unlock()
			}
			return err
		})
		if err != nil {
			return nil, wrap("reserve", err)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// The floor as it is now: a batch published since the look above ended
	// reservations that its raised floor now counts.
	used, _ := m.floor(accountID, period)
	used = max(used, read)
	if left := limit - used - m.reserved[accountID]; left < items {
		return nil, quotaRefusal(items, left)
	}
	if grow != nil && !grow.held.Load() {
		return nil, wrap("reserve", errEndedReservation)
	}
	m.reserved[accountID] += items
	if grow != nil {
		grow.items += items
		return grow, nil
	}
	r := &Reservation{m: m, account: accountID, items: items}
	r.held.Store(true)
	return r, nil
}

// floor returns the account's floor in period, when the meter has one
// under the current auth generation. m.mu must be held.
func (m *meter) floor(accountID int64, period string) (int, bool) {
	f, ok := m.floors[accountID]
	if !ok || f.period != period || f.generation != m.s.auth.generation.Load() {
		return 0, false
	}
	return f.count, true
}

// errEndedReservation refuses to grow a reservation that was released or
// committed: the items added could never be given back.
var errEndedReservation = errors.New("the reservation has ended")

// countSQL reads an account's count in a period.
const countSQL = `SELECT count FROM usage WHERE account_id = $1 AND period = $2`

// unreserve ends a reservation of the account's items; m.mu is held.
func (m *meter) unreserve(accountID int64, items int) {
	if m.reserved[accountID] -= items; m.reserved[accountID] <= 0 {
		delete(m.reserved, accountID)
	}
}

// grant is one conditional update of a usage row: the single-item calls of
// one account with one key (or session) and one cap in a batch, in arrival
// order, or one batch call of several items alone. The database grants as
// many items as the cap leaves room for, at least least or none: the first
// single-item calls that fit, or the batch call whole. Grouping by key
// changes which calls of one batch get an account's last calls, never how
// many.
type grant struct {
	account int64
	key     int64 // 0 for calls with a session
	cap     int64 // noCap when the plan has none
	charges []int // indices into the batch, in arrival order
	items   int64 // the items its charges count for
	least   int64 // the fewest it may grant: 1, or a batch call's items
	// Set by the database:
	count   int // the account's count after the update
	granted int // how many of items it granted
}

// noCap stands for "no cap" in grantSQL.
const noCap = math.MaxInt64

// meterSQL are the statements of a batch's transaction, by their index.
var meterSQL = [...]string{grantSQL, daySQL, suggestionSQL, lastUsedSQL}

const (
	grantStatement = iota
	dayStatement
	suggestionStatement
	lastUsedStatement
)

// grantSQL adds up to $3 items to the account's count in period $2, as many
// as the cap $4 leaves room for if that is at least $5, else none, and
// returns the new count and how many it added (granted): count - granted is
// the count before, which RETURNING alone cannot tell. The update runs
// under the row's lock on the latest committed count, so a concurrent
// transaction of another server waits and then sees this one's items. Both
// databases evaluate every SET expression on the row as it was.
const grantSQL = `INSERT INTO usage (account_id, period, count, granted)
	VALUES ($1, $2, CASE WHEN CAST($4 AS BIGINT) < CAST($5 AS BIGINT) THEN 0 WHEN CAST($4 AS BIGINT) < CAST($3 AS BIGINT) THEN $4 ELSE $3 END,
	                CASE WHEN CAST($4 AS BIGINT) < CAST($5 AS BIGINT) THEN 0 WHEN CAST($4 AS BIGINT) < CAST($3 AS BIGINT) THEN $4 ELSE $3 END)
	ON CONFLICT (account_id, period) DO UPDATE SET
		granted = CASE WHEN $4 - usage.count < $5 THEN 0 WHEN $4 - usage.count < $3 THEN $4 - usage.count ELSE $3 END,
		count = usage.count + CASE WHEN $4 - usage.count < $5 THEN 0 WHEN $4 - usage.count < $3 THEN $4 - usage.count ELSE $3 END
	RETURNING count, granted`

// daySQL adds the items the grant just made on the account's row to the
// day's count of the account and key $3 (0: a session). The decision stays
// in the database, so a batch's statements can go to it all at once.
const daySQL = `INSERT INTO usage_days (account_id, day, key_id, count)
	SELECT account_id, CAST($2 AS TEXT), CAST($3 AS BIGINT), granted FROM usage
	WHERE account_id = $1 AND period = $4 AND granted > 0
	ON CONFLICT (account_id, day, key_id) DO UPDATE SET count = usage_days.count + excluded.count`

// suggestionSQL stores the suggestion of the call whose items end at the
// $7th of the grant just made on the account's row, if that grant reached it.
const suggestionSQL = `INSERT INTO suggestions (account_id, email, message, created_at)
	SELECT CAST($1 AS BIGINT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS BIGINT)
	FROM usage WHERE account_id = $5 AND period = $6 AND granted >= $7`

// last_used_at is shown on the dashboard at minute precision; writing it at
// most once a minute keeps most batches to one row change per account.
const lastUsedSQL = `UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`

// asyncCommitSQL lets the transaction it runs in commit without waiting for
// the disk (see execPostgres), and returns the transaction's id, by which a
// batch whose connection was lost learns whether it committed.
const asyncCommitSQL = `SELECT set_config('synchronous_commit', 'off', true), txid_current()`

// step is one statement of a batch's transaction: meterSQL[statement] with
// args; grant, when set, receives a grantStatement's result.
type step struct {
	statement int
	args      []any
	grant     *grant
}

// commitTx applies charges in one transaction: first the keys' last_used_at,
// then, in the order of account ids and keys, so that two servers'
// transactions take row locks in the same order and never deadlock (a key's
// revocation, too, locks its api_keys row first), a grant per account, key
// and cap, followed by the day's count and the suggestions it granted. It
// then hands each charge its outcome: the first granted calls of a grant,
// in arrival order, are counted, the rest refused.
//
// The commit and what it publishes (the floors, the end of the counted
// calls' reservations) happen together under m.committing (see there).
func (m *meter) commitTx(charges []Charge, results []chargeResult) error {
	now := m.s.now()
	period := Period(now)
	seen := m.s.auth.generation.Load()
	grants, steps, keys := m.plan(charges, now, period)
	publish := func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, g := range grants {
			before, through := g.count-g.granted, 0
			for _, i := range g.charges {
				c := &charges[i]
				if through += c.items(); through <= g.granted {
					results[i] = chargeResult{count: before + through}
					// The counted call's reservation becomes part of the count
					// in the same step, so committed plus reserved never dips
					// and lets a reservation slip past the cap.
					if r := c.Reservation; r != nil && r.held.CompareAndSwap(true, false) {
						m.unreserve(g.account, r.items)
					}
				} else {
					results[i] = chargeResult{err: quotaRefusal(int(g.least), int(g.cap)-g.count)}
				}
			}
			m.raiseFloor(g.account, period, g.count, seen)
		}
	}
	var err error
	if m.s.backend == Postgres {
		err = m.execPostgres(steps, publish)
	} else {
		err = m.execSQLite(steps, publish)
	}
	if err != nil {
		// A charge alone fails with ErrNotFound when its account was deleted
		// while its call ran.
		for i := range results {
			results[i] = chargeResult{err: accountMissing(err)}
		}
		return err
	}
	for _, key := range keys {
		m.lastUsed[key] = now
	}
	return nil
}

// quotaRefusal refuses a call of items when left are left (less than
// items, perhaps less than none): ErrQuotaExceeded for a single item, a
// *QuotaError for several.
func quotaRefusal(items, left int) error {
	if items == 1 {
		return ErrQuotaExceeded
	}
	return &QuotaError{Left: max(left, 0)}
}

// plan groups the charges into grants and lists the transaction's steps,
// and the keys whose last_used_at they write.
func (m *meter) plan(charges []Charge, now time.Time, period string) ([]*grant, []step, []int64) {
	order := make([]int, len(charges))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(charges[a].AccountID, charges[b].AccountID), cmp.Compare(charges[a].KeyID, charges[b].KeyID))
	})
	var grants []*grant
	var keys []int64
	for _, i := range order {
		c := charges[i]
		limit := int64(noCap)
		if c.Cap != nil {
			limit = int64(*c.Cap)
		}
		items := int64(c.items())
		if n := len(grants); n == 0 || items > 1 || grants[n-1].least > 1 ||
			grants[n-1].account != c.AccountID || grants[n-1].key != c.KeyID || grants[n-1].cap != limit {
			grants = append(grants, &grant{account: c.AccountID, key: c.KeyID, cap: limit, least: items})
		}
		g := grants[len(grants)-1]
		g.charges = append(g.charges, i)
		g.items += items
		if c.KeyID != 0 && now.Sub(m.lastUsed[c.KeyID]) >= time.Minute {
			keys = append(keys, c.KeyID)
		}
	}
	keys = slices.Compact(keys) // sorted already, as the charges are
	var steps []step
	for _, key := range keys {
		steps = append(steps, step{statement: lastUsedStatement, args: []any{unix(now), key, unix(now) - 60}})
	}
	day := Day(now)
	for _, g := range grants {
		steps = append(steps,
			step{statement: grantStatement, args: []any{g.account, period, g.items, g.cap, g.least}, grant: g},
			step{statement: dayStatement, args: []any{g.account, day, g.key, period}})
		through := 0
		for _, i := range g.charges {
			through += charges[i].items()
			if sg := charges[i].Suggestion; sg != nil {
				var email any
				if strings.TrimSpace(sg.Email) != "" {
					email = sg.Email
				}
				steps = append(steps, step{statement: suggestionStatement,
					args: []any{sg.AccountID, email, sg.Message, unix(now), g.account, period, int64(through)}})
			}
		}
	}
	return grants, steps, keys
}

// execSQLite runs the steps in a transaction on the writer, one statement
// after the other, and commits it and calls publish under m.committing.
//
// It drives the writer's connection through the driver's own interface
// (BEGIN IMMEDIATE, the statements prepared once, COMMIT), not through
// database/sql's Tx and Stmt: a batch is the meter's whole cost, and
// database/sql's bookkeeping around each statement and the transaction
// was a sixth of it (BenchmarkCommitUsageAlone: 51.9 µs a lone call
// before, 43.5 µs this way).
func (m *meter) execSQLite(steps []step, publish func()) error {
	ctx := context.Background() // a client that hung up must not abort others' charges
	conn, err := m.s.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		stmts, err := m.prepared.on(ctx, driverConn.(driver.ConnPrepareContext))
		if err != nil {
			return err
		}
		if err := stmts.exec(ctx, beginStatement); err != nil {
			return err
		}
		if err := stmts.run(ctx, steps); err != nil {
			if rollbackErr := stmts.exec(ctx, rollbackStatement); rollbackErr != nil {
				// A connection left inside a transaction must not go back
				// to the pool: ErrBadConn makes database/sql close it.
				return errors.Join(err, rollbackErr, driver.ErrBadConn)
			}
			return err
		}
		m.committing.Lock()
		defer m.committing.Unlock()
		if err := stmts.exec(ctx, commitStatement); err != nil {
			stmts.exec(ctx, rollbackStatement) // a failed COMMIT (SQLITE_BUSY) can leave the transaction open
			return err
		}
		publish()
		return nil
	})
}

// sqliteTxSQL are the transaction's own statements on SQLite, prepared
// with meterSQL, after it: BEGIN IMMEDIATE takes the write lock at once,
// so a batch never fails to upgrade a read lock.
var sqliteTxSQL = [...]string{"BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"}

const (
	beginStatement = len(meterSQL) + iota
	commitStatement
	rollbackStatement
)

// preparedStatements are meterSQL and sqliteTxSQL, in that order, prepared
// on one driver connection.
type preparedStatements struct {
	conn  driver.ConnPrepareContext
	stmts [len(meterSQL) + len(sqliteTxSQL)]driver.Stmt
}

// on returns the statements prepared on conn, preparing them the first
// time. The writer keeps its one connection for the life of the store; if
// database/sql ever replaces it (after the driver reported it broken), the
// statements of the old one went with it and are prepared again.
func (p *preparedStatements) on(ctx context.Context, conn driver.ConnPrepareContext) (*preparedStatements, error) {
	if p.conn == conn {
		return p, nil
	}
	*p = preparedStatements{}
	for i, query := range slices.Concat(meterSQL[:], sqliteTxSQL[:]) {
		stmt, err := conn.PrepareContext(ctx, query)
		if err != nil {
			p.close()
			return nil, err
		}
		p.stmts[i] = stmt
	}
	p.conn = conn
	return p, nil
}

// exec runs one statement that takes no arguments.
func (p *preparedStatements) exec(ctx context.Context, statement int) error {
	_, err := p.stmts[statement].(driver.StmtExecContext).ExecContext(ctx, nil)
	return err
}

// run runs a batch's steps in order; a grant's row goes into its grant.
func (p *preparedStatements) run(ctx context.Context, steps []step) error {
	var args [7]driver.NamedValue // the most any statement of meterSQL takes
	var row [2]driver.Value
	for _, st := range steps {
		named := args[:len(st.args)]
		for i, v := range st.args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		stmt := p.stmts[st.statement]
		if st.grant == nil {
			if _, err := stmt.(driver.StmtExecContext).ExecContext(ctx, named); err != nil {
				return err
			}
			continue
		}
		rows, err := stmt.(driver.StmtQueryContext).QueryContext(ctx, named)
		if err != nil {
			return err
		}
		err = rows.Next(row[:])
		rows.Close()
		if err != nil {
			return err
		}
		st.grant.count, st.grant.granted = int(row[0].(int64)), int(row[1].(int64))
	}
	return nil
}

// closeStatements finalizes the prepared statements while the writer's
// connection is held, so that no other write uses it meanwhile.
func (m *meter) closeStatements() {
	if m.prepared.conn == nil {
		return
	}
	conn, err := m.s.write.Conn(context.Background())
	if err != nil {
		return // the connection is gone, and its statements with it
	}
	defer conn.Close()
	conn.Raw(func(driverConn any) error {
		if driverConn == m.prepared.conn {
			m.prepared.close()
		}
		return nil
	})
}

// close finalizes the statements, before the connection closes.
func (p *preparedStatements) close() {
	for _, stmt := range p.stmts {
		if stmt != nil {
			stmt.Close()
		}
	}
	*p = preparedStatements{}
}

// execPostgres sends the steps to PostgreSQL in one round trip: a pipeline
// of statements ended by one Sync, which PostgreSQL runs as one implicit
// transaction, committed at the Sync or, at any failure, rolled back whole.
// A batch then holds its rows' locks for one round trip, not one per
// statement. That takes pgx's own batch API, on a connection of the
// database/sql pool. m.committing is held through the round trip, whose
// end is the commit, and publish called before it is released; reservations
// of accounts the meter knows go on meanwhile.
//
// The transaction commits without waiting for its WAL to reach the disk
// (synchronous_commit off, for this transaction only): the calls are
// committed, and seen by every server, before they are answered, and are
// on disk a fraction of a second later. This is SQLite's synchronous=NORMAL
// here: a crash of secutil loses nothing it answered; a crash of
// PostgreSQL or of the machine can lose the last fraction of a second of
// counts. Waiting for the disk at every batch would hold the usage row's
// lock through a disk flush each time, which caps one account's calls at a
// few batches per flush.
//
// When the database is unreachable (a restart, a failover), the batch is
// sent again, after growing pauses, for up to RetryBudget; its callers wait
// meanwhile. Sending it again must never count a call twice, so a batch is
// sent again only once it is known not to have committed:
//   - with no connection, or nothing sent, nothing ran;
//   - when an error answered one of its statements, the transaction was
//     aborted there: PostgreSQL commits only at the Sync, after every
//     statement, and a session an operator ends (57P01, the sessions of a
//     fast shutdown) fails the statement it was at;
//   - otherwise the connection was lost after the batch was sent with no
//     error from the server, or failed at the Sync itself, and the outcome
//     is unknown: txid_status of the batch's transaction, asked on another
//     connection, tells. Aborted (as is any transaction still open when
//     its server stopped) is sent again; committed is published as if the
//     answer had come, which it can be when every statement's result had
//     been read (always so for a failure at the Sync).
//
// A batch that committed while its results were lost on the way, or whose
// outcome cannot be learnt within the budget, fails with ErrUnavailable,
// and its calls may be counted without their callers learning it; that
// takes a connection cut between the database and this server while the
// batch is in flight (a restart ends its sessions with an error message
// instead), and is logged.
func (m *meter) execPostgres(steps []step, publish func()) error {
	deadline := time.Now().Add(RetryBudget)
	pause := 25 * time.Millisecond
	for {
		sent, err := m.sendPostgres(steps, publish)
		m.s.outage.observe(err)
		if err == nil || !unreachable(err) {
			return err
		}
		if sent.uncertain {
			committed, statusErr := m.s.txCommitted(sent.xid, deadline)
			switch {
			case statusErr == nil && committed && sent.answered:
				m.committing.Lock()
				publish()
				m.committing.Unlock()
				return nil
			case statusErr != nil || committed:
				calls := 0
				for _, st := range steps {
					if st.grant != nil {
						calls += len(st.grant.charges)
					}
				}
				m.s.outage.log().Warn("a batch of metered calls may have been counted without an answer: the connection to the database was lost while it committed",
					"calls", calls, "err", err)
				return err
			}
		}
		if time.Now().Add(pause).After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 500*time.Millisecond)
	}
}

// sentBatch is what sendPostgres learnt of a batch that failed.
type sentBatch struct {
	xid       int64 // its transaction's id; 0 when not read
	uncertain bool  // it may have committed
	answered  bool  // every statement's result was read
}

// sendPostgres sends the steps once, as execPostgres describes.
func (m *meter) sendPostgres(steps []step, publish func()) (sentBatch, error) {
	var sent sentBatch
	ctx := context.Background() // a client that hung up must not abort others' charges
	conn, err := m.s.write.Conn(ctx)
	if err != nil {
		return sent, err
	}
	defer conn.Close()
	err = conn.Raw(func(driverConn any) error {
		batch := &pgx.Batch{}
		batch.Queue(asyncCommitSQL)
		for _, st := range steps {
			batch.Queue(meterSQL[st.statement], st.args...)
		}
		m.committing.Lock()
		defer m.committing.Unlock()
		results := driverConn.(*stdlib.Conn).Conn().SendBatch(ctx, batch)
		var setting string
		err := results.QueryRow().Scan(&setting, &sent.xid)
		for _, st := range steps {
			if err != nil {
				break
			}
			if st.grant != nil {
				err = results.QueryRow().Scan(&st.grant.count, &st.grant.granted)
			} else {
				_, err = results.Exec()
			}
		}
		if err != nil {
			var statementFailed *pgconn.PgError
			sent.uncertain = !errors.As(err, &statementFailed) && !pgconn.SafeToRetry(err)
			results.Close() // its error, if any, repeats err
			return err
		}
		sent.answered = true
		if err := results.Close(); err != nil {
			sent.uncertain = true
			return err
		}
		publish()
		return nil
	})
	return sent, err
}

// raiseFloor records that the account's count in period has reached count,
// as read under the auth generation seen before the read. A count read
// before the generation moved (a reset, say) may be too high, and is not
// kept. m.mu must be held.
func (m *meter) raiseFloor(account int64, period string, count int, seen uint64) {
	if seen != m.s.auth.generation.Load() {
		return
	}
	if f, ok := m.floors[account]; !ok || f.period != period || f.generation != seen || f.count < count {
		m.floors[account] = floor{period: period, count: count, generation: seen}
	}
}

// MeterObserver is told of every usage transaction: how many charges it
// carried and how long its commit took.
type MeterObserver func(charges int, commit time.Duration)

// ObserveMeter sets the observer of usage transactions (nil removes it).
func (s *Store) ObserveMeter(fn MeterObserver) { s.meter.observer.Store(&fn) }

// SetClients tells the meter how many clients could be waiting for their
// calls to commit: the server's connections that started a request
// lately (idle keep-alive connections do not count). A batch with calls from
// half of them is committed at once, without waiting out the rest of the
// gather window. Without it (nil), every batch under concurrency waits the
// whole window.
func (s *Store) SetClients(clients func() int) { s.meter.clients.Store(&clients) }

// observe reports one committed (or failed) transaction to the observer.
func (m *meter) observe(charges int, took time.Duration) {
	if fn := m.observer.Load(); fn != nil && *fn != nil {
		(*fn)(charges, took)
	}
}
