package cmd

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

func TestSweepExpiredRunsAtOnceAndOnSchedule(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.CreateAccount(ctx, store.NewAccount{Email: "a@example.com", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateSession(ctx, []byte("old"), id, -time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetCodeFor(ctx, id, store.PurposeRegister, "", []byte("code"), -time.Minute); err != nil {
		t.Fatal(err)
	}
	// A key revoked longer ago than revoked keys are kept.
	st.SetClock(func() time.Time { return time.Now().Add(-store.RevokedKeysKept - time.Hour) })
	if err := st.IssueKey(ctx, id, "old", []byte("old key"), "sk_…"); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeKey(ctx, id, "old"); err != nil {
		t.Fatal(err)
	}
	// A registration left unverified, with no live code, longer than one is kept.
	st.SetClock(func() time.Time { return time.Now().Add(-store.PendingRegistrationsKept - time.Hour) })
	if _, err := st.CreateAccount(ctx, store.NewAccount{Email: "abandoned@example.com", PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	st.SetClock(time.Now)
	logs := &cmdtest.SyncBuffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sweepExpired(ctx, st, 10*time.Millisecond, slog.New(slog.NewTextHandler(logs, nil)))
	}()
	waitForLog(t, logs, "sessions=1 codes=1 revoked_keys=1 abandoned_registrations=1") // the sweep at start
	if err := st.CreateSession(ctx, []byte("later"), id, -time.Minute); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, logs, "sessions=1 codes=0") // a sweep on the ticker
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("sweepExpired did not return after its context ended")
	}
}

func waitForLog(t *testing.T, logs *cmdtest.SyncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(logs.String(), want) {
			return
		}
	}
	t.Fatalf("log never showed %q:\n%s", want, logs.String())
}
