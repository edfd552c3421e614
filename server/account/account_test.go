package account_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/server/account"
	"secutil/store"
)

func TestCheckPlan(t *testing.T) {
	t.Parallel()
	capOf := func(n int) *int { return &n }
	for _, tc := range []struct {
		plan      string
		usageCap  *int
		paidUntil bool
		field     string // "" when the rules allow it
	}{
		{"starter", nil, false, ""},
		{"pro", nil, true, ""},
		{"enterprise", capOf(500), true, ""},
		{"gold", nil, false, "plan"},
		{"", nil, false, "plan"},
		{"Pro", nil, false, "plan"},
		{"pro", capOf(10), false, "usage_cap"},
		{"starter", capOf(10), false, "usage_cap"},
		{"enterprise", capOf(0), false, "usage_cap"},
		{"enterprise", capOf(-1), false, "usage_cap"},
		{"starter", nil, true, "paid_until"},
	} {
		err := account.CheckPlan(tc.plan, tc.usageCap, tc.paidUntil)
		var rule *account.RuleError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("CheckPlan(%q, %v, %v) = %v, want nil", tc.plan, tc.usageCap, tc.paidUntil, err)
		case tc.field != "" && (!errors.As(err, &rule) || rule.Field != tc.field):
			t.Errorf("CheckPlan(%q, %v, %v) = %v, want a refusal of %s", tc.plan, tc.usageCap, tc.paidUntil, err, tc.field)
		}
	}
}

