package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"secutil/server/account"
)

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
	db := filepath.Join(t.TempDir(), "rules.db")
	cli := func(args ...string) error {
		return run(context.Background(), append([]string{"secutil"}, args...), env(map[string]string{"SECUTIL_DB": db}),
			strings.NewReader(e2ePassword+"\n"), io.Discard, io.Discard)
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
	status, m := requestJSON(t, http.MethodPost, base+"/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "gold"},
		"Authorization", "Bearer "+adminToken)
	wantRoute := `field "plan" ` + rule.Problem
	if message, _ := m["error"].(string); status != http.StatusBadRequest || message != wantRoute {
		t.Errorf("POST /boss/accounts/set_plan {\"plan\": \"gold\"}: %d %v, want 400 with the error %q", status, m, wantRoute)
	}
}
