// Package store keeps secutil's state in one SQLite file: accounts, keys,
// sessions, codes, usage, suggestions and audit events.
//
// Writes go through a single connection (SQLite allows one writer; queuing
// in Go is cheaper than SQLITE_BUSY retries) and reads through a pool, with
// WAL so readers never wait for the writer.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"secutil/store/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// ErrSchemaTooNew is returned by Open for a database written by a newer
// secutil, whose schema this binary does not know.
var ErrSchemaTooNew = migrate.ErrSchemaTooNew

// Store is the database handle. It is safe for concurrent use.
type Store struct {
	write *sql.DB
	read  *sql.DB
	dsn   string
	now   func() time.Time
	auth  *authCache
	meter *meter
}

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string) (*Store, error) {
	// busy_timeout comes first so that the pragmas after it wait for a lock
	// held by another process (a running server during `secutil backup`).
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)"
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	write, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	write.SetConnMaxLifetime(0)
	read, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	read.SetMaxOpenConns(max(4, 2*runtime.NumCPU()))
	read.SetMaxIdleConns(max(4, 2*runtime.NumCPU()))
	s := &Store{write: write, read: read, dsn: dsn, now: time.Now, auth: newAuthCache()}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if s.meter, err = startMeter(ctx, s); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return s, nil
}

// Close stops the meter, after committing what it has queued, and closes
// both pools.
func (s *Store) Close() error {
	if s.meter != nil {
		s.meter.stop()
	}
	return wrap("close", errors.Join(s.read.Close(), s.write.Close()))
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return wrap("ping", s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one))
}

// SetClock replaces the clock; tests use it to cross month boundaries.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Now is the store's clock in UTC.
func (s *Store) Now() time.Time { return s.now().UTC() }

// Backup writes a consistent copy of the database to path with VACUUM INTO,
// which reads one snapshot and so works while the server keeps writing.
// It uses a connection of its own: the readers are query_only, and the
// writer must stay free for the server's writes during a long copy.
func (s *Store) Backup(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", s.dsn)
	if err != nil {
		return wrap("backup", err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "VACUUM INTO ?", path)
	return wrap("backup", err)
}

// IntegrityCheck runs PRAGMA integrity_check and returns nil when it says ok.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	var result string
	if err := s.read.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return wrap("integrity check", err)
	}
	if result != "ok" {
		return fmt.Errorf("store: integrity check: %s", result)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	steps, err := migrate.FromFS(migrationFiles, "migrations/*.sql")
	if err != nil {
		return err
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
