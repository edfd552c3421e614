package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"secutil/store"
)

// The setup link and the command line take over a pending registration
// of their email, whose password a stranger may have chosen; a verified
// account they leave alone.
func TestOperatorTakesOverPendingRegistration(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		squatted := pending(t, s, "boss@example.com", "attacker", nil)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.CreateSession(ctx, []byte("s"), squatted, time.Hour))
		must(s.SetCode(ctx, squatted, store.PurposeRegister, []byte("c"), time.Hour))
		must(s.SetSetupToken(ctx, []byte("token")))
		id, err := s.CreateFirstAdmin(ctx, []byte("token"), store.NewAccount{Email: "Boss@example.com", PasswordHash: "operator", Plan: store.PlanPro, Verified: true})
		if err != nil || id != squatted {
			t.Fatalf("setup over a pending registration: %d, %v (pending %d)", id, err, squatted)
		}
		a, _ := s.AccountByID(ctx, id)
		if a.PasswordHash != "operator" || !a.Admin || !a.Verified || a.Plan != store.PlanPro {
			t.Fatalf("after setup: %+v", a)
		}
		if _, err := s.SessionAccount(ctx, []byte("s")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the registrant's session: %v", err)
		}
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("c")); !errors.Is(err, store.ErrCodeInvalid) {
			t.Fatalf("the registrant's code: %v", err)
		}

		other := pending(t, s, "ann@example.com", "attacker", nil)
		id, tookOver, err := s.CreateOrTakeOver(ctx, store.NewAccount{Email: "ann@example.com", PasswordHash: "op", Verified: true})
		if err != nil || !tookOver || id != other {
			t.Fatalf("CreateOrTakeOver of a pending account: %d %v %v", id, tookOver, err)
		}
		if _, _, err := s.CreateOrTakeOver(ctx, store.NewAccount{Email: "ann@example.com", PasswordHash: "again", Verified: true}); !errors.Is(err, store.ErrEmailTaken) {
			t.Fatalf("CreateOrTakeOver of a verified account: %v", err)
		}
		if _, tookOver, err := s.CreateOrTakeOver(ctx, store.NewAccount{Email: "new@example.com", PasswordHash: "p", Verified: true}); err != nil || tookOver {
			t.Fatalf("CreateOrTakeOver of a new email: %v %v", tookOver, err)
		}
	})
}

// TestRegisteringAgainPastTheCodesKeepsThePassword: registering a pending
// email again gives it the newest password and mails a code for it; past
// the registrant's codes for the hour, it replaced the password and
// mailed nothing, so the owner's code then failed with no word why. Now
// nothing changes without a code on its way, and the owner is told once.
func TestRegisteringAgainPastTheCodesKeepsThePassword(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		register := func(password, client string, code string) (store.Registered, error) {
			return s.RegisterPending(ctx, store.Registration{
				Account: store.NewAccount{Email: "owner@example.com", PasswordHash: password},
				Client:  client, Code: func(int64) []byte { return []byte(code) }, CodeTTL: time.Hour})
		}
		first, err := register("owner's", "owner", "owner's code")
		if err != nil || !first.Created {
			t.Fatalf("the owner's registration: %+v %v", first, err)
		}
		for i := range store.MaxCodesPerHour {
			again, err := register("stranger's", "stranger", fmt.Sprint("stranger's code ", i))
			if err != nil || again.Created || again.ID != first.ID {
				t.Fatalf("registering again: %+v %v", again, err)
			}
		}
		past, err := register("stranger's last", "stranger", "no code")
		if !errors.Is(err, store.ErrTooManyCodes) || !past.NotifyOwner || past.ID != first.ID {
			t.Fatalf("registering past the codes: %+v %v; want ErrTooManyCodes, the owner told", past, err)
		}
		if a, _ := s.AccountByID(ctx, first.ID); a.PasswordHash != "stranger's" {
			t.Fatalf("the password after a registration past the codes: %q, want the last one a code went out for", a.PasswordHash)
		}
		if err := s.ConsumeCode(ctx, first.ID, store.PurposeRegister, []byte(fmt.Sprint("stranger's code ", store.MaxCodesPerHour-1))); err != nil {
			t.Fatalf("the last code mailed: %v", err)
		}
		if again, err := register("stranger's last", "stranger", "no code"); !errors.Is(err, store.ErrTooManyCodes) || again.NotifyOwner {
			t.Fatalf("registering past the codes again: %+v %v; want ErrTooManyCodes, the owner told no more", again, err)
		}
	})
}

// TestSweepDeletesAbandonedRegistrations: a pending registration whose
// code expired stayed for good, holding its email. The sweep deletes one
// with no live code a day after it was made (PendingRegistrationsKept),
// and no other account.
func TestSweepDeletesAbandonedRegistrations(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Now()
		s.SetClock(func() time.Time { return now })
		abandoned := pending(t, s, "abandoned@example.com", "p", nil)
		retried := pending(t, s, "retried@example.com", "p", nil)
		disabled := pending(t, s, "disabled@example.com", "p", nil)
		if err := s.SetDisabled(ctx, disabled, true); err != nil {
			t.Fatal(err)
		}
		verified := mustAccount(t, s, "verified@example.com", "")
		now = now.Add(store.PendingRegistrationsKept - time.Second)
		if n, err := s.DeleteAbandonedRegistrations(ctx); err != nil || n != 0 {
			t.Fatalf("swept %d, %v before any registration is a day old; want none", n, err)
		}
		now = now.Add(time.Second)
		young := pending(t, s, "young@example.com", "p", nil)
		now = now.Add(time.Hour)
		pending(t, s, "retried@example.com", "p", nil) // a fresh code
		if n, err := s.DeleteAbandonedRegistrations(ctx); err != nil || n != 1 {
			t.Fatalf("swept %d, %v; want the abandoned registration", n, err)
		}
		if _, err := s.AccountByID(ctx, abandoned); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the abandoned registration: %v", err)
		}
		for _, id := range []int64{retried, disabled, verified, young} {
			if _, err := s.AccountByID(ctx, id); err != nil {
				t.Fatalf("account %d: %v", id, err)
			}
		}
	})
}
