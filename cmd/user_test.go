package cmd

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/server/account"
	"secutil/store"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
)

func TestUserCommands(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "users.db"))
	const annPassword = "quiet harbour lantern orchid"

	t.Run("add trims the email and reads the password from standard input", func(t *testing.T) {
		out := mustCLI(t, db, annPassword+"\n", "user", "add", "-email", "  ann@example.com ", "-password", "-")
		if !strings.Contains(out, "for ann@example.com ") || strings.Contains(out, annPassword) {
			t.Fatalf("output %q", out)
		}
		a := mustStoredAccount(t, db, "ann@example.com")
		if ok, _ := passhash.Verify(annPassword, a.PasswordHash); !ok || !a.Verified || a.Admin {
			t.Fatalf("account %+v", a)
		}
		mustCLI(t, db, "", "user", "add", "-email", "boss@example.com", "-password", cmdtest.Password, "-plan", "pro", "-admin")
	})

	t.Run("add, passwd and the server refuse the same passwords", func(t *testing.T) {
		for _, weak := range []string{"passwordpassword", "123456789012345", "qwertyuiopasdfg", "Password1234567", "p@ssw0rdp@ssw0rd"} {
			_, _, err := cli(t, db, weak+"\n", nil, "user", "add", "-email", "weak@example.com")
			var refusal *passpolicy.Refusal
			if !errors.As(err, &refusal) || !strings.Contains(refusal.Reason, "too easy to guess") {
				t.Errorf("user add with %q: %v", weak, err)
			}
			if _, _, err := cli(t, db, weak+"\n", nil, "user", "passwd", "ann@example.com"); !errors.As(err, &refusal) {
				t.Errorf("user passwd with %q: %v", weak, err)
			}
		}
		_, _, err := cli(t, db, cmdtest.BreachedPassphrase+"\n", nil, "user", "add", "-email", "breached@example.com", "-breach-file", breachFixturePath)
		if err == nil || !strings.Contains(err.Error(), "breached passwords (seen 12 times)") {
			t.Errorf("a password of the breach file: %v", err)
		}
		_, _, err = cli(t, db, cmdtest.BreachedPassphrase+"\n", map[string]string{"SECUTIL_BREACH_FILE": breachFixturePath}, "user", "passwd", "ann@example.com")
		if err == nil || !strings.Contains(err.Error(), "breached passwords") {
			t.Errorf("SECUTIL_BREACH_FILE, serve's setting, did not reach user passwd: %v", err)
		}
		if _, err := storedAccount(t, db, "weak@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a refused password created an account: %v", err)
		}
	})

	t.Run("list", func(t *testing.T) {
		out := mustCLI(t, db, "", "user", "list")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 {
			t.Fatalf("user list:\n%s", out)
		}
		if got, want := strings.Fields(lines[0]), []string{"ID", "EMAIL", "PLAN", "ADMIN", "VERIFIED", "DISABLED", "USAGE", "THIS", "MONTH", "CREATED", "CAP", "PAID", "UNTIL"}; !slices.Equal(got, want) {
			t.Errorf("header %q", lines[0])
		}
		ann, boss := strings.Fields(lines[1]), strings.Fields(lines[2])
		if !slices.Equal(ann[:9], []string{"1", "ann@example.com", "starter", "no", "yes", "no", "0", "of", "100"}) ||
			!slices.Equal(boss[:7], []string{"2", "boss@example.com", "pro", "yes", "yes", "no", "0"}) {
			t.Errorf("rows:\n%s", out)
		}
	})

	t.Run("set, with the email before or after the flags", func(t *testing.T) {
		mustCLI(t, db, "", "user", "set", "ann@example.com", "-plan", "enterprise", "-admin=true")
		if a := mustStoredAccount(t, db, "ann@example.com"); a.Plan != store.PlanEnterprise || !a.Admin {
			t.Fatalf("after set: %+v", a)
		}
		mustCLI(t, db, "", "user", "set", "-admin=false", "-disabled=true", "boss@example.com")
		if a := mustStoredAccount(t, db, "boss@example.com"); a.Admin || !a.Disabled {
			t.Fatalf("after set: %+v", a)
		}
		_, _, err := cli(t, db, "", nil, "user", "set", "ann@example.com", "-admin=false")
		if !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("removing the last admin: %v", err)
		}
		if _, _, err := cli(t, db, "", nil, "user", "set", "nobody@example.com", "-verified=true"); err == nil || !strings.Contains(err.Error(), "no account has the email nobody@example.com") {
			t.Fatalf("unknown email: %v", err)
		}
	})

	t.Run("passwd", func(t *testing.T) {
		const fresh = "amber glacier pocket violin"
		out := mustCLI(t, db, fresh+"\n", "user", "passwd", "ann@example.com")
		if strings.Contains(out, fresh) {
			t.Fatal("user passwd printed the password")
		}
		if ok, _ := passhash.Verify(fresh, mustStoredAccount(t, db, "ann@example.com").PasswordHash); !ok {
			t.Fatal("the new password does not verify")
		}
	})

	t.Run("delete asks unless -yes", func(t *testing.T) {
		mustCLI(t, db, "", "user", "set", "boss@example.com", "-disabled=false", "-admin=true")
		for _, answer := range []string{"", "n\n", "no\n"} {
			_, errOut, err := cli(t, db, answer, nil, "user", "delete", "ann@example.com")
			if err == nil || !strings.Contains(errOut, "Delete ann@example.com") {
				t.Fatalf("answer %q: %v, asked %q", answer, err, errOut)
			}
		}
		mustStoredAccount(t, db, "ann@example.com")
		mustCLI(t, db, "y\n", "user", "delete", "ann@example.com")
		if _, err := storedAccount(t, db, "ann@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("after delete: %v", err)
		}
		_, _, err := cli(t, db, "", nil, "user", "delete", "-yes", "boss@example.com")
		if !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("deleting the last admin: %v", err)
		}
	})

	t.Run("every change is audit-logged", func(t *testing.T) {
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		events, err := st.AuditEvents(context.Background(), 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			if e.Email == "ann@example.com" && strings.HasSuffix(e.Detail, byCommandLine) {
				got = append(got, e.Kind)
			}
		}
		want := []string{store.AuditAccountDeleted, store.AuditPasswordSet, store.AuditAdminGranted, store.AuditPlanChanged, store.AuditRegistered}
		if !slices.Equal(got, want) {
			t.Fatalf("ann's audit events, newest first: %v, want %v", got, want)
		}
	})
}