func FuzzCheckPlan(f *testing.F) {
	f.Add("enterprise", 5, true, false)
	f.Add("pro", 0, true, true)
	f.Fuzz(func(t *testing.T, plan string, usageCap int, hasCap, paidUntil bool) {
		var c *int
		if hasCap {
			c = &usageCap
		}
		err := account.CheckPlan(plan, c, paidUntil)
		var rule *account.RuleError
		if err != nil && (!errors.As(err, &rule) || !slices.Contains([]string{"plan", "usage_cap", "paid_until"}, rule.Field)) {
			t.Fatalf("CheckPlan(%q, %v, %v) = %v: not a refusal of a known field", plan, c, paidUntil, err)
		}
		if err == nil && (!store.ValidPlan(plan) || (c != nil && (plan != store.PlanEnterprise || *c < 1))) {
			t.Fatalf("CheckPlan(%q, %v, %v) allowed a plan the rules refuse", plan, c, paidUntil)
		}
	})
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "account.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// lastEvents are the kind and detail of the n newest audit events, oldest first.
func lastEvents(t *testing.T, st *store.Store, n int) [][2]string {
	t.Helper()
	events, err := st.AuditEvents(context.Background(), n, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for _, e := range slices.Backward(events) {
		out = append(out, [2]string{e.Kind, e.Detail})
	}
	return out
}

// Every change is made in the store and recorded once, with the operator's
// name, through Record when it is given.
func TestOperatorChangesAndRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	var recorded []store.AuditEvent
	op := account.Operator{Store: st, By: "by the test", Record: func(ctx context.Context, e store.AuditEvent) error {
		recorded = append(recorded, e)
		return st.AddAudit(ctx, e)
	}}
	if _, err := op.Create(ctx, account.New{Email: "boss@example.com", PasswordHash: "x", Plan: store.PlanStarter, Admin: true}); err != nil {
		t.Fatal(err)
	}
	a, err := op.Create(ctx, account.New{Email: "ann@example.com", PasswordHash: "x", Plan: store.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	until := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	usageCap := 500
	if err := op.SetPlan(ctx, a, account.Plan{Name: store.PlanEnterprise, UsageCap: &usageCap, PaidUntil: &until}); err != nil {
		t.Fatal(err)
	}
	for _, act := range []account.Action{account.MakeAdmin, account.Disable, account.Enable, account.RemoveAdmin, account.ResetUsage} {
		if err := op.Apply(ctx, act, a); err != nil {
			t.Fatalf("%s: %v", act.Name, err)
		}
	}
	if err := op.SetPassword(ctx, a, "y", true); err != nil {
		t.Fatal(err)
	}
	got, err := st.AccountByID(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Plan != store.PlanEnterprise || got.UsageCap == nil || *got.UsageCap != 500 || got.Admin || got.Disabled || got.PasswordHash != "y" {
		t.Fatalf("account after the changes: %+v", got)
	}
	want := [][2]string{
		{store.AuditRegistered, "by the test"},
		{store.AuditPlanChanged, "pro -> enterprise, paid until 1 Jan 2030 00:00 UTC, by the test"},
		{store.AuditAdminGranted, "by the test"},
		{store.AuditAccountDisabled, "by the test"},
		{store.AuditAccountEnabled, "by the test"},
		{store.AuditAdminRevoked, "by the test"},
		{store.AuditUsageReset, "by the test"},
		{store.AuditPasswordSet, "by the test"},
	}
	if events := lastEvents(t, st, len(want)); !slices.Equal(events, want) {
		t.Fatalf("audit events:\n got %v\nwant %v", events, want)
	}
	if len(recorded) != 2+len(want) { // boss's registration and grant too
		t.Fatalf("Record saw %d events, want %d", len(recorded), 2+len(want))
	}
	if err := op.Apply(ctx, account.Delete, a); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AccountByID(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after Delete: %v", err)
	}
}

// A change the rules refuse touches neither the account nor the audit log.
func TestOperatorRefusesBrokenRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	op := account.Operator{Store: st, By: "by the test"}
	if _, err := op.Create(ctx, account.New{Email: "gold@example.com", PasswordHash: "x", Plan: "gold"}); err == nil {
		t.Fatal("created an account on the plan gold")
	}
	a, err := op.Create(ctx, account.New{Email: "ann@example.com", PasswordHash: "x", Plan: store.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	usageCap := 10
	var rule *account.RuleError
	if err := op.SetPlan(ctx, a, account.Plan{Name: store.PlanPro, UsageCap: &usageCap}); !errors.As(err, &rule) || rule.Field != "usage_cap" {
		t.Fatalf("a usage cap on pro: %v", err)
	}
	if events := lastEvents(t, st, 10); len(events) != 1 || events[0][0] != store.AuditRegistered {
		t.Fatalf("audit events after refusals: %v", events)
	}
}

// KeepingCap keeps the enterprise cap only on the enterprise plan, and
// never an expiry.
func TestKeepingCap(t *testing.T) {
	t.Parallel()
	usageCap := 500
	until := time.Now()
	a := &store.Account{Plan: store.PlanEnterprise, UsageCap: &usageCap, PaidUntil: &until}
	if p := account.KeepingCap(a, store.PlanEnterprise); p.UsageCap != &usageCap || p.PaidUntil != nil {
		t.Fatalf("KeepingCap(enterprise) = %+v", p)
	}
	if p := account.KeepingCap(a, store.PlanPro); p.UsageCap != nil || p.PaidUntil != nil {
		t.Fatalf("KeepingCap(pro) = %+v", p)
	}
}

// A paid_until that has passed is refused, by SetPlan (the admin page and
// secutil user set both call it): the account would fall to starter at
// once, without a word. One the account has already is kept, so a change
// of the cap alone still works on a plan that has run out.
func TestSetPlanRefusesAPastPaidUntil(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	st.SetClock(func() time.Time { return now })
	op := account.Operator{Store: st, By: "by the test"}
	a, err := op.Create(ctx, account.New{Email: "ann@example.com", PasswordHash: "x", Plan: store.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	for _, past := range []time.Time{now.Add(-time.Hour), now, now.AddDate(-1, 0, 0)} {
		err := op.SetPlan(ctx, a, account.Plan{Name: store.PlanPro, PaidUntil: &past})
		var rule *account.RuleError
		if !errors.As(err, &rule) || rule.Field != "paid_until" || !strings.Contains(rule.Problem, "in the past") ||
			!strings.Contains(rule.Problem, past.Format(account.AuditTime)) {
			t.Fatalf("paid until %s, now %s: %v", past, now, err)
		}
	}
	if events := lastEvents(t, st, 10); len(events) != 1 {
		t.Fatalf("the refusals were recorded: %v", events)
	}
	if got, err := st.AccountByID(ctx, a.ID); err != nil || got.PaidUntil != nil {
		t.Fatalf("after the refusals: %+v, %v", got, err)
	}

	soon := now.Add(time.Hour)
	usageCap := 50
	if err := op.SetPlan(ctx, a, account.Plan{Name: store.PlanEnterprise, UsageCap: &usageCap, PaidUntil: &soon}); err != nil {
		t.Fatalf("paid until an hour from now: %v", err)
	}
	if a, err = st.AccountByID(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	now = now.AddDate(0, 1, 0) // the plan has run out
	usageCap = 80
	if err := op.SetPlan(ctx, a, account.Plan{Name: store.PlanEnterprise, UsageCap: &usageCap, PaidUntil: a.PaidUntil}); err != nil {
		t.Fatalf("a new cap, keeping the paid_until that has passed: %v", err)
	}
}

// CheckPaidPlan takes the plans that are sold and names the field it
// refuses as the caller's request does.
func TestCheckPaidPlan(t *testing.T) {
	t.Parallel()
	for plan, sold := range map[string]bool{store.PlanPro: true, store.PlanEnterprise: true, store.PlanStarter: false, "gold": false, "": false} {
		err := account.CheckPaidPlan("data.plan", plan)
		var rule *account.RuleError
		switch {
		case sold && err != nil:
			t.Errorf("CheckPaidPlan(%q) = %v, want nil", plan, err)
		case !sold && (!errors.As(err, &rule) || rule.Error() != "data.plan must be pro or enterprise"):
			t.Errorf("CheckPaidPlan(%q) = %v, want the refusal of data.plan", plan, err)
		}
	}
}

// SetByAdmin and LeavingNeedsConfirmation ask of the plan in force: a
// paid plan that ran out is starter, set by nobody and nothing to leave.
func TestWhoChangesThePlanInForce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	ahead, gone := now.Add(time.Hour), now.Add(-time.Hour)
	for _, tc := range []struct {
		name               string
		a                  store.Account
		setByAdmin, askYes bool // askYes: a move to starter needs confirmation
	}{
		{"starter", store.Account{Plan: store.PlanStarter}, false, false},
		{"bought pro", store.Account{Plan: store.PlanPro, PaidUntil: &ahead}, false, true},
		{"bought pro, cancelled", store.Account{Plan: store.PlanPro, PaidUntil: &ahead, PlanCancelled: true}, false, false},
		{"bought pro, run out", store.Account{Plan: store.PlanPro, PaidUntil: &gone}, false, false},
		{"admin's enterprise", store.Account{Plan: store.PlanEnterprise, PlanByAdmin: true}, true, false},
		{"admin's pro, run out", store.Account{Plan: store.PlanPro, PaidUntil: &gone, PlanByAdmin: true}, false, false},
	} {
		if got := account.SetByAdmin(&tc.a, now); got != tc.setByAdmin {
			t.Errorf("%s: SetByAdmin = %v", tc.name, got)
		}
		if got := account.LeavingNeedsConfirmation(&tc.a, store.PlanStarter, now); got != tc.askYes {
			t.Errorf("%s: LeavingNeedsConfirmation(starter) = %v", tc.name, got)
		}
		if account.LeavingNeedsConfirmation(&tc.a, store.PlanPro, now) {
			t.Errorf("%s: a move to pro needs confirmation", tc.name)
		}
	}
}

// Plan.Unchanged: only the same plan, cap and paid_until (to the second),
// on a plan an administrator set and nobody cancelled, is no change.
func TestPlanUnchanged(t *testing.T) {
	t.Parallel()
	capOf := func(n int) *int { return &n }
	until := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	sameSecond, later := until.Add(time.Millisecond), until.Add(time.Second)
	a := &store.Account{Plan: store.PlanEnterprise, UsageCap: capOf(500), PaidUntil: &until, PlanByAdmin: true}
	for _, tc := range []struct {
		p    account.Plan
		same bool
	}{
		{account.Plan{Name: store.PlanEnterprise, UsageCap: capOf(500), PaidUntil: &sameSecond}, true},
		{account.Plan{Name: store.PlanEnterprise, UsageCap: capOf(500), PaidUntil: &later}, false},
		{account.Plan{Name: store.PlanEnterprise, UsageCap: capOf(500)}, false},
		{account.Plan{Name: store.PlanEnterprise, UsageCap: capOf(501), PaidUntil: &until}, false},
		{account.Plan{Name: store.PlanEnterprise, PaidUntil: &until}, false},
		{account.Plan{Name: store.PlanPro, PaidUntil: &until}, false},
	} {
		if got := tc.p.Unchanged(a); got != tc.same {
			t.Errorf("Plan{%s, cap %v, until %v}.Unchanged = %v", tc.p.Name, tc.p.UsageCap, tc.p.PaidUntil, got)
		}
	}
	cancelled := *a
	cancelled.PlanCancelled = true
	userChose := *a
	userChose.PlanByAdmin = false
	same := account.Plan{Name: a.Plan, UsageCap: a.UsageCap, PaidUntil: a.PaidUntil}
	if same.Unchanged(&cancelled) || same.Unchanged(&userChose) {
		t.Error("setting the same plan again over a cancellation, or over the user's own choice, is no change")
	}
	starter := &store.Account{Plan: store.PlanStarter}
	if !(account.Plan{Name: store.PlanStarter}).Unchanged(starter) {
		t.Error("starter set on starter is a change")
	}
}
