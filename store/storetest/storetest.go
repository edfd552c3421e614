// Package storetest gives tests an SQLite store file with every migration
// already applied. Migrating a new file runs each migration's statements
// and parses the schema they build again at each step; a test process
// that opens hundreds of stores does that once, and each store starts from
// a copy.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"secutil/store"
)

// migrated is the bytes of an SQLite store with every migration applied
// and nothing else. Closing the store checkpoints its write-ahead log into
// the file and removes the log, so the file alone is the whole database,
// still in WAL mode (which a store would otherwise set at each open).
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "secutil-storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "migrated.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the migrated store kept a write-ahead log after closing (%v)", err)
	}
	return os.ReadFile(path)
})

// WriteMigrated writes at path an SQLite store file with every migration
// applied; store.Open then finds its schema current.
func WriteMigrated(path string) error {
	b, err := migrated()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
