// Package store keeps secutil's state: accounts, keys, sessions, codes,
// usage, suggestions, audit events and billing. It runs on one SQLite file
// (the default) or on a PostgreSQL database that several servers share.
// Both run the same SQL, written in the subset the two agree on ($1
// placeholders, ON CONFLICT, RETURNING); each has its own numbered
// migrations, which give the same tables in its own types.
//
// On SQLite, writes go through a single connection (SQLite allows one
// writer; queuing in Go is cheaper than SQLITE_BUSY retries) and reads
// through a pool, with WAL so readers never wait for the writer. On
// PostgreSQL one pool does both, and row locks order the writers.
//
// Each entity has the file of its name (accounts.go, admins.go, keys.go,
// sessions.go, codes.go, registration.go, invites.go, products.go,
// billing.go, usage.go, suggestions.go, audit.go, settings.go,
// throttle.go), and its tests are in the _test.go file of that name. The
// meter (meter.go) commits the counts of metered calls in groups; on
// SQLite the checkpointer (checkpoint.go) moves the write-ahead log into
// the database file.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"secutil/store/internal/migrate"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// ErrSchemaTooNew is returned by Open for a database written by a newer
// secutil, whose schema this binary does not know.
var ErrSchemaTooNew = migrate.ErrSchemaTooNew

// The backends, as Backend names them.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// IsPostgres reports whether dsn names a PostgreSQL database, a
// postgres:// or postgresql:// URL, rather than an SQLite file (a path, or
// file: and a path).
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Store is the database handle. It is safe for concurrent use.
type Store struct {
	backend string
	write   *sql.DB
	read    *sql.DB // the same pool as write on PostgreSQL
	dsn     string  // as the driver takes it
	// forUpdate ends a SELECT whose rows a transaction goes on to change:
	// PostgreSQL locks them against other servers; an SQLite write
	// transaction already holds the whole file's lock.
	forUpdate string
	now       func() time.Time
	auth      *authCache
	meter     *meter
	watching  chan struct{} // closed to stop watchAuth
	watched   chan struct{} // closed when watchAuth has returned
	outage    outage        // whether the database is unreachable (outage.go)
	// checkpoints runs SQLite's checkpoints (checkpoint.go); nil on PostgreSQL.
	checkpoints *checkpointer
}

// Open opens the database dsn names, creating and migrating it as needed:
// an SQLite file at a path (or file: and a path), or a PostgreSQL database
// at a postgres:// URL.
func Open(ctx context.Context, dsn string) (*Store, error) {
	var (
		s   *Store
		err error
	)
	if IsPostgres(dsn) {
		s, err = openPostgres(ctx, dsn)
	} else {
		s, err = openSQLite(ctx, strings.TrimPrefix(dsn, "file:"))
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", Describe(dsn), err)
	}
	s.now = time.Now
	s.auth = newAuthCache()
	err = s.migrate(ctx)
	if err == nil {
		s.meter = startMeter(s)
	}
	if err == nil {
		err = s.startWatchingAuth(ctx)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", Describe(dsn), err)
	}
	return s, nil
}

// Backend is SQLite or Postgres.
func (s *Store) Backend() string { return s.backend }

// Close stops the meter, after committing what it has queued, and the
// auth watcher, and closes the pools.
func (s *Store) Close() error {
	if s.meter != nil {
		s.meter.stop()
	}
	s.stopWatchingAuth()
	var err error
	if s.checkpoints != nil {
		err = s.checkpoints.close()
		s.checkpoints = nil
	}
	err = errors.Join(s.write.Close(), err)
	if s.read != s.write {
		err = errors.Join(s.read.Close(), err)
	}
	return wrap("close", err)
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	err := s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
	s.outage.observe(err)
	return wrap("ping", err)
}

// SetClock replaces the clock; tests use it to cross month boundaries.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Now is the store's clock in UTC.
func (s *Store) Now() time.Time { return s.now().UTC() }

func (s *Store) migrate(ctx context.Context) error {
	steps, err := migrate.FromFS(migrationFiles, "migrations/"+s.backend+"/*.sql")
	if err != nil {
		return err
	}
	if s.backend == Postgres {
		return migrate.ApplyPostgres(ctx, s.write, steps)
	}
	return migrate.Apply(ctx, s.write, steps)
}

// deleteWhere runs a DELETE statement and returns how many rows it removed.
func (s *Store) deleteWhere(ctx context.Context, op, query string, args ...any) (int64, error) {
	res, err := s.write.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, wrap(op, err)
	}
	n, err := res.RowsAffected()
	return n, wrap(op, err)
}

// inTx runs fn in a write transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func unix(t time.Time) int64 { return t.UTC().Unix() }

func fromUnix(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := time.Unix(n.Int64, 0).UTC()
	return &t
}

// querier is what *sql.DB and *sql.Tx share for reading one row.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
