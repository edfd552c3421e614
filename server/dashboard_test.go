package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

// TestDashboardAtTheCap: at the cap the dashboard and the utilities page
// say the cap, the reset date and whom to ask; the enterprise card shows
// the account's own cap.
func TestDashboardAtTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	id := e.account("capped@example.com", store.PlanStarter)
	e.post("/boss/accounts/set_plan", map[string]any{"email": "capped@example.com", "plan": "enterprise", "usage_cap": 5},
		"Authorization", "Bearer "+adminToken).want(http.StatusOK)
	cookie := e.sessionCookie("capped@example.com")
	e.fill(id, 4)
	page := e.browse("GET", "/dashboard", nil, cookie).want(200)
	if strings.Contains(string(page.body), `id="at-cap"`) {
		t.Fatal("the cap message shows below the cap")
	}
	page.has("5 metered items a month: the cap your administrator set.")
	e.fill(id, 1)
	reset := store.PeriodEnd(time.Now()).UTC().Format("2 Jan 2006")
	e.browse("GET", "/dashboard", nil, cookie).want(200).has(`id="at-cap"`).
		has("You have used all 5 metered items of your enterprise plan this month").has("until " + reset).
		has("ask an administrator of this server to raise it")

	e.browse("GET", "/tools", nil, cookie).want(200).has(`id="tools-at-cap"`).has("until " + reset).has("ask an administrator of this server to raise it")

	starter := e.account("starter@example.com", store.PlanStarter)
	e.fill(starter, store.StarterCap)
	e.browse("GET", "/dashboard", nil, e.sessionCookie("starter@example.com")).want(200).
		has("You have used all 100 metered items of your starter plan").has("ask an administrator of this server for a larger plan")
}

// TestEmptyDashboard: an account without keys sees one create-key form
// (the first-key call-out's, whose key is not named "default", the name
// get_api_key replaces) and an empty state; one item reads "1 item"; a
// server that takes no payments shows no price.
func TestEmptyDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("ann@example.com", store.PlanPro)
	if _, err := e.store.CreateProduct(context.Background(), store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
		t.Fatal(err)
	}
	cookie := e.sessionCookie("ann@example.com")
	e.fill(id, 1)
	page := e.browse("GET", "/dashboard", nil, cookie).want(200)
	body := string(page.body)
	if n := strings.Count(body, `action="/dashboard/keys"`); n != 1 {
		t.Fatalf("%d create-key forms on an empty dashboard", n)
	}
	page.has(`id="no-keys"`).has(`id="first-key-name" name="name" type="text" pattern="[A-Za-z0-9._\-]{1,64}" maxlength="64" required value="dashboard"`).
		has("<code>POST /api/v1/get_api_key</code>").has(`<span id="usage">1</span> item</p>`).has(`id="usage-unit"`)
	if strings.Contains(body, "EUR") {
		t.Fatal("a price on a server that takes no payments")
	}
	if strings.Contains(body, "1 calls") || strings.Contains(body, "1 items") {
		t.Fatal(`"1 calls" or "1 items" on the dashboard`)
	}
}

// TestPlanCards: without a checkout provider, paid plans say to ask the
// administrator; with one, they show the price and their button goes to
// checkout, which the page's CSP lets the form reach. Every refusal comes
// back to the dashboard as an alert.
func TestPlanCards(t *testing.T) {
	t.Parallel()
	t.Run("without checkout", func(t *testing.T) {
		e := newEnv(t)
		e.account("plan@example.com", store.PlanPro)
		session := e.sessionCookie("plan@example.com")
		page := e.browse("GET", "/dashboard", nil, session).want(200)
		page.has("Ask your administrator")
		if strings.Contains(string(page.body), "Upgrade to") {
			t.Fatal("an upgrade button without a payment provider")
		}
		res := e.browse("POST", "/switch_tier", url.Values{"plan": {"enterprise"}}, session).want(503)
		res.has(`<div class="alert error" role="alert">No payment provider is configured`).has(`id="plan"`)
		if got := e.browse("POST", "/switch_tier", url.Values{"plan": {"starter"}, "confirm": {"true"}}, session).want(303).location(); got != "/dashboard?notice=plan_starter" {
			t.Fatalf("downgrade goes to %s", got)
		}
		e.browse("POST", "/switch_tier", url.Values{"plan": {"gold"}}, session).want(400).has(`Field &#34;plan&#34; must be`)
		if got := e.browse("POST", "/switch_tier", url.Values{"plan": {"pro"}}).want(303).location(); got != "/login?next=%2Fdashboard" {
			t.Fatalf("without a session: %s", got)
		}
	})

	t.Run("with checkout", func(t *testing.T) {
		checkout, err := server.NewTemplateCheckout("https://pay.example:8443/buy?product={product_id}&ref={ref}")
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, func(d *server.Deps) { d.Checkout = checkout })
		e.account("buyer@example.com", store.PlanStarter)
		session := e.sessionCookie("buyer@example.com")
		page := e.browse("GET", "/dashboard", nil, session).want(200)
		if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://pay.example:8443;") {
			t.Fatalf("CSP %q does not let the plan form reach checkout", csp)
		}
		page.has("Not on sale yet")
		e.browse("POST", "/switch_tier", url.Values{"plan": {"pro"}}, session).want(400).has("There is no product for the pro plan yet")

		if _, err := e.store.CreateProduct(t.Context(), store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
			t.Fatal(err)
		}
		e.browse("GET", "/dashboard", nil, session).want(200).has("9.00 EUR a month").has("Upgrade to pro")
		res := e.browse("POST", "/switch_tier", url.Values{"plan": {"pro"}}, session).want(303)
		if got := res.location(); !strings.HasPrefix(got, "https://pay.example:8443/buy?product=") {
			t.Fatalf("upgrade goes to %s", got)
		}
	})
}

