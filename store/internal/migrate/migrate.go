// Package migrate brings a database's schema up to date: secutil's SQLite
// files, the main database (store) and the hash index (store/hashindex),
// and its PostgreSQL database. Version n means the first n steps have run.
// SQLite keeps the version in PRAGMA user_version, PostgreSQL in a
// one-row table, schema_version.
package migrate

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// ErrSchemaTooNew is wrapped by Apply's error for a file whose schema
// version is above the steps this program knows: a newer secutil wrote it,
// and an older one must not guess at its tables.
var ErrSchemaTooNew = errors.New("the database was written by a newer version of secutil")

// Apply runs the steps the SQLite file at db has not run yet, in one
// transaction with the version update, so a failed step leaves the file as
// it was. steps[i] takes the schema from version i to version i+1. A file
// that is up to date costs one read and takes no write lock, so opening it
// does not wait for another process's writes.
//
// The steps run with foreign keys off, as SQLite asks of a step that
// rebuilds a table (its only way to change a column's definition): with
// them on, dropping the old table would delete or orphan the rows that
// refer to it. Before the commit, PRAGMA foreign_key_check must find no
// row that breaks one.
func Apply(ctx context.Context, db *sql.DB, steps []string) error {
	if version, err := checkVersion(ctx, db, sqlite, len(steps)); err != nil || version == len(steps) {
		return err
	}
	// The setting is the connection's, and cannot change inside a
	// transaction: one connection, the setting, then the transaction.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var foreignKeys bool
	if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&foreignKeys); err != nil {
		return err
	}
	if foreignKeys {
		if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
			return err
		}
	}
	// The write transaction (the caller's pool begins them IMMEDIATE) holds
	// the file's write lock.
	err = applyInTx(ctx, conn, sqlite, steps)
	if foreignKeys {
		if _, restoreErr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON"); restoreErr != nil {
			// The connection must not go back to the pool without them.
			conn.Raw(func(any) error { return driver.ErrBadConn })
			err = errors.Join(err, restoreErr)
		}
	}
	return err
}

// ApplyPostgres is Apply for a PostgreSQL database. Several servers may
// start together on one database: an advisory lock, held to the end of the
// migration transaction, lets one migrate while the others wait and then
// find nothing left to do.
func ApplyPostgres(ctx context.Context, db *sql.DB, steps []string) error {
	return applyInTx(ctx, db, postgres, steps)
}

// versioning is where a kind of database keeps its schema version.
type versioning struct {
	lock  string // run first in the migration transaction, when set
	read  string // the version, one integer
	write string // sets the version given as %d
	check string // run after the steps, when set: a query that finds no row in a sound schema
}

var (
	sqlite = versioning{read: "PRAGMA user_version", write: "PRAGMA user_version = %d",
		// Any row it returns is one that breaks a foreign key.
		check: "PRAGMA foreign_key_check"}
	postgres = versioning{
		// The advisory lock's number is secutil's own ("secutil" in ASCII).
		lock: `SELECT pg_advisory_xact_lock(32481100168456556);
			CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL);
			INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS (SELECT FROM schema_version)`,
		read:  "SELECT version FROM schema_version",
		write: "UPDATE schema_version SET version = %d",
	}
)

// beginner is a pool or one connection of it.
type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

func applyInTx(ctx context.Context, db beginner, v versioning, steps []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v.lock != "" {
		if _, err := tx.ExecContext(ctx, v.lock); err != nil {
			return err
		}
	}
	// Read the version again under the lock: another process may have
	// migrated the database since.
	version, err := checkVersion(ctx, tx, v, len(steps))
	if err != nil || version == len(steps) {
		return err
	}
	for ; version < len(steps); version++ {
		if _, err := tx.ExecContext(ctx, steps[version]); err != nil {
			return fmt.Errorf("schema step %d: %w", version+1, err)
		}
	}
	if v.check != "" {
		if err := checkSchema(ctx, tx, v.check); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(v.write, version)); err != nil {
		return err
	}
	return tx.Commit()
}

// checkSchema runs query, which must find no row.
func checkSchema(ctx context.Context, tx *sql.Tx, query string) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return fmt.Errorf("after the schema steps, %s finds rows that break the schema's rules", query)
	}
	return rows.Err()
}

// checkVersion returns the database's schema version, refusing one above
// known.
func checkVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, v versioning, known int) (int, error) {
	var version int
	if err := q.QueryRowContext(ctx, v.read).Scan(&version); err != nil {
		return 0, err
	}
	if version > known {
		return 0, fmt.Errorf("%w: its schema is version %d and this program knows versions up to %d; run the newer secutil or restore a backup",
			ErrSchemaTooNew, version, known)
	}
	return version, nil
}

// FromFS reads the steps from the files in fsys that match pattern, named
// after their version: 0001_init.sql, 0002_billing.sql, and so on. The
// numbers must run 1, 2, 3… without a gap or a repeat, so no step is
// skipped or run twice.
func FromFS(fsys fs.FS, pattern string) ([]string, error) {
	names, err := fs.Glob(fsys, pattern) // sorted
	if err != nil {
		return nil, err
	}
	steps := make([]string, 0, len(names))
	for i, name := range names {
		number, _, _ := strings.Cut(path.Base(name), "_")
		if n, err := strconv.Atoi(number); err != nil || n != i+1 {
			return nil, fmt.Errorf("schema step %s: its name must start with %04d_", name, i+1)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		steps = append(steps, string(body))
	}
	return steps, nil
}
