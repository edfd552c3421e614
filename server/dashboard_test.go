package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

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
	cookie := &http.Cookie{Name: "auth_session", Value: e.login("capped@example.com")}
	e.fill(id, 4)
	page := e.browse("GET", "/dashboard", nil, cookie).want(200)
	if strings.Contains(string(page.body), `id="at-cap"`) {
		t.Fatal("the cap message shows below the cap")
	}
	page.has("5 metered calls a month: the cap your administrator set.")
	e.fill(id, 1)
	reset := store.PeriodEnd(time.Now()).UTC().Format("2 Jan 2006")
	e.browse("GET", "/dashboard", nil, cookie).want(200).has(`id="at-cap"`).
		has("You have used all 5 metered calls of your enterprise plan this month").has("until " + reset).
		has("ask an administrator of this server to raise it")

	e.browse("GET", "/tools", nil, cookie).want(200).has(`id="tools-at-cap"`).has("until " + reset).has("ask an administrator of this server to raise it")

	starter := e.account("starter@example.com", store.PlanStarter)
	e.fill(starter, store.StarterCap)
	e.browse("GET", "/dashboard", nil, &http.Cookie{Name: "auth_session", Value: e.login("starter@example.com")}).want(200).
		has("You have used all 100 metered calls of your starter plan").has("ask an administrator of this server for a larger plan")
}

// TestEmptyDashboard: an account without keys sees one create-key form
// (the first-key call-out's, whose key is not named "default", the name
// get_api_key replaces) and an empty state; one call reads "1 call"; a
// server that takes no payments shows no price.
func TestEmptyDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("ann@example.com", store.PlanPro)
	if _, err := e.store.CreateProduct(context.Background(), store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
		t.Fatal(err)
	}
	cookie := &http.Cookie{Name: "auth_session", Value: e.login("ann@example.com")}
	e.fill(id, 1)
	page := e.browse("GET", "/dashboard", nil, cookie).want(200)
	body := string(page.body)
	if n := strings.Count(body, `action="/dashboard/keys"`); n != 1 {
		t.Fatalf("%d create-key forms on an empty dashboard", n)
	}
	page.has(`id="no-keys"`).has(`id="first-key-name" name="name" type="text" pattern="[A-Za-z0-9._\-]{1,64}" maxlength="64" required value="dashboard"`).
		has("<code>POST /api/v1/get_api_key</code>").has(`<span id="usage">1</span> call</p>`)
	if strings.Contains(body, "EUR") {
		t.Fatal("a price on a server that takes no payments")
	}
	if strings.Contains(body, "1 calls") {
		t.Fatal(`"1 calls" on the dashboard`)
	}
}

// TestGetAPIKeyLeavesTheDashboardsKey: the key the dashboard's first-key
// call-out makes (its name is held to the page above) survives
// get_api_key, and Getting Started says what get_api_key replaces.
func TestGetAPIKeyLeavesTheDashboardsKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("ann@example.com", store.PlanStarter)
	e.post("/dashboard/keys", map[string]string{"name": "dashboard"}, "Cookie", e.login("ann@example.com")).want(http.StatusSeeOther)
	before, err := e.store.KeyByName(context.Background(), id, "dashboard")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		e.post("/api/v1/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).want(http.StatusOK)
	}
	after, err := e.store.KeyByName(context.Background(), id, "dashboard")
	if err != nil || after.ID != before.ID {
		t.Fatalf("the dashboard's key after get_api_key: %+v, %v (before %+v)", after, err, before)
	}
	e.request("GET", "/docs/getting_started", nil).want(http.StatusOK).has(`id="get-api-key-names"`).has("first key is named <code>dashboard</code>")
}