// TestCLIAndAdminRouteShareThePlanRules: secutil user add and user set,
// and POST /boss/accounts/set_plan, refuse the same plan with the same
// words, the account rules' (package account); only the name of the
// field differs, a flag on the command line and a JSON field on the route.
func TestCLIAndAdminRouteShareThePlanRules(t *testing.T) {
	t.Parallel()
	var rule *account.RuleError
	if !errors.As(account.CheckPlan("gold", nil, false), &rule) {
		t.Fatal("the account rules accept the plan gold")
	}
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "rules.db"))
	cli := func(args ...string) error {
		return run(context.Background(), append([]string{"secutil"}, args...), env(map[string]string{"SECUTIL_DB": db}),
			strings.NewReader(cmdtest.Password+"\n"), io.Discard, io.Discard)
	}
	if err := cli("user", "add", "-email", "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	wantCLI := "-plan " + rule.Problem
	for _, args := range [][]string{
		{"user", "add", "-email", "bob@example.com", "-plan", "gold"},
		{"user", "set", "ann@example.com", "-plan", "gold"},
	} {
		if err := cli(args...); err == nil || !strings.HasSuffix(err.Error(), wantCLI) {
			t.Errorf("secutil %s: %v, want an error ending %q", strings.Join(args, " "), err, wantCLI)
		}
	}

	const adminToken = "rules-test-admin-token-0123456789"
	base, _, _ := serveDB(t, db, map[string]string{"SECUTIL_ADMIN_TOKEN": adminToken})
	status, m := cmdtest.RequestJSON(t, http.MethodPost, base+"/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "gold"},
		"Authorization", "Bearer "+adminToken)
	wantRoute := `field "plan" ` + rule.Problem
	if message, _ := m["error"].(string); status != http.StatusBadRequest || message != wantRoute {
		t.Errorf("POST /boss/accounts/set_plan {\"plan\": \"gold\"}: %d %v, want 400 with the error %q", status, m, wantRoute)
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

	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "boss@example.com", "-admin")
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
	mustCLI(t, db, cmdtest.Password+"\n", "user", "set", "ann@example.com", "-admin=true", "-password", "-")
	if a := mustStoredAccount(t, db, "ann@example.com"); !a.Admin || !a.Verified || a.PasswordHash == "attacker's" {
		t.Fatalf("after user set -admin=true -password -: %+v", a)
	}
}
