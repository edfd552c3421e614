package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"secutil/store"
)

// defaultDB is the database file when -db is not given.
const defaultDB = "secutil.db"

// besideDB names a file beside the database: secutil.db → secutil<suffix>;
// for a PostgreSQL database, secutil<suffix> in the working directory.
func besideDB(db, suffix string) string {
	if store.IsPostgres(db) {
		return "secutil" + suffix
	}
	db = strings.TrimPrefix(db, "file:")
	return strings.TrimSuffix(db, filepath.Ext(db)) + suffix
}

// sqliteFile is the file an SQLite -db names: without a "file:" prefix
// or a query.
func sqliteFile(db string) string {
	path, _, _ := strings.Cut(strings.TrimPrefix(db, "file:"), "?")
	return path
}

// checkExisting refuses an SQLite -db that is not an existing file, with
// a sentence that names the path: the commands other than serve never
// create a database, so a mistyped -db is found rather than filled.
func checkExisting(db string) error {
	if store.IsPostgres(db) {
		return nil
	}
	path := sqliteFile(db)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no database at %s: only serve creates a database, and the other commands open one that exists", path)
	case err != nil:
		return fmt.Errorf("the database %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("the database %s is a folder: give -db the database file in it, such as %s", path, filepath.Join(path, defaultDB))
	}
	return nil
}

// checkCreatable refuses a file path that cannot be created as it
// stands: one naming a folder, or one whose folder does not exist, which
// secutil never makes (a mistyped folder would otherwise be found only by
// SQLite's "unable to open database file"). what names the file in the
// sentence ("the database", "the copy"); example is a file name to
// suggest inside a folder given by mistake.
func checkCreatable(what, path, example string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s %s is a folder: give the path of a file, such as %s", what, path, filepath.Join(path, example))
	case err == nil:
		return nil // whether to open or refuse it is the caller's
	}
	dir := filepath.Dir(path)
	if fi, dirErr := os.Stat(dir); dirErr != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s cannot be created: there is no folder %s (secutil makes no folders: create it, or give another path)", what, path, dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// checkDatabaseCreatable is checkCreatable for an SQLite -db that serve,
// or migrate-store's -to, may create.
func checkDatabaseCreatable(db string) error {
	if store.IsPostgres(db) {
		return nil
	}
	return checkCreatable("the database", sqliteFile(db), defaultDB)
}

// openExisting opens a database that must exist (checkExisting).
func openExisting(ctx context.Context, db string) (*store.Store, error) {
	if err := checkExisting(db); err != nil {
		return nil, err
	}
	return store.Open(ctx, db)
}

// dbUsage describes serve's -db.
const dbUsage = "the database: an SQLite file (created when missing, in a folder that exists), or a postgres://user@host/db URL for PostgreSQL, which several servers can share"

// existingDBUsage describes -db for the commands other than serve, which
// open a database that exists (openExisting).
const existingDBUsage = "the database: an existing SQLite file (serve creates it), or a postgres://user@host/db URL"

// hashDBPath is the index file beside the main database: secutil.db →
// secutil-hashes.db. With PostgreSQL, each server keeps its own index in
// its working directory (secutil-hashes.db).
func hashDBPath(given, db string) string {
	if given != "" {
		return given
	}
	return besideDB(db, "-hashes.db")
}
