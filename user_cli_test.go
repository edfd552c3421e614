package main

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

func TestCommandName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args0, exe, want string }{
		{"/tmp/go-build123/b001/exe/secutil", "/tmp/go-build123/b001/exe/secutil", "go run ."},
		{"./secutil", "/home/op/secutil/secutil", "./secutil"},
		{"secutil", "/usr/local/bin/secutil", "secutil"},
		{"/opt/my dir/secutil", "/opt/my dir/secutil", "'/opt/my dir/secutil'"},
		{"/tmp/go-build9/b001/secutil.test", "/tmp/go-build9/b001/secutil.test", "secutil"},
	} {
		if got := commandName(tc.args0, tc.exe); got != tc.want {
			t.Errorf("commandName(%q, %q) = %q, want %q", tc.args0, tc.exe, got, tc.want)
		}
	}
}

// user add -admin gives the plan the setup link gives, pro; a plan given
// is kept.
func TestUserAddAdminGetsPro(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "admin.db")
	mustCLI(t, db, e2ePassword+"\n", "user", "add", "-email", "boss@example.com", "-admin")
	mustCLI(t, db, e2ePassword+"\n", "user", "add", "-email", "ann@example.com")
	mustCLI(t, db, e2ePassword+"\n", "user", "add", "-email", "eve@example.com", "-admin", "-plan", "starter")
	for email, plan := range map[string]string{"boss@example.com": store.PlanPro, "ann@example.com": store.PlanStarter, "eve@example.com": store.PlanStarter} {
		if a := mustStoredAccount(t, db, email); a.Plan != plan {
			t.Errorf("%s: plan %s, want %s", email, a.Plan, plan)
		}
	}
}

// user set sets an enterprise cap and paid_until, and user list shows
// them.
func TestUserSetCapAndPaidUntil(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cap.db")
	mustCLI(t, db, e2ePassword+"\n", "user", "add", "-email", "ann@example.com")
	out := mustCLI(t, db, "", "user", "set", "ann@example.com", "-plan", "enterprise", "-usage-cap", "5", "-paid-until", "2030-01-31")
	if !strings.Contains(out, "cap 5, paid until 2030-01-31") {
		t.Fatalf("user set says %q", out)
	}
	a := mustStoredAccount(t, db, "ann@example.com")
	if a.Plan != store.PlanEnterprise || a.UsageCap == nil || *a.UsageCap != 5 || a.PaidUntil == nil ||
		!a.PaidUntil.Equal(time.Date(2030, 1, 31, 23, 59, 59, 0, time.UTC)) || !a.PlanByAdmin {
		t.Fatalf("after user set: %+v", a)
	}
	list := mustCLI(t, db, "", "user", "list")
	if !strings.Contains(list, "CAP") || !strings.Contains(list, "PAID UNTIL") || !strings.Contains(list, "2030-01-31") {
		t.Fatalf("user list:\n%s", list)
	}
	// -paid-until alone keeps the plan and its cap; -usage-cap 0 removes it.
	mustCLI(t, db, "", "user", "set", "ann@example.com", "-paid-until", "never", "-usage-cap", "0")
	if a := mustStoredAccount(t, db, "ann@example.com"); a.Plan != store.PlanEnterprise || a.UsageCap != nil || a.PaidUntil != nil {
		t.Fatalf("after -paid-until never -usage-cap 0: %+v", a)
	}
	for _, args := range [][]string{
		{"-plan", "pro", "-usage-cap", "5"},
		{"-paid-until", "soon"},
		{"-usage-cap", "-3"},
	} {
		if _, _, err := cli(t, db, "", nil, append([]string{"user", "set", "ann@example.com"}, args...)...); !errors.Is(err, errUsage) {
			t.Errorf("user set %v: %v, want a usage error", args, err)
		}
	}
}

// A pending registration's password was chosen by whoever registered the
// email: user add takes it over, and user set verifies it or makes it an
// administrator only with a new password.
func TestUserCommandsAndPendingRegistrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "pending.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"boss@example.com", "ann@example.com"} {
		if _, err := st.RegisterPending(ctx, store.Registration{Account: store.NewAccount{Email: email, PasswordHash: "attacker's"},
			Code: func(int64) []byte { return []byte("code") }, CodeTTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	mustCLI(t, db, e2ePassword+"\n", "user", "add", "-email", "boss@example.com", "-admin")
	if a := mustStoredAccount(t, db, "boss@example.com"); !a.Admin || !a.Verified || a.PasswordHash == "attacker's" || a.Plan != store.PlanPro {
		t.Fatalf("user add over a pending registration: %+v", a)
	}

	for _, args := range [][]string{{"-admin=true"}, {"-verified=true"}} {
		_, _, err := cli(t, db, "", nil, append([]string{"user", "set", "ann@example.com"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "-password -") {
			t.Errorf("user set %v on an unverified account: %v, want a refusal naming -password -", args, err)
		}
	}
	if a := mustStoredAccount(t, db, "ann@example.com"); a.Admin || a.Verified {
		t.Fatalf("after the refusals: %+v", a)
	}
	mustCLI(t, db, e2ePassword+"\n", "user", "set", "ann@example.com", "-admin=true", "-password", "-")
	if a := mustStoredAccount(t, db, "ann@example.com"); !a.Admin || !a.Verified || a.PasswordHash == "attacker's" {
		t.Fatalf("after user set -admin=true -password -: %+v", a)
	}
}

// Every command's -h: no "Flags:" heading without flags under it, and no
// "(created when missing)" for a command that refuses a missing database.
func TestCommandHelp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	refuseMissing := map[string]bool{"user list": true, "user set": true, "user passwd": true, "user delete": true, "backup": true}
	for _, cmd := range commands() {
		_, help, err := cli(t, db, "", nil, append(strings.Fields(cmd.name), "-h")...)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s -h: %v", cmd.name, err)
		}
		if strings.HasSuffix(strings.TrimSpace(help), "Flags:") {
			t.Errorf("secutil %s -h ends with an empty Flags: section:\n%s", cmd.name, help)
		}
		if refuseMissing[cmd.name] && strings.Contains(help, "created when missing") {
			t.Errorf("secutil %s -h says the database is created when missing; the command refuses one:\n%s", cmd.name, help)
		}
	}
}
