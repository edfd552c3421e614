package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

func TestEnvironmentSetsOnlyServeFlags(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "env.db")
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
