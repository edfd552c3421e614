package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

const billingSecret = "whsec_test_secret_0123456789"

const checkoutTemplate = "https://pay.example/checkout?product={product_id}&price={price_cents}&currency={currency}&email={email}&ref={ref}"

func withBilling(d *server.Deps) {
	d.BillingSecret = billingSecret
	checkout, err := server.NewTemplateCheckout(checkoutTemplate)
	if err != nil {
		panic(err)
	}
	d.Checkout = checkout
}

func TestCreateCheckoutSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	id := e.account("ann+x@example.com", store.PlanStarter)
	session := e.login("ann+x@example.com")
	pro := map[string]string{"plan": "pro"}

	e.post("/billing/create_checkout_session", pro).wantError(http.StatusUnauthorized, "login_required")
	e.post("/billing/create_checkout_session", map[string]string{"plan": "gold"}, "Cookie", session).wantError(http.StatusBadRequest, "invalid_request")
	m := e.post("/billing/create_checkout_session", pro, "Cookie", session).wantError(http.StatusBadRequest, "invalid_request")
	if !strings.Contains(m["error"].(string), "admin must create") {
		t.Fatalf("no-product error %q does not tell who must act", m["error"])
	}
	pid := e.createProduct(store.PlanPro, 1299)
	got := e.post("/billing/create_checkout_session", pro, "Cookie", session).want(http.StatusOK).json()["url"]
	want := fmt.Sprintf("https://pay.example/checkout?product=%d&price=1299&currency=EUR&email=ann%%2Bx%%40example.com&ref=account-%s", pid, strconv.FormatInt(id, 10))
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestCheckoutWithoutProviderIs503(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	session := e.login("ann@example.com")
	e.createProduct(store.PlanPro, 1299)
	e.post("/billing/create_checkout_session", map[string]string{"plan": "pro"}, "Cookie", session).wantError(http.StatusServiceUnavailable, "billing_not_configured")
	e.post("/switch_tier", map[string]string{"plan": "pro"}, "Cookie", session).wantError(http.StatusServiceUnavailable, "billing_not_configured")
	// Downgrading needs no provider.
	e.post("/switch_tier", map[string]string{"plan": "starter"}, "Cookie", session).want(http.StatusOK)
}

func TestSwitchTier(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	key := e.key("ann@example.com", store.PlanPro)
	session := e.login("ann@example.com")
	e.createProduct(store.PlanEnterprise, 99900)

	e.post("/switch_tier", map[string]string{"plan": "starter"}).wantError(http.StatusUnauthorized, "login_required")
	e.post("/switch_tier", map[string]string{}, "Cookie", session).wantError(http.StatusBadRequest, "missing_field")

	e.post("/switch_tier", map[string]string{"plan": "starter"}, "Cookie", session).wantError(http.StatusBadRequest, "missing_field")
	res := e.post("/switch_tier", map[string]any{"plan": "starter", "confirm": true}, "Cookie", session).want(http.StatusOK)
	if got := res.json()["plan"]; got != "starter" {
		t.Fatalf("got %v, want starter", got)
	}
	if got := e.post("/api/user_info", nil, "X-API-Key", key).json()["plan"]; got != "starter" {
		t.Fatalf("user_info plan after downgrade: got %v, want starter", got)
	}
	if got, want := len(e.planChanges()), 1; got != want {
		t.Fatalf("plan_changed audit events: got %v, want %v", got, want)
	}

	u := e.post("/switch_tier", map[string]string{"plan": "enterprise"}, "Cookie", session).want(http.StatusOK).json()["url"]
	if s, _ := u.(string); !strings.HasPrefix(s, "https://pay.example/checkout?") || !strings.Contains(s, "price=99900") {
		t.Fatalf("checkout url %v", u)
	}
	// A browser's form post is redirected to the payment page.
	res = e.post("/switch_tier", "plan=enterprise", "Cookie", session,
		"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html,application/xhtml+xml").want(http.StatusSeeOther)
	if got := res.header.Get("Location"); got != u {
		t.Fatalf("Location %q, want %q", got, u)
	}
	// Upgrading does not change the plan until the payment is reported.
	if got := e.accountOf("ann@example.com").Plan; got != store.PlanStarter {
		t.Fatalf("plan before payment: got %v, want starter", got)
	}
}

func TestNewTemplateCheckoutNeedsAnAbsoluteHTTPURL(t *testing.T) {
	t.Parallel()
	for _, tmpl := range []string{"", "pay.example/checkout", "/checkout?p={product_id}", "javascript:alert(1)", "ftp://pay.example/{ref}"} {
		if _, err := server.NewTemplateCheckout(tmpl); err == nil {
			t.Errorf("NewTemplateCheckout(%q) accepted it", tmpl)
		}
	}
	if _, err := server.NewTemplateCheckout(checkoutTemplate); err != nil {
		t.Fatal(err)
	}
}

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
