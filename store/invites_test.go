package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

func mustInvite(t *testing.T, s *store.Store, hash string, by int64) []byte {
	t.Helper()
	if _, err := s.CreateInvite(context.Background(), []byte(hash), by, time.Hour); err != nil {
		t.Fatal(err)
	}
	return []byte(hash)
}

// An invite is spent when an account registered with it is verified, not
// when it registers: registering again (a code expired, an email
// mistyped) works until then, and only the first account verified gets
// in.
func TestInviteSurvivesUntilVerified(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		invite := mustInvite(t, s, "invite", 0)
		typo := pending(t, s, "ann@exmaple.com", "p1", invite)
		if r, err := registerPending(s, "ann@exmaple.com", "p1", invite); err != nil || r.Created {
			t.Fatalf("registering a pending email again: created %v, %v", r.Created, err)
		}
		ann := pending(t, s, "ann@example.com", "p1", invite)
		if again := pending(t, s, "ann@example.com", "p2", invite); again != ann {
			t.Fatalf("registering again made account %d, want %d", again, ann)
		}
		if a, _ := s.AccountByID(ctx, ann); a.PasswordHash != "p2" || a.Verified {
			t.Fatalf("after registering again: %+v", a)
		}
		if err := s.CheckInvite(ctx, invite); err != nil {
			t.Fatalf("the invite after three registrations: %v", err)
		}
		if err := s.VerifyRegistration(ctx, ann); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.AccountByID(ctx, ann); !a.Verified {
			t.Fatal("not verified")
		}
		if _, err := registerPending(s, "bob@example.com", "p", invite); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("registering with a spent invite: %v", err)
		}
		if err := s.VerifyRegistration(ctx, typo); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("verifying a second account with one invite: %v", err)
		}
		if a, _ := s.AccountByID(ctx, typo); a.Verified {
			t.Fatal("a second account got in with one invite")
		}
		if _, err := registerPending(s, "ann@example.com", "p", nil); !errors.Is(err, store.ErrEmailTaken) {
			t.Fatalf("registering a verified email: %v", err)
		}
		// Without an invite (open registration) verifying just verifies.
		open := pending(t, s, "open@example.com", "p", nil)
		if err := s.VerifyRegistration(ctx, open); err != nil {
			t.Fatal(err)
		}
	})
}

// Of 20 accounts registered with one invite and verified at once, exactly
// one gets in.
func TestInviteVerifiesOneUnderRace(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		invite := mustInvite(t, s, "race", 0)
		var ids []int64
		for i := range 20 {
			ids = append(ids, pending(t, s, fmt.Sprintf("u%d@example.com", i), "p", invite))
		}
		var wg sync.WaitGroup
		errs := make([]error, len(ids))
		for i, id := range ids {
			wg.Go(func() { errs[i] = s.VerifyRegistration(ctx, id) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, store.ErrInviteInvalid):
				t.Errorf("a verification failed with %v, want ErrInviteInvalid", err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d accounts verified with one invite, want 1", ok)
		}
	})
}

func TestInvitesListAndRevoke(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		boss := mustAccount(t, s, "boss@example.com", "")
		byToken := mustInvite(t, s, "by token", 0)
		byBoss := mustInvite(t, s, "by boss", boss)
		spent := mustInvite(t, s, "spent", boss)
		if err := s.VerifyRegistration(ctx, pending(t, s, "c@example.com", "p", spent)); err != nil {
			t.Fatal(err)
		}
		waiting := pending(t, s, "w@example.com", "p", byBoss)
		invites, err := s.Invites(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		byHash := map[string]store.Invite{}
		for _, in := range invites {
			byHash[string(in.Hash)] = in
		}
		if len(invites) != 2 || byHash["by token"].CreatedBy != "" || byHash["by boss"].CreatedBy != "boss@example.com" ||
			byHash["by boss"].Pending != 1 || byHash["by boss"].ExpiresAt.Before(time.Now()) {
			t.Fatalf("live invites: %+v", invites)
		}
		if err := s.RevokeInvite(ctx, byBoss); err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{s.RevokeInvite(ctx, byBoss), s.RevokeInvite(ctx, spent)} {
			if !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("revoking a dead invite: %v", err)
			}
		}
		if err := s.CheckInvite(ctx, byBoss); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("a revoked invite: %v", err)
		}
		if err := s.VerifyRegistration(ctx, waiting); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("verifying with a revoked invite: %v", err)
		}
		if invites, _ := s.Invites(ctx, 10); len(invites) != 1 || string(invites[0].Hash) != string(byToken) {
			t.Fatalf("after revoking: %+v", invites)
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

// TestActivatingSpendsTheInvite: an operator who activated an account
// registered with an invite left the invite live, to register one more
// account. Activating, as verifying, spends it.
func TestActivatingSpendsTheInvite(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		invite := mustInvite(t, s, "invite", 0)
		ann := pending(t, s, "ann@example.com", "p", invite)
		if err := s.Activate(ctx, ann, "operator's", false); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckInvite(ctx, invite); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("the invite after its account was activated: %v, want ErrInviteInvalid", err)
		}
		// So does an operator's taking over of the registration.
		other := mustInvite(t, s, "other invite", 0)
		pending(t, s, "bob@example.com", "p", other)
		if _, tookOver, err := s.CreateOrTakeOver(ctx, store.NewAccount{Email: "bob@example.com", PasswordHash: "operator's", Verified: true}); err != nil || !tookOver {
			t.Fatalf("taking over: %v %v", tookOver, err)
		}
		if live, err := s.Invites(ctx, 10); err != nil || len(live) != 0 {
			t.Fatalf("live invites %+v, %v; want none", live, err)
		}
	})
}

// TestExpiredInviteRefusesVerification: an account registered with an
// invite that expired before its code was entered was still verified.
// The invite must be live when it is spent.
func TestExpiredInviteRefusesVerification(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Now()
		s.SetClock(func() time.Time { return now })
		invite := mustInvite(t, s, "invite", 0) // an hour
		ann := pending(t, s, "ann@example.com", "p", invite)
		now = now.Add(time.Hour + time.Second)
		if err := s.VerifyRegistration(ctx, ann); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("verifying with an expired invite: %v, want ErrInviteInvalid", err)
		}
		if a, _ := s.AccountByID(ctx, ann); a.Verified {
			t.Fatal("verified with an expired invite")
		}
	})
}
