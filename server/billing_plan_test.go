package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

// TestPlanSetByAdminStays is the case: an enterprise account an
// administrator capped at 5 cannot switch itself to starter (100 calls),
// nor to another paid plan; the dashboard offers no switch and says whom
// to ask.
func TestPlanSetByAdminStays(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken, withBilling)
	e.account("capped@example.com", store.PlanStarter)
	e.post("/boss/accounts/set_plan", map[string]any{"email": "capped@example.com", "plan": "enterprise", "usage_cap": 5},
		"Authorization", "Bearer "+adminToken).want(http.StatusOK)
	e.createProduct(store.PlanPro, 900)
	session := e.login("capped@example.com")
	for _, body := range []map[string]any{{"plan": "starter"}, {"plan": "starter", "confirm": true}, {"plan": "pro"}} {
		msg := e.post("/switch_tier", body, "Cookie", session).wantError(http.StatusForbidden, "forbidden")["error"].(string)
		if !strings.Contains(msg, "ask an administrator") {
			t.Fatalf("%v: %q says nobody to ask", body, msg)
		}
	}
	if a := e.accountOf("capped@example.com"); a.Plan != store.PlanEnterprise || a.UsageCap == nil || *a.UsageCap != 5 {
		t.Fatalf("after the refusals: %+v", a)
	}
	cookie := &http.Cookie{Name: "auth_session", Value: session}
	e.browse("POST", "/switch_tier", url.Values{"plan": {"starter"}, "confirm": {"true"}}, cookie).want(http.StatusForbidden).
		has(`<div class="alert error" role="alert">An administrator set this account&#39;s plan`)
	page := string(e.browse("GET", "/dashboard", nil, cookie).want(200).body)
	if strings.Contains(page, "Switch to starter") || strings.Contains(page, "Upgrade to") {
		t.Fatal("the dashboard offers to switch a plan an administrator set")
	}
	if !strings.Contains(page, "An administrator set your plan") {
		t.Fatal("the dashboard does not say whom to ask")
	}
}

// TestLeavingAPaidPlan: leaving a plan the user chose asks for
// confirmation (a step of its own on the dashboard, "confirm": true in
// JSON); a bought plan stays until paid_until.
func TestLeavingAPaidPlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("buyer@example.com", store.PlanStarter)
	until := time.Now().Add(20 * 24 * time.Hour).UTC().Truncate(time.Second)
	e.webhook(event("evt_buy", "subscription.activated", map[string]any{"email": "buyer@example.com", "plan": "pro", "paid_until": until.Format(time.RFC3339)})).want(http.StatusOK)
	session := e.login("buyer@example.com")
	cookie := &http.Cookie{Name: "auth_session", Value: session}

	msg := e.post("/switch_tier", map[string]any{"plan": "starter"}, "Cookie", session).wantError(http.StatusBadRequest, "missing_field")["error"].(string)
	if !strings.Contains(msg, `"confirm": true`) || !strings.Contains(msg, until.Format("2 Jan 2006")) {
		t.Fatalf("the refusal %q does not say how to confirm and what it does", msg)
	}
	page := e.browse("GET", "/dashboard", nil, cookie).want(200)
	page.has(`href="/dashboard?leave=starter#confirm-plan"`)
	if strings.Contains(string(page.body), `id="confirm-plan"`) {
		t.Fatal("the confirmation shows before it is asked for")
	}
	e.browse("GET", "/dashboard?leave=starter", nil, cookie).want(200).
		has(`id="confirm-plan"`).has(`name="confirm" value="true"`).has("stays until " + until.Format("2 Jan 2006"))

	// A browser's post without confirm (a page from before) goes to the step.
	if got := e.browse("POST", "/switch_tier", url.Values{"plan": {"starter"}}, cookie).want(303).location(); got != "/dashboard?leave=starter#confirm-plan" {
		t.Fatalf("an unconfirmed browser post goes to %s", got)
	}
	res := e.post("/switch_tier", map[string]any{"plan": "starter", "confirm": true}, "Cookie", session).want(http.StatusOK).json()
	if res["status"] != "cancelled" || res["plan"] != "pro" || res["paid_until"] != until.Format(time.RFC3339) {
		t.Fatalf("leaving pro: %v", res)
	}
	if a := e.accountOf("buyer@example.com"); a.EffectivePlan(time.Now()) != store.PlanPro || !a.PlanCancelled {
		t.Fatalf("after leaving: %+v", a)
	}
	if got := e.browse("POST", "/switch_tier", url.Values{"plan": {"starter"}, "confirm": {"true"}}, cookie).want(303).location(); got != "/dashboard?notice=plan_cancelled" {
		t.Fatalf("a browser goes to %s", got)
	}
	e.browse("GET", "/dashboard", nil, cookie).want(200).has("Cancelled: it stays until " + until.Format("2 Jan 2006"))
}
