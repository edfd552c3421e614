package store_test

import (
	"context"
	"os"
	"testing"
)

func TestStats(t *testing.T) {
	t.Parallel()
	s, path := mustOpenStore(t)
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Pages not yet checkpointed from the WAL are not in the file.
	if st.SizeBytes < 4096 || st.SizeBytes < fi.Size() {
		t.Fatalf("size %d bytes, file %d bytes", st.SizeBytes, fi.Size())
	}
	if st.WriteConnections != 1 || st.ReadConnections < 1 {
		t.Fatalf("connections: %+v", st)
	}
}
