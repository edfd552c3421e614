package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"secutil/store"
	"secutil/store/hashindex"
)

// sharedDir holds what every env of the process shares (the seeded hash
// index, the migrated database every env starts from); TestMain makes it
// and removes it.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "secutil-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	if ix, err := sharedHashes(); err == nil {
		ix.Close()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedHashes is one hash index seeded with seedWords for the whole
// process: the handlers only look hashes up, and seeding an index costs
// an import (megabytes of buffers, run files, synchronous commits) that
// hundreds of envs would otherwise repeat. A test that imports makes its
// own index.
var sharedHashes = sync.OnceValues(func() (*hashindex.Index, error) {
	ix, err := hashindex.Open(filepath.Join(sharedDir, "hashes.db"))
	if err != nil {
		return nil, err
	}
	if err := ix.EnsureSeeded(context.Background(), seedWords); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
})

// migratedStore is the bytes of an SQLite store with every migration
// applied and nothing else: an env writes them as its database file, and
// store.Open then finds the schema current instead of building it again.
// Backup's VACUUM INTO makes the copy one consistent file, with nothing
// left in a write-ahead log.
var migratedStore = sync.OnceValues(func() ([]byte, error) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(sharedDir, "migrated-source.db"))
	if err != nil {
		return nil, err
	}
	copyPath := filepath.Join(sharedDir, "migrated.db")
	err = st.Backup(ctx, copyPath)
	if closeErr := st.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	return os.ReadFile(copyPath)
})

// openStore opens a fresh store for t at dbPath, from the migrated copy.
func openStore(t testing.TB, dbPath string) *store.Store {
	t.Helper()
	migrated, err := migratedStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbPath, migrated, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
