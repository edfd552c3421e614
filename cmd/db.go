package cmd

import (
	"context"
	"fmt"
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

// openExisting opens a database that must exist: the commands that change
// or copy accounts never create an empty one by mistake.
func openExisting(ctx context.Context, path string) (*store.Store, error) {
	if store.IsPostgres(path) {
		return store.Open(ctx, path)
	}
	if _, err := os.Stat(strings.TrimPrefix(path, "file:")); err != nil {
		return nil, fmt.Errorf("no database at %s (give -db, or set SECUTIL_DB): %w", path, err)
	}
	return store.Open(ctx, path)
}

// dbUsage describes -db, for every command that takes it.
const dbUsage = "the database: an SQLite file (created when missing), or a postgres://user@host/db URL for PostgreSQL, which several servers can share"

// existingDBUsage describes -db for the commands that open a database
// that exists (openExisting).
const existingDBUsage = "the database: an existing SQLite file, or a postgres://user@host/db URL"

// hashDBPath is the index file beside the main database: secutil.db →
// secutil-hashes.db. With PostgreSQL, each server keeps its own index in
// its working directory (secutil-hashes.db).
func hashDBPath(given, db string) string {
	if given != "" {
		return given
	}
	return besideDB(db, "-hashes.db")
}
