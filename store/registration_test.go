package store_test

import (
	"context"
	"errors"
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
