package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

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

func TestActiveAdminsCountsVerifiedEnabledAdmins(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		for _, a := range []store.NewAccount{
			{Email: "boss@example.com", Admin: true, Verified: true},
			{Email: "off@example.com", Admin: true, Verified: true},
			{Email: "pending@example.com", Admin: true},
			{Email: "user@example.com", Verified: true},
		} {
			a.PasswordHash, a.Plan = "x", store.PlanStarter
			id, err := s.CreateAccount(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if a.Email == "off@example.com" {
				if err := s.SetDisabled(ctx, id, true); err != nil {
					t.Fatal(err)
				}
			}
		}
		if n, err := s.ActiveAdmins(ctx); err != nil || n != 1 {
			t.Fatalf("ActiveAdmins = %d, %v; want 1 (the disabled and the unverified one do not count)", n, err)
		}
	})
}
