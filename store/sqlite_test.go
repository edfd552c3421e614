package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"secutil/store"
)

func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := mustOpenStore(t)
	id := mustAccount(t, s, "a@example.com", store.PlanPro)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			s.CommitUsage(ctx, store.Charge{AccountID: id})
		}
	}()
	dst := filepath.Join(t.TempDir(), "backup.db")
	if err := s.Backup(ctx, dst); err != nil {
		t.Fatal(err)
	}
	<-done
	b, err := store.Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AccountByEmail(ctx, "a@example.com"); err != nil {
		t.Fatal(err)
	}
}
