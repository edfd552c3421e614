package cmd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

// user add -admin gives the plan the setup link gives, pro; a plan given
// is kept.
func TestUserAddAdminGetsPro(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "admin.db"))
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "boss@example.com", "-admin")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "ann@example.com")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "eve@example.com", "-admin", "-plan", "starter")
	for email, plan := range map[string]string{"boss@example.com": store.PlanPro, "ann@example.com": store.PlanStarter, "eve@example.com": store.PlanStarter} {
		if a := mustStoredAccount(t, db, email); a.Plan != plan {
			t.Errorf("%s: plan %s, want %s", email, a.Plan, plan)
		}
	}
}

// Every user command that names an account takes its email either way,
// as the argument or as -email (user add took only -email, the others
// only the argument); two different emails are a usage error.
func TestUserCommandsTakeTheEmailEitherWay(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "either.db"))
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "ann@example.com")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-plan", "pro", "bob@example.com")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "eve@example.com")
	if a := mustStoredAccount(t, db, "bob@example.com"); a.Plan != store.PlanPro {
		t.Fatalf("user add -plan pro EMAIL: %+v", a)
	}
	mustCLI(t, db, "", "user", "set", "-email", "ann@example.com", "-plan", "pro")
	mustCLI(t, db, "", "user", "set", "-plan", "enterprise", "eve@example.com", "-admin=true")
	if a := mustStoredAccount(t, db, "ann@example.com"); a.Plan != store.PlanPro {
		t.Fatalf("user set -email: %+v", a)
	}
	if a := mustStoredAccount(t, db, "eve@example.com"); a.Plan != store.PlanEnterprise || !a.Admin {
		t.Fatalf("user set with flags on both sides of the email: %+v", a)
	}
	mustCLI(t, db, "amber glacier pocket violin\n", "user", "passwd", "-email", "ann@example.com")
	mustCLI(t, db, "", "user", "delete", "-yes", "-email", "bob@example.com")
	if _, err := storedAccount(t, db, "bob@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("user delete -email: %v", err)
	}
	for _, args := range [][]string{
		{"user", "set", "ann@example.com", "-email", "eve@example.com", "-plan", "starter"},
		{"user", "add", "zoe@example.com", "-email", "max@example.com"},
		{"user", "add", "zoe@example.com", "max@example.com"},
		{"user", "add"},
		{"user", "delete", "-yes"},
	} {
		_, _, err := cli(t, db, cmdtest.Password+"\n", nil, args...)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("secutil %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	if a := mustStoredAccount(t, db, "ann@example.com"); a.Plan != store.PlanPro {
		t.Fatalf("a refused user set changed the account: %+v", a)
	}
}

// user add without a password on standard input is a usage error, after
// the database was found.
func TestUserAddWithoutPassword(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "nopass.db"))
	if _, _, err := cli(t, db, "", nil, "user", "add", "ann@example.com"); !errors.Is(err, ErrUsage) {
		t.Fatalf("user add with nothing on standard input: %v, want a usage error", err)
	}
}
