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

// pending registers email with the password hash pw and the invite, and
// fails the test on an error.
func pending(t *testing.T, s *store.Store, email, pw string, invite []byte) int64 {
	t.Helper()
	id, _, err := s.RegisterPending(context.Background(), store.NewAccount{Email: email, PasswordHash: pw}, invite)
	if err != nil {
		t.Fatalf("register %s: %v", email, err)
	}
	return id
}

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
		if _, created, err := s.RegisterPending(ctx, store.NewAccount{Email: "ann@exmaple.com", PasswordHash: "p1"}, invite); err != nil || created {
			t.Fatalf("registering a pending email again: created %v, %v", created, err)
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
		if _, _, err := s.RegisterPending(ctx, store.NewAccount{Email: "bob@example.com", PasswordHash: "p"}, invite); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("registering with a spent invite: %v", err)
		}
		if err := s.VerifyRegistration(ctx, typo); !errors.Is(err, store.ErrInviteInvalid) {
			t.Fatalf("verifying a second account with one invite: %v", err)
		}
		if a, _ := s.AccountByID(ctx, typo); a.Verified {
			t.Fatal("a second account got in with one invite")
		}
		if _, _, err := s.RegisterPending(ctx, store.NewAccount{Email: "ann@example.com", PasswordHash: "p"}, nil); !errors.Is(err, store.ErrEmailTaken) {
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

// A change of one's own password ends the other sessions, keeps the one
// making it, and keeps the keys unless asked.
func TestChangePasswordKeepsOneSession(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		for _, h := range []string{"mine", "other"} {
			if err := s.CreateSession(ctx, []byte(h), id, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.IssueKey(ctx, id, "k", []byte("key"), "sk_"); err != nil {
			t.Fatal(err)
		}
		if err := s.ChangePassword(ctx, id, "new", []byte("mine"), false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionAccount(ctx, []byte("mine")); err != nil {
			t.Fatalf("the changing session: %v", err)
		}
		if _, err := s.SessionAccount(ctx, []byte("other")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another session: %v", err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); err != nil {
			t.Fatalf("the key: %v", err)
		}
		if err := s.ChangePassword(ctx, id, "newer", []byte("mine"), true); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the key after revoking: %v", err)
		}
		if a, _ := s.AccountByID(ctx, id); a.PasswordHash != "newer" {
			t.Fatalf("hash %q", a.PasswordHash)
		}
		if err := s.ChangePassword(ctx, id+100, "x", nil, false); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no account: %v", err)
		}
	})
}

// A deleted account's keys, sessions and codes go; its monthly usage is
// kept for the operator.
func TestDeleteAccountKeepsUsage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		mustAccount(t, s, "boss@example.com", "")
		id := mustAccount(t, s, "a@example.com", "")
		for range 3 {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.CreateSession(ctx, []byte("s"), id, time.Hour))
		must(s.IssueKey(ctx, id, "k", []byte("key"), "sk_"))
		must(s.SetCode(ctx, id, store.PurposeReset, []byte("c"), time.Hour))
		must(s.DeleteAccount(ctx, id))
		if _, err := s.SessionAccount(ctx, []byte("s")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session: %v", err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("key: %v", err)
		}
		kept, err := s.DeletedUsages(ctx, 10)
		if err != nil || len(kept) != 1 || kept[0].AccountID != id || kept[0].Count != 3 || kept[0].Period != store.Period(time.Now()) {
			t.Fatalf("kept usage %+v, %v", kept, err)
		}
	})
}

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

