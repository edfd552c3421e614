// Package migrate brings an SQLite file's schema up to date. Both of
// secutil's files use it: the main database (store) and the hash index
// (store/hashindex). The schema version is SQLite's PRAGMA user_version:
// version n means the first n steps have run.
package migrate

import (
	"context"
	"database/sql"
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

// Apply runs the steps the file at db has not run yet, in one transaction
// with the version update, so a failed step leaves the file as it was.
// steps[i] takes the schema from version i to version i+1. A file that is
// up to date costs one read and takes no write lock, so opening it does not
// wait for another process's writes.
func Apply(ctx context.Context, db *sql.DB, steps []string) error {
	if version, err := checkVersion(ctx, db, len(steps)); err != nil || version == len(steps) {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Read again under the write lock: another process may have migrated
	// the file since.
	version, err := checkVersion(ctx, tx, len(steps))
	if err != nil {
		return err
	}
	for ; version < len(steps); version++ {
		if _, err := tx.ExecContext(ctx, steps[version]); err != nil {
			return fmt.Errorf("schema step %d: %w", version+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		return err
	}
	return tx.Commit()
}

// checkVersion returns the file's schema version, refusing one above known.
func checkVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, known int) (int, error) {
	var version int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
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
