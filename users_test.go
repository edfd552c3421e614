package main

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secutil/store"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
)

// cli runs one command line in-process on the database db and returns its
// standard output and error.
func cli(t *testing.T, db, stdin string, vars map[string]string, args ...string) (string, string, error) {
	t.Helper()
	all := map[string]string{"SECUTIL_DB": db}
	for k, v := range vars {
		all[k] = v
	}
	var stdout, stderr strings.Builder
	err := run(context.Background(), append([]string{"secutil"}, args...), env(all), strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// mustCLI is cli that fails the test when the command fails.
func mustCLI(t *testing.T, db, stdin string, args ...string) string {
	t.Helper()
	out, errOut, err := cli(t, db, stdin, nil, args...)
	if err != nil {
		t.Fatalf("secutil %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// storedAccount reads an account straight from the database.
func storedAccount(t *testing.T, db, email string) (*store.Account, error) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return st.AccountByEmail(context.Background(), email)
}

func mustStoredAccount(t *testing.T, db, email string) *store.Account {
	t.Helper()
	a, err := storedAccount(t, db, email)
	if err != nil {
		t.Fatalf("account %s: %v", email, err)
	}
	return a
}

func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	for _, cmd := range commands() {
		for _, h := range []string{"-h", "--help"} {
			args := append(strings.Fields(cmd.name), h)
			if _, _, err := cli(t, db, "", nil, args...); err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("secutil %s: %v, want help (exit status 0)", strings.Join(args, " "), err)
			}
		}
	}
}

func TestNearestCommand(t *testing.T) {
	t.Parallel()
	for typed, want := range map[string]string{
		"sevre": "serve", "serv": "serve", "backpu": "backup", "vesrion": "version", "import": "import-wordlist",
		"lst": "user list", "add": "user add", "user lst": "user list", "user delet": "user delete", "passwd": "user passwd",
		"usr": "user", "uesr": "user",
		"frobnicate": "", "x": "", "he": "",
	} {
		if got := nearestCommand(typed); got != want {
			t.Errorf("nearestCommand(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestEnvironmentSetsOnlyServeFlags(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "env.db")
	_, errOut, err := cli(t, db, e2ePassword+"\n", map[string]string{"SECUTIL_ADMIN": "true", "SECUTIL_PLAN": "pro"},
		"user", "add", "-email", "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if a := mustStoredAccount(t, db, "ann@example.com"); a.Admin || a.Plan != store.PlanStarter {
		t.Fatalf("SECUTIL_ADMIN and SECUTIL_PLAN reached user add: admin %v, plan %s", a.Admin, a.Plan)
	}
	for _, v := range []string{"ignoring SECUTIL_ADMIN", "ignoring SECUTIL_PLAN"} {
		if !strings.Contains(errOut, v) {
			t.Errorf("no warning %q in %q", v, errOut)
		}
	}
	// SECUTIL_DB is serve's too, so it chose the database above.
	if strings.Contains(errOut, "SECUTIL_DB") {
		t.Errorf("warned about SECUTIL_DB: %q", errOut)
	}
}

func TestUserCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "users.db")
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
		mustCLI(t, db, "", "user", "add", "-email", "boss@example.com", "-password", e2ePassword, "-plan", "pro", "-admin")
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
		_, _, err := cli(t, db, breachedPassphrase+"\n", nil, "user", "add", "-email", "breached@example.com", "-breach-file", breachFixturePath)
		if err == nil || !strings.Contains(err.Error(), "breached passwords (seen 12 times)") {
			t.Errorf("a password of the breach file: %v", err)
		}
		_, _, err = cli(t, db, breachedPassphrase+"\n", map[string]string{"SECUTIL_BREACH_FILE": breachFixturePath}, "user", "passwd", "ann@example.com")
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

func TestUserPasswdNeverTakesThePasswordAsAnArgument(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	mustCLI(t, db, "", "user", "add", "-email", "ann@example.com", "-password", e2ePassword)
	_, _, err := cli(t, db, "", nil, "user", "passwd", "ann@example.com", "-password", "amber glacier pocket violin")
	if !errors.Is(err, errUsage) {
		t.Fatalf("user passwd -password: %v, want a usage error", err)
	}
	if _, _, err := cli(t, db, "", nil, "user", "passwd", "ann@example.com"); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "no password") {
		t.Fatalf("user passwd with nothing on standard input: %v", err)
	}
}