// An unverified account becomes an administrator only with a new
// password, and the last-admin rule counts verified, enabled ones only.
func TestUnverifiedAdmins(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		boss, err := s.CreateAccount(ctx, store.NewAccount{Email: "boss@example.com", PasswordHash: "x", Verified: true, Admin: true})
		if err != nil {
			t.Fatal(err)
		}
		// An unverified administrator, as an older version could leave.
		if _, err := s.CreateAccount(ctx, store.NewAccount{Email: "ghost@example.com", PasswordHash: "x", Admin: true}); err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{s.SetAdmin(ctx, boss, false), s.SetDisabled(ctx, boss, true), s.DeleteAccount(ctx, boss)} {
			if !errors.Is(err, store.ErrLastAdmin) {
				t.Fatalf("removing the last verified administrator: %v", err)
			}
		}
		squat := pending(t, s, "squat@example.com", "attacker", nil)
		if err := s.SetAdmin(ctx, squat, true); !errors.Is(err, store.ErrUnverified) {
			t.Fatalf("admin for an unverified account: %v", err)
		}
		if err := s.Activate(ctx, squat, "operator", true); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.AccountByID(ctx, squat); !a.Admin || !a.Verified || a.PasswordHash != "operator" {
			t.Fatalf("after Activate: %+v", a)
		}
		if err := s.SetAdmin(ctx, boss, false); err != nil {
			t.Fatalf("with two verified administrators: %v", err)
		}
	})
}

// A stranger's reset requests and wrong codes, from one client, do not
// stop the owner's reset from another; the owner is told once.
func TestStrangerCannotBlockReset(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "victim@example.com", "")
		notices := 0
		for range store.MaxCodesPerHour + 2 {
			notify, err := s.SetCodeFor(ctx, id, store.PurposeReset, "stranger", []byte("stranger's"), time.Hour)
			if err != nil && !errors.Is(err, store.ErrTooManyCodes) {
				t.Fatal(err)
			}
			if notify {
				notices++
			}
		}
		for range store.MaxCodeTriesPerHour + 2 {
			notify, err := s.ConsumeCodeFrom(ctx, id, store.PurposeReset, "stranger", []byte("wrong"))
			if !errors.Is(err, store.ErrCodeInvalid) {
				t.Fatalf("a wrong code: %v", err)
			}
			if notify {
				notices++
			}
		}
		if notices != 1 {
			t.Fatalf("the owner would be told %d times, want once", notices)
		}
		if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, "owner", []byte("owner's"), time.Hour); err != nil {
			t.Fatalf("the owner's request: %v", err)
		}
		if _, err := s.ConsumeCodeFrom(ctx, id, store.PurposeReset, "owner", []byte("owner's")); err != nil {
			t.Fatalf("the owner's code: %v", err)
		}
	})
}

// The account's limits over every client still bound guessing from many.
func TestCodeLimitsOverAllClients(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		sent := 0
		for i := range store.MaxAccountCodesPerHour + 3 {
			if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, fmt.Sprint("client ", i), []byte("c"), time.Hour); err == nil {
				sent++
			}
		}
		if sent != store.MaxAccountCodesPerHour {
			t.Fatalf("%d codes sent from many clients, want %d", sent, store.MaxAccountCodesPerHour)
		}
	})
}

// A plan an administrator sets is marked theirs (starter is the user's);
// a cancellation is kept until a payment renews the plan.
func TestPlanByAdminAndCancellation(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		get := func() *store.Account {
			a, err := s.AccountByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		capOf := 5
		if err := s.SetPlan(ctx, id, store.PlanEnterprise, nil, &capOf); err != nil {
			t.Fatal(err)
		}
		if a := get(); !a.PlanByAdmin {
			t.Fatal("enterprise set by an admin is not marked")
		}
		if err := s.SetPlan(ctx, id, store.PlanStarter, nil, nil); err != nil {
			t.Fatal(err)
		}
		if a := get(); a.PlanByAdmin {
			t.Fatal("starter is marked as set by an admin")
		}
		until := time.Now().Add(time.Hour)
		if _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "e1", Type: "paid", Email: "a@example.com", Change: &store.PlanChange{Plan: store.PlanPro, PaidUntil: &until}}); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelPlan(ctx, id); err != nil {
			t.Fatal(err)
		}
		if a := get(); !a.PlanCancelled || a.Plan != store.PlanPro || a.PlanByAdmin {
			t.Fatalf("after cancelling: %+v", a)
		}
		later := until.Add(30 * 24 * time.Hour)
		if _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "e2", Type: "paid", Email: "a@example.com", Change: &store.PlanChange{PaidUntil: &later}}); err != nil {
			t.Fatal(err)
		}
		if a := get(); a.PlanCancelled {
			t.Fatal("a renewal kept the cancellation")
		}
		if err := s.CancelPlan(ctx, id+100); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no account: %v", err)
		}
	})
}
