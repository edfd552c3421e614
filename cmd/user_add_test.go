package cmd

import (
	"path/filepath"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

// user add -admin gives the plan the setup link gives, pro; a plan given
// is kept.
func TestUserAddAdminGetsPro(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "admin.db")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "boss@example.com", "-admin")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "ann@example.com")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "eve@example.com", "-admin", "-plan", "starter")
	for email, plan := range map[string]string{"boss@example.com": store.PlanPro, "ann@example.com": store.PlanStarter, "eve@example.com": store.PlanStarter} {
		if a := mustStoredAccount(t, db, email); a.Plan != plan {
			t.Errorf("%s: plan %s, want %s", email, a.Plan, plan)
		}
	}
}
