package store_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"
	"time"
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
