package server_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"secutil/internal/testpar"
	"secutil/server"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/store/storetest"
	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

// sharedDir holds what every env of the process shares (the seeded hash
// index, the GeoIP test databases); TestMain makes it and removes it.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "secutil-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	// Slow clients, timers, a PostgreSQL restart and Chromium: many of
	// the tests wait.
	testpar.Raise(4)
	code := m.Run()
	if ix, err := sharedHashes(); err == nil {
		ix.Close()
	}
	if sharedGeo.locator != nil {
		sharedGeo.locator.Close()
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

// openStore opens a fresh store for t at dbPath, from a migrated copy.
func openStore(t testing.TB, dbPath string) *store.Store {
	t.Helper()
	if err := storetest.WriteMigrated(dbPath); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// sharedAssets are templates/ and static/ of the working tree, read once:
// every env's server reads them from memory.
var sharedAssets = sync.OnceValues(func() (fs.FS, error) { return server.AssetsInMemory(os.DirFS("..")) })

// sharedGeo is one Locator over the GeoIP test databases for the whole
// process; lookups only read it. The first env writes the databases
// (geotest.Databases, into its own temporary directory) and copies them
// into sharedDir, which outlives it.
var sharedGeo struct {
	sync.Mutex
	locator *geo.Locator
}

func sharedLocator(t testing.TB) *geo.Locator {
	t.Helper()
	sharedGeo.Lock()
	defer sharedGeo.Unlock()
	if sharedGeo.locator != nil {
		return sharedGeo.locator
	}
	cfg := geotest.Databases(t)
	for _, path := range []*string{&cfg.CityPath, &cfg.ASNPath, &cfg.ISPPath} {
		body, err := os.ReadFile(*path)
		if err != nil {
			t.Fatal(err)
		}
		*path = filepath.Join(sharedDir, filepath.Base(*path))
		if err := os.WriteFile(*path, body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	locator, err := geo.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sharedGeo.locator = locator
	return locator
}
