package cmd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

// user set sets an enterprise cap and paid_until, and user list shows
// them.
func TestUserSetCapAndPaidUntil(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cap.db")
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "-email", "ann@example.com")
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
		if _, _, err := cli(t, db, "", nil, append([]string{"user", "set", "ann@example.com"}, args...)...); !errors.Is(err, ErrUsage) {
			t.Errorf("user set %v: %v, want a usage error", args, err)
		}
	}
}
