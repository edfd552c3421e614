package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

func TestFirstAdminWithTheSetupToken(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		token, other := []byte("token hash"), []byte("other hash")
		if err := s.CheckSetupToken(ctx, token); !errors.Is(err, store.ErrSetupToken) {
			t.Fatalf("before any token was set: %v", err)
		}
		if err := s.SetSetupToken(ctx, other); err != nil {
			t.Fatal(err)
		}
		if err := s.SetSetupToken(ctx, token); err != nil { // a later start replaces the token
			t.Fatal(err)
		}
		if err := s.CheckSetupToken(ctx, other); !errors.Is(err, store.ErrSetupToken) {
			t.Fatalf("a replaced token: %v", err)
		}
		if err := s.CheckSetupToken(ctx, token); err != nil {
			t.Fatalf("the current token: %v", err)
		}

		// Of concurrent uses of the link, exactly one creates an administrator.
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = s.CreateFirstAdmin(ctx, token, store.NewAccount{
					Email: "boss" + string(rune('a'+i)) + "@example.com", PasswordHash: "x", Plan: store.PlanPro, Verified: true})
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			switch {
			case err == nil:
				created++
			case !errors.Is(err, store.ErrSetupDone) && !errors.Is(err, store.ErrSetupToken):
				t.Errorf("a losing use: %v", err)
			}
		}
		if created != 1 {
			t.Fatalf("%d administrators created with one link", created)
		}
		if has, err := s.HasAdmin(ctx); err != nil || !has {
			t.Fatalf("HasAdmin = %v, %v", has, err)
		}
		if err := s.CheckSetupToken(ctx, token); !errors.Is(err, store.ErrSetupDone) {
			t.Fatalf("the used token: %v", err)
		}
	})
}

func TestSetupTokenDiesWhenAnAdminExists(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		token := []byte("token hash")
		s.SetSetupToken(ctx, token)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		if err := s.SetAdmin(ctx, id, true); err != nil { // e.g. secutil user set ann@example.com -admin
			t.Fatal(err)
		}
		if _, err := s.CreateFirstAdmin(ctx, token, store.NewAccount{Email: "boss@example.com", PasswordHash: "x"}); !errors.Is(err, store.ErrSetupDone) {
			t.Fatalf("setup after an admin exists: %v", err)
		}
	})
}

func TestTheLastAdminStays(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		boss := mustAccount(t, s, "boss@example.com", store.PlanPro)
		ann := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		if err := s.SetAdmin(ctx, boss, true); err != nil {
			t.Fatal(err)
		}
		for name, act := range map[string]func() error{
			"revoke":  func() error { return s.SetAdmin(ctx, boss, false) },
			"disable": func() error { return s.SetDisabled(ctx, boss, true) },
			"delete":  func() error { return s.DeleteAccount(ctx, boss) },
		} {
			if err := act(); !errors.Is(err, store.ErrLastAdmin) {
				t.Errorf("%s the last admin: %v", name, err)
			}
		}
		// With a second enabled administrator, the first may go.
		if err := s.SetAdmin(ctx, ann, true); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDisabled(ctx, boss, true); err != nil {
			t.Fatal(err)
		}
		// Now ann is the only enabled one.
		if err := s.SetAdmin(ctx, ann, false); !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("revoke the last enabled admin: %v", err)
		}
		for name, act := range map[string]func() error{
			"revoke": func() error { return s.SetAdmin(ctx, 999, false) },
			"grant":  func() error { return s.SetAdmin(ctx, 999, true) },
			"enable": func() error { return s.SetDisabled(ctx, 999, false) },
			"delete": func() error { return s.DeleteAccount(ctx, 999) },
			"reset":  func() error { return s.ResetUsage(ctx, 999) },
		} {
			if err := act(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s a missing account: %v", name, err)
			}
		}
	})
}