// TestRotatingIsOneEvent: rotating a key is audited as key_rotated
// whether the dashboard or the API (new_api_key) rotates it; creating
// one is key_issued.
func TestRotatingIsOneEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("ann@example.com", store.PlanStarter)
	session := e.sessionCookie("ann@example.com")
	e.browse("POST", "/dashboard/keys", url.Values{"name": {"ci"}}, session).want(http.StatusSeeOther)
	e.browse("POST", "/dashboard/keys/rotate", url.Values{"name": {"ci"}}, session).want(http.StatusSeeOther)
	key := e.post("/api/v1/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).want(200).json()["api_key"].(string)
	e.post("/api/v1/new_api_key", nil, "X-API-Key", key).want(200)
	// /regenerate rotates the default key too, and says so.
	e.post("/api/v1/regenerate", nil, "Cookie", session.Value).want(200)
	events, err := e.store.AuditEvents(context.Background(), 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range events {
		if ev.AccountID == id && strings.HasPrefix(ev.Kind, "key_") {
			got = append(got, ev.Kind+" "+ev.Detail)
		}
	}
	want := []string{"key_rotated default", "key_rotated default", "key_issued default", "key_rotated ci", "key_issued ci"} // newest first
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("key events, newest first: %v, want %v", got, want)
	}
}

// TestKeyNameRulesByTheField: both key-name fields say what a name may
// be before a refusal does: beside the label, and as the title a
// browser shows when the pattern does not match.
func TestKeyNameRulesByTheField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	session := e.sessionCookie("ann@example.com")
	const rule = "1 to 64 letters, digits, dots, underscores or hyphens"
	for _, field := range []string{"first-key-name", "key-name"} {
		body := string(e.browse("GET", "/dashboard", nil, session).want(200).body)
		label := `<span class="hint" id="` + field + `-rule">` + rule + `</span></label>`
		input := `aria-describedby="` + field + `-rule" title="` + rule + `"`
		if !strings.Contains(body, label) || !strings.Contains(body, input) {
			t.Errorf("the %s field does not show the rule:\n%s", field, body)
		}
		e.browse("POST", "/dashboard/keys", url.Values{"name": {field}}, session).want(http.StatusSeeOther) // a key: the next form shows
	}
}

// TestPlanCardsSayWhoSetsThePlanOnce: a plan an administrator set is said
// once, not on the plan panel and on every card; an administrator's own
// dashboard offers no switch and no "ask your administrator", but the
// admin page, where they set plans, their own too.
func TestPlanCardsSayWhoSetsThePlanOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	e.account("capped@example.com", store.PlanStarter)
	e.post("/boss/accounts/set_plan", map[string]any{"email": "capped@example.com", "plan": "enterprise", "usage_cap": 5},
		"Authorization", "Bearer "+adminToken).want(http.StatusOK)
	page := string(e.request("GET", "/dashboard", nil, "Cookie", e.login("capped@example.com")).want(200).body)
	if n := strings.Count(page, "An administrator set your plan"); n != 1 {
		t.Errorf("an administrator's plan is said %d times", n)
	}
	admin := e.adminSession("boss@example.com")
	for _, plan := range []string{store.PlanStarter, store.PlanPro} {
		if err := e.store.SetPlan(context.Background(), e.accountOf("boss@example.com").ID, plan, nil, nil); err != nil {
			t.Fatal(err)
		}
		page := string(e.request("GET", "/dashboard", nil, "Cookie", admin).want(200).body)
		for _, offer := range []string{"Switch to", "Ask your administrator", "ask an administrator", "Upgrade to", "leave=starter"} {
			if strings.Contains(page, offer) {
				t.Errorf("an administrator on %s is offered %q", plan, offer)
			}
		}
		if !strings.Contains(page, `on the <a href="/admin?email=boss%40example.com#set-plan">admin page</a>`) {
			t.Errorf("an administrator on %s is not sent to the admin page", plan)
		}
	}
	// At the cap too.
	boss := e.accountOf("boss@example.com")
	if err := e.store.SetPlan(context.Background(), boss.ID, store.PlanStarter, nil, nil); err != nil {
		t.Fatal(err)
	}
	e.fill(boss.ID, store.StarterCap)
	e.request("GET", "/dashboard", nil, "Cookie", admin).want(200).has("You are an administrator: give your account a larger plan on the admin page.")
}
