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
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "cap.db"))
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

// A -paid-until before now is refused, naming the flag, and changes
// nothing: the paid plan would end before it began, and the account show
// starter at once.
func TestUserSetRefusesPaidUntilInThePast(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "past.db"))
	mustCLI(t, db, cmdtest.Password+"\n", "user", "add", "ann@example.com", "-plan", "pro")
	yesterday := time.Now().UTC().AddDate(0, 0, -1)
	for _, when := range []string{"2020-01-31", yesterday.Format(time.DateOnly), yesterday.Format(time.RFC3339)} {
		_, _, err := cli(t, db, "", nil, "user", "set", "ann@example.com", "-plan", "enterprise", "-paid-until", when)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-paid-until "+when+" is in the past") {
			t.Errorf("user set -paid-until %s: %v, want a usage error saying it is in the past", when, err)
		}
	}
	if a := mustStoredAccount(t, db, "ann@example.com"); a.Plan != store.PlanPro || a.PaidUntil != nil {
		t.Fatalf("a refused -paid-until changed the account: %+v", a)
	}
	// Today, as a date, runs to its end: not in the past.
	mustCLI(t, db, "", "user", "set", "ann@example.com", "-paid-until", time.Now().UTC().Format(time.DateOnly))
}

func TestParsePaidUntil(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	endOfToday := time.Date(2027, 3, 10, 23, 59, 59, 0, time.UTC)
	later := time.Date(2027, 3, 10, 12, 0, 1, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want *time.Time
		ok   bool
	}{
		{"never", nil, true},
		{"2027-03-10", &endOfToday, true},
		{"2027-03-10T12:00:01Z", &later, true},
		{"2027-03-09", nil, false},
		{"2027-03-10T11:59:59Z", nil, false},
		{"soon", nil, false},
		{"", nil, false},
	} {
		got, err := parsePaidUntil(c.in, now)
		if (err == nil) != c.ok || (c.want == nil) != (got == nil) || (got != nil && !got.Equal(*c.want)) {
			t.Errorf("parsePaidUntil(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrUsage) {
			t.Errorf("parsePaidUntil(%q): %v is not a usage error", c.in, err)
		}
	}
}
