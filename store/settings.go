package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Setting returns the setting called name, nil when there is none.
func (s *Store) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.write.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return v, wrap("setting "+name, err)
}

// DeleteSetting removes the setting called name and leaves no copy of its
// value in the database files: SQLite's secure_delete overwrites the freed
// bytes, and a checkpoint moves the change into the main file and empties
// the write-ahead log, which held the old page. It is for secrets moving
// out of the database (the server key). On PostgreSQL the row is deleted;
// the old row version stays on disk until a vacuum reuses its space.
func (s *Store) DeleteSetting(ctx context.Context, name string) error {
	if s.backend == Postgres {
		_, err := s.write.ExecContext(ctx, `DELETE FROM settings WHERE name = $1`, name)
		return wrap("delete setting "+name, err)
	}
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return wrap("delete setting "+name, err)
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `PRAGMA secure_delete = ON`)
	if err == nil {
		_, err = conn.ExecContext(ctx, `DELETE FROM settings WHERE name = $1`, name)
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, `PRAGMA secure_delete = OFF`)
	}
	if err == nil {
		err = truncateWAL(ctx, conn)
	}
	if err != nil {
		return wrap("delete setting "+name, err)
	}
	return nil
}

// truncateWAL copies the whole write-ahead log into the database file and
// empties it. A checkpoint another connection is running (the store's
// checkpointer) or a read holding an old snapshot makes SQLite answer busy,
// with nothing truncated, so it tries again until it is done, for at most
// truncateWait: a deleted secret must not stay behind in the log.
func truncateWAL(ctx context.Context, conn *sql.Conn) error {
	deadline := time.Now().Add(truncateWait)
	for {
		var busy, frames, copied int64
		err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &copied)
		switch {
		case err != nil:
			return err
		case busy == 0:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("the write-ahead log stayed busy for %s: the deleted value may remain in it", truncateWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// truncateWait bounds truncateWAL's retries.
const truncateWait = 10 * time.Second
