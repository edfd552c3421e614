package store_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

// walProgress reads, from SQLite's wal-index (the -shm file), how many
// frames the WAL holds and how many of them a checkpoint has copied into
// the database file: mxFrame at byte 16 of the index header, nBackfill at
// byte 96, just after the header's two copies, both in the machine's byte
// order.
func walProgress(t *testing.T, path string) (frames, backfilled uint32) {
	t.Helper()
	shm, err := os.ReadFile(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	if len(shm) < 100 {
		t.Fatalf("wal-index of %d bytes", len(shm))
	}
	return binary.NativeEndian.Uint32(shm[16:]), binary.NativeEndian.Uint32(shm[96:])
}

// The checkpointer copies the WAL into the database file within a tick or
// two, however few pages it holds: SQLite's own rule waits for 1,000.
func TestCheckpointerCopiesTheWALSoon(t *testing.T) {
	t.Parallel()
	s, path := mustOpenStore(t)
	for i := range 20 {
		mustAccount(t, s, fmt.Sprintf("ckpt%d@example.com", i), "starter")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		frames, backfilled := walProgress(t, path)
		if frames > 0 && backfilled == frames {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s the WAL's %d frames are copied up to %d", frames, backfilled)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Under steady writes and reads that overlap, the log never starts again
// from its beginning by itself: the WAL grew without bound (33 MB a second
// at 20,000 metered calls a second) and kept its size after the load. The
// checkpointer restarts it past a size, and after a long read that let it
// grow past its limit, brings the file back under the limit. The size here
// is 1 MiB, where the store's own is walRestartBytes, which a test cannot
// write in a few seconds.
func TestWALStaysBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := mustOpenStore(t)
	const restartAt = 1 << 20
	const limit = restartAt + restartAt/2 // what RestartWALAt leaves of the file
	// bound is restartAt and what this load writes in the ticks between a
	// restart that gives up (a read outlasting restartWait on a busy
	// machine) and the next: the WAL reached 1.5-3.5 MiB beside the rest
	// of the package's tests, and 9-16 MiB without restarts.
	const bound = 12 << 20
	if err := s.RestartWALAt(restartAt); err != nil {
		t.Fatal(err)
	}
	var charges []store.Charge
	for i := range 16 {
		id := mustAccount(t, s, fmt.Sprintf("wal%d@example.com", i), store.PlanPro)
		if err := s.IssueKey(ctx, id, "k", []byte(fmt.Sprintf("wal key %d", i)), "hint"); err != nil {
			t.Fatal(err)
		}
		k, err := s.KeyByName(ctx, id, "k")
		if err != nil {
			t.Fatal(err)
		}
		charges = append(charges, store.Charge{AccountID: id, KeyID: k.ID})
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	stop := make(chan struct{})
	var load sync.WaitGroup
	until := func(work func(i int)) {
		load.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
					work(i)
				}
			}
		})
	}
	for g := range 32 { // metered calls
		until(func(i int) {
			if _, err := s.CommitUsage(ctx, charges[(g+i)%len(charges)]); err != nil {
				t.Error(err)
			}
		})
	}
	for g := range 2 { // login throttles, a bucket each
		until(func(i int) {
			if _, _, err := s.TakeToken(ctx, fmt.Sprintf("client %d %d", g, i), 5, time.Minute); err != nil {
				t.Error(err)
			}
		})
	}
	for range 2 { // reads of a millisecond or more, one after the other
		until(func(int) {
			var n int
			err := raw.QueryRow(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
				SELECT count(*) + (SELECT count(*) FROM usage) FROM c`).Scan(&n)
			if err != nil {
				t.Error(err)
			}
		})
	}

	walBytes := func() int64 {
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.WALBytes
	}
	var peak int64
	for start := time.Now(); time.Since(start) < 3*time.Second; time.Sleep(10 * time.Millisecond) {
		peak = max(peak, walBytes())
	}
	// A read that holds its snapshot keeps the log from restarting, and
	// the WAL grows past its limit meanwhile.
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM usage`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	held := walBytes()
	for start := time.Now(); held < 2*limit && time.Since(start) < 2*time.Second; held = walBytes() {
		time.Sleep(10 * time.Millisecond)
	}
	tx.Rollback()
	close(stop)
	load.Wait()

	if peak > bound {
		t.Errorf("under load the WAL reached %.1f MiB, past the bound of %d MiB", float64(peak)/(1<<20), bound>>20)
	}
	deadline := time.Now().Add(5 * time.Second)
	after := walBytes()
	for ; after > limit && time.Now().Before(deadline); after = walBytes() {
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("WAL: %.1f MiB at most under load, %.1f MiB after a long read, %.1f MiB after the load", float64(peak)/(1<<20), float64(held)/(1<<20), float64(after)/(1<<20))
	if after > limit {
		t.Errorf("5 s after the load the WAL holds %.1f MiB, past its limit of %.1f MiB", float64(after)/(1<<20), float64(limit)/(1<<20))
	}
	if fi, err := os.Stat(path + "-wal"); err != nil {
		t.Error(err)
	} else if fi.Size() != after {
		t.Errorf("Stats says the WAL holds %d bytes, its file %d", after, fi.Size())
	}
}