func TestDisableEndsSessionsAndMarksTheAccount(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		keyHash := make([]byte, 32)
		s.IssueKey(ctx, id, "default", keyHash, "sk_1…")
		s.CreateSession(ctx, []byte("session"), id, time.Hour)
		if _, a, err := s.KeyByHash(ctx, keyHash); err != nil || a.Disabled { // now cached
			t.Fatalf("before: %v %v", a, err)
		}
		if err := s.SetDisabled(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		if _, a, err := s.KeyByHash(ctx, keyHash); err != nil || !a.Disabled {
			t.Fatalf("the key's account after disabling: %+v %v", a, err)
		}
		if _, err := s.SessionAccount(ctx, []byte("session")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session after disabling: %v", err)
		}
		if err := s.SetDisabled(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		if _, a, err := s.KeyByHash(ctx, keyHash); err != nil || a.Disabled {
			t.Fatalf("after enabling: %+v %v", a, err)
		}
	})
}

func TestResetUsageAndDeleteAccount(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		for range 3 {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.ResetUsage(ctx, id); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Usage(ctx, id); err != nil || n != 0 {
			t.Fatalf("usage after reset: %d %v", n, err)
		}
		if n, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil || n != 1 {
			t.Fatalf("the first call after a reset counts %d (%v), want 1", n, err)
		}

		if err := s.DeleteAccount(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AccountByID(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted account: %v", err)
		}
		// A call authenticated before the deletion fails alone; others in the
		// same moment still count.
		other := mustAccount(t, s, "bob@example.com", store.PlanStarter)
		if other != id {
			t.Logf("the new account got id %d, not the deleted %d", other, id)
		} else if n, err := s.Usage(ctx, other); err != nil || n != 0 {
			t.Fatalf("a new account with a deleted account's id starts at %d (%v)", n, err)
		}
		var wg sync.WaitGroup
		var lateErr, otherErr error
		wg.Go(func() { _, lateErr = s.CommitUsage(ctx, store.Charge{AccountID: id + 1000}) })
		wg.Go(func() { _, otherErr = s.CommitUsage(ctx, store.Charge{AccountID: other}) })
		wg.Wait()
		if !errors.Is(lateErr, store.ErrNotFound) || otherErr != nil {
			t.Fatalf("charge of a missing account: %v; another account's: %v", lateErr, otherErr)
		}
	})
}

// TestInvitesExpire: an invite checks until it expires. That one use of it
// lets exactly one account in is TestInviteVerifiesOneUnderRace.
func TestInvitesExpire(t *testing.T) {
	t.Parallel()
	// SQLite only: expiry is an integer compared with the store's
	// clock, alike on both; CheckInvite and CreateInvite run on PostgreSQL
	// in TestInviteSurvivesUntilVerified and TestInvitesListAndRevoke.
	onSQLiteOnly(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		boss := mustAccount(t, s, "boss@example.com", store.PlanPro)
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		expires, err := s.CreateInvite(ctx, []byte("invite"), boss, 7*24*time.Hour)
		if err != nil || !expires.Equal(now.Add(7*24*time.Hour)) {
			t.Fatalf("CreateInvite = %v, %v", expires, err)
		}
		if _, err := s.CreateInvite(ctx, []byte("expiring"), 0, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckInvite(ctx, []byte("invite")); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Hour + time.Second)
		if err := s.CheckInvite(ctx, []byte("expiring")); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("an expired invite: %v", err)
		}
		if err := s.CheckInvite(ctx, []byte("unknown")); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("an unknown invite: %v", err)
		}
	})
}

func TestAuditEventsKeepTheEmail(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditLoginOK, AccountID: id})
		s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditAccountDeleted, AccountID: 4242, Email: "gone@example.com"})
		if err := s.DeleteAccount(ctx, id); err != nil {
			t.Fatal(err)
		}
		events, err := s.AuditEvents(ctx, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[0].Email != "gone@example.com" || events[1].Email != "ann@example.com" {
			t.Fatalf("events %+v", events)
		}
	})
}
