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
// for the disk). Without the retries an opener failed with SQLITE_BUSY in
// each of 6 runs, by rounds 0, 4, 71, 98, 147 and 284 of the 400.
func TestConcurrentEnablesOnANewFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rounds, atOnce = 400, 10
	var wg sync.WaitGroup
	errs := make([]error, rounds)
	for first := range atOnce {
		wg.Go(func() {
			for round := first; round < rounds && errs[round] == nil; round += atOnce {
				errs[round] = enableTogether(filepath.Join(dir, fmt.Sprintf("round%d.db", round))+pragmas, 4)
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

// enableTogether runs Enable on dsn from openers goroutines at once, and
// returns the first error.
func enableTogether(dsn string, openers int) error {
	var wg sync.WaitGroup
	errs := make([]error, openers)
	for i := range errs {
		wg.Go(func() { errs[i] = walmode.Enable(context.Background(), dsn, 10*time.Second) })
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
	if err := walmode.Enable(context.Background(), path+pragmas, time.Second); err != nil {
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
	holder, err := sql.Open("sqlite", path+"?_pragma=journal_mode(DELETE)&_txlock=exclusive")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = walmode.Enable(context.Background(), path+"?_pragma=busy_timeout(50)&_pragma=journal_mode(WAL)", 200*time.Millisecond)
	if err == nil {
		t.Fatal("Enable succeeded on a file another connection holds exclusively")
	}
	if waited := time.Since(start); waited < 200*time.Millisecond || waited > 5*time.Second {
		t.Errorf("Enable gave up after %s, want its wait of 200ms and not much more", waited)
	}
}
