package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"secutil/store/internal/walmode"
)

// busyTimeout is how long a statement on SQLite waits for a lock another
// connection holds before it fails with SQLITE_BUSY.
const busyTimeout = 10 * time.Second

func openSQLite(ctx context.Context, path string) (*Store, error) {
	// busy_timeout comes first so that the pragmas after it wait for a lock
	// held by another process (a running server during `secutil backup`).
	pragmas := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)", busyTimeout.Milliseconds())
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	if err := walmode.Enable(ctx, path, dsn, busyTimeout); err != nil {
		return nil, err
	}
	// The checkpointer, not the writer's commits, runs the checkpoints; the
	// writer cuts the WAL's file to walSizeLimit when the log restarts.
	write, err := sql.Open("sqlite", fmt.Sprintf("%s&_txlock=immediate&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(%d)", dsn, walSizeLimit))
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	write.SetConnMaxLifetime(0)
	read, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(max(4, 2*runtime.NumCPU()))
	read.SetMaxIdleConns(max(4, 2*runtime.NumCPU()))
	checkpoints, err := startCheckpointer(dsn, path, write, walRestartBytes, walSizeLimit)
	if err != nil {
		write.Close()
		read.Close()
		return nil, err
	}
	return &Store{backend: SQLite, write: write, read: read, dsn: dsn, checkpoints: checkpoints}, nil
}

// ErrBackupUnsupported is returned by Backup on PostgreSQL, whose own
// pg_dump takes a consistent copy while servers keep writing.
var ErrBackupUnsupported = errors.New("a PostgreSQL database is backed up with pg_dump")

// Backup writes a consistent copy of an SQLite database to path with VACUUM
// INTO, which reads one snapshot and so works while the server keeps
// writing. It uses a connection of its own: the readers are query_only,
// and the writer must stay free for the server's writes during a long copy.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.backend != SQLite {
		return wrap("backup", ErrBackupUnsupported)
	}
	db, err := sql.Open("sqlite", s.dsn)
	if err != nil {
		return wrap("backup", err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "VACUUM INTO $1", path)
	return wrap("backup", err)
}

// IntegrityCheck runs SQLite's PRAGMA integrity_check and returns nil when
// it says ok. On PostgreSQL, which checks its own pages, it only checks
// that the database answers.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	if s.backend != SQLite {
		return s.Ping(ctx)
	}
	var result string
	if err := s.read.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return wrap("integrity check", err)
	}
	if result != "ok" {
		return fmt.Errorf("store: integrity check: %s", result)
	}
	return nil
}
