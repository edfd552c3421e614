package walmode_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"secutil/store/internal/walmode"
)

const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"

// Four processes' first start on one new file: every Enable succeeds.
// The rounds run ten at a time, each on its own file (a round mostly waits
// for the disk). Without the retries an opener failed with SQLITE_BUSY
// about once in 100 to 200 rounds; TestEnableWaitsForAHolder is the test
// that fails every time without them.
func TestConcurrentEnablesOnANewFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rounds, atOnce = 100, 10
	var wg sync.WaitGroup
	errs := make([]error, rounds)
	for first := range atOnce {
		wg.Go(func() {
			for round := first; round < rounds && errs[round] == nil; round += atOnce {
				errs[round] = enableTogether(filepath.Join(dir, fmt.Sprintf("round%d.db", round)), 4)
			}
		})
	}
	wg.Wait()
	for round, err := range errs {
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// enableTogether runs Enable on path from openers goroutines at once, and
// returns the first error.
func enableTogether(path string, openers int) error {
	var wg sync.WaitGroup
	errs := make([]error, openers)
	for i := range errs {
		wg.Go(func() { errs[i] = walmode.Enable(context.Background(), path, path+pragmas, 10*time.Second) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("opener %d: %w", i, err)
		}
	}
	return nil
}

// A file another program made in rollback-journal mode is switched.
func TestEnableSwitchesARollbackFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rollback.db")
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := walmode.Enable(context.Background(), path, path+pragmas, time.Second); err != nil {
		t.Fatal(err)
	}
	db, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q, %v; want wal", mode, err)
	}
}

// An opener that cannot have the file gives up when its wait is over.
func TestEnableGivesUpAfterItsWait(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "held.db")
	holdExclusively(t, path)
	start := time.Now()
	err := walmode.Enable(context.Background(), path, path+"?_pragma=busy_timeout(50)&_pragma=journal_mode(WAL)", 200*time.Millisecond)
	if err == nil {
		t.Fatal("Enable succeeded on a file another connection holds exclusively")
	}
	if waited := time.Since(start); waited < 200*time.Millisecond || waited > 5*time.Second {
		t.Errorf("Enable gave up after %s, want its wait of 200ms and not much more", waited)
	}
}

// An opener whose connection's busy_timeout runs out while another holds
// the file tries again, and succeeds once the holder lets go.
func TestEnableWaitsForAHolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "held.db")
	release := holdExclusively(t, path)
	const held = 300 * time.Millisecond
	time.AfterFunc(held, release)
	start := time.Now()
	if err := walmode.Enable(context.Background(), path, path+"?_pragma=busy_timeout(50)&_pragma=journal_mode(WAL)", 10*time.Second); err != nil {
		t.Fatalf("Enable after the holder let go: %v", err)
	}
	if waited := time.Since(start); waited < held {
		t.Errorf("Enable returned after %s, before the holder let go at %s", waited, held)
	}
}

// holdExclusively makes a rollback-journal database at path and holds it
// in an exclusive transaction until the test ends or release is called.
func holdExclusively(t *testing.T, path string) (release func()) {
	t.Helper()
	holder, err := sql.Open("sqlite", path+"?_pragma=journal_mode(DELETE)&_txlock=exclusive")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Close() })
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() { tx.Rollback() })
	t.Cleanup(release)
	return release
}
