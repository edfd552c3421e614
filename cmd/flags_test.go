package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

func TestEnvironmentSetsOnlyServeFlags(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "env.db"))
	_, errOut, err := cli(t, db, cmdtest.Password+"\n", map[string]string{"SECUTIL_ADMIN": "true", "SECUTIL_PLAN": "pro"},
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

// A mistyped flag is a usage error that names the command's flag nearest
// to it (tools/closest); one near none of them gets no guess.
func TestMistypedFlagGetsDidYouMean(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	for _, c := range []struct {
		args []string
		want string // "" for no suggestion
	}{
		{[]string{"user", "add", "-dbb", db, "ann@example.com"}, "did you mean -db?"},
		{[]string{"user", "add", "-mail", "ann@example.com"}, "did you mean -email?"},
		{[]string{"user", "set", "ann@example.com", "-paid-untill", "never"}, "did you mean -paid-until?"},
		{[]string{"user", "set", "-pln", "pro", "ann@example.com"}, "did you mean -plan?"},
		{[]string{"serve", "-adr", "127.0.0.1:0"}, "did you mean -addr?"},
		{[]string{"serve", "--registraton", "open"}, "did you mean -registration?"},
		{[]string{"-hash-bd", "x.db"}, "did you mean -hash-db?"},
		{[]string{"backup", "-bd", db, "copy.db"}, "did you mean -db?"},
		{[]string{"import-wordlist", "-algorithm", "md5", "-"}, "did you mean -algorithms?"},
		{[]string{"migrate-store", "-form", db, "-to", db + "2"}, "did you mean -from?"},
		{[]string{"serve", "-frobnicate"}, ""},
	} {
		_, _, err := cli(t, db, "", nil, c.args...)
		wantUsageHint(t, c.args, err, "flag provided but not defined", c.want)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a mistyped flag created the database")
	}
}
