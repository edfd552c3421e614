// Package walmode puts an SQLite file in WAL mode before the pools of the
// store or the hash index open it.
package walmode

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Enable puts the file at path, which dsn opens, in WAL mode, creating it
// when there is none; dsn's pragmas must set journal_mode to WAL. A file
// whose header says it is in WAL mode is left as it is without a
// connection, which would parse the whole schema before its first
// statement. SQLite answers
// SQLITE_BUSY at once, without waiting out busy_timeout, to a connection
// that sets the journal mode while another holds the file: when several
// processes start on a new file together, the first connection of each
// would fail (4 openers at once failed about 1 time in 40). Enable tries
// again for up to wait. A file in WAL mode answers at once and stays so
// (the mode is kept in the file), so the pools' own journal_mode pragma
// then waits for nothing.
func Enable(ctx context.Context, path, dsn string, wait time.Duration) error {
	if inWALMode(path) {
		return nil
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(wait)
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if err == nil && mode != "wal" {
			err = fmt.Errorf("journal mode %q, want wal", mode)
		}
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY, extended codes
// included.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// sqliteMagic opens the header of every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// inWALMode reports whether path holds an SQLite database whose header
// says WAL mode: the file format's write and read versions, bytes 18 and
// 19, are 2 (1 in rollback-journal mode). Whatever else (no file, a file
// too short or not SQLite's) it reports false, and Enable asks SQLite.
func inWALMode(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var header [20]byte
	if _, err := io.ReadFull(f, header[:]); err != nil {
		return false
	}
	return string(header[:len(sqliteMagic)]) == sqliteMagic && header[18] == 2 && header[19] == 2
}
