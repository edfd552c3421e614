package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"secutil/store"
)

func TestAdminPageAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanPro)
	user := e.login("ann@example.com")

	res := e.request("GET", "/admin", nil).want(http.StatusSeeOther)
	if got, want := res.location(), "/login?next=%2Fadmin"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.request("GET", "/admin", nil, "Cookie", user).want(http.StatusForbidden).has("not an administrator")
	page := e.request("GET", "/admin", nil, "Cookie", admin).want(http.StatusOK)
	page.has(`id="accounts"`).has("ann@example.com").has("boss@example.com").has(`action="/admin/accounts/set_plan"`)
	if strings.Contains(string(e.request("GET", "/admin", nil, "Cookie", user).body), "ann@example.com</a>") {
		t.Fatal("the 403 page lists accounts")
	}
}

func TestAdminLinkOnlyForAdmins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	user := e.login("ann@example.com")
	for _, tc := range []struct {
		who     string
		cookie  string
		hasLink bool
	}{{"anonymous", "", false}, {"user", user, false}, {"admin", admin, true}} {
		headers := []string{}
		if tc.cookie != "" {
			headers = []string{"Cookie", tc.cookie}
		}
		for _, path := range []string{"/", "/tools"} {
			body := string(e.request("GET", path, nil, headers...).want(http.StatusOK).body)
			if got, want := strings.Contains(body, `href="/admin"`), tc.hasLink; got != want {
				t.Errorf("%s on %s: link shown %v, want %v", tc.who, path, got, want)
			}
		}
	}
}

func TestAdminPageSetPlanForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	user := e.login("ann@example.com")

	t.Run("sets plan, cap and the end of the paid day", func(t *testing.T) {
		e := e.in(t)
		res := e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"enterprise"},
			"usage_cap": {"500"}, "paid_until": {"2030-01-31"}}, admin).want(http.StatusSeeOther)
		if got, want := res.location(), "/admin?done=plan_set"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		a, err := e.store.AccountByEmail(context.Background(), "ann@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if a.Plan != store.PlanEnterprise || a.UsageCap == nil || *a.UsageCap != 500 || a.PaidUntil == nil ||
			a.PaidUntil.UTC().Format("2006-01-02T15:04:05") != "2030-01-31T23:59:59" {
			t.Fatalf("after the form: plan %s cap %v paid until %v", a.Plan, a.UsageCap, a.PaidUntil)
		}
		if changes := e.planChanges(); len(changes) != 1 {
			t.Fatalf("plan_changed audit events %+v", changes)
		}
		e.request("GET", res.location(), nil, "Cookie", admin).want(http.StatusOK).has("The plan was set.").has("paid until 31 Jan 2030 23:59 UTC")
	})

	t.Run("empty optional fields are left out", func(t *testing.T) {
		e := e.in(t)
		e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"},
			"usage_cap": {""}, "paid_until": {""}}, admin).want(http.StatusSeeOther)
		if a := e.accountOf("ann@example.com"); a.Plan != store.PlanPro || a.UsageCap != nil || a.PaidUntil != nil {
			t.Fatalf("after the form: plan %s cap %v paid until %v", a.Plan, a.UsageCap, a.PaidUntil)
		}
	})

	// Refusals redirect back to the page, which shows the message once.
	for _, tc := range []struct {
		name string
		form url.Values
		msg  string
	}{
		{"cap on pro", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "usage_cap": {"10"}}, "only to the enterprise plan"},
		{"cap not a number", url.Values{"email": {"ann@example.com"}, "plan": {"enterprise"}, "usage_cap": {"ten"}}, "whole number"},
		{"date not a date", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "paid_until": {"soon"}}, "a date like"},
		{"unknown email", url.Values{"email": {"nobody@example.com"}, "plan": {"pro"}}, "No account has the email"},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			e.in(t).refused("/admin/accounts/set_plan", tc.form, admin, tc.msg)
		})
	}

	t.Run("needs an admin", func(t *testing.T) {
		e := e.in(t)
		e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}}, user).want(http.StatusForbidden)
		e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}}, "").want(http.StatusUnauthorized)
	})
}

func TestAdminPageCreateProductForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	res := e.form("/admin/products", url.Values{"name": {"Pro monthly"}, "plan": {"pro"}, "price_cents": {"1200"},
		"currency": {"EUR"}, "interval": {"month"}}, admin).want(http.StatusSeeOther)
	if got, want := res.location(), "/admin?done=product_created"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.refused("/admin/products", url.Values{"name": {"Pro monthly"}, "plan": {"pro"}, "price_cents": {"0"},
		"currency": {"EUR"}, "interval": {"month"}}, admin, "price_cents")
}

func TestAdminPageShowsSuggestionsAndSealedIPs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	key := e.key("ann@example.com", store.PlanStarter)
	e.meteredCall(key).want(http.StatusOK)
	page := e.request("GET", "/admin", nil, "Cookie", admin).want(http.StatusOK)
	page.has("more tools please").has(store.AuditKeyIssued).has(`data-locate="`)
}

func TestAdminPagePagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	for i := range 51 {
		e.account("user"+string(rune('a'+i/26))+string(rune('a'+i%26))+"@example.com", store.PlanStarter)
	}
	first := e.request("GET", "/admin", nil, "Cookie", admin).want(http.StatusOK)
	first.has(`href="/admin?offset=50"`)
	if strings.Contains(string(first.body), "← Previous") {
		t.Fatal("the first page links to a previous one")
	}
	second := e.request("GET", "/admin?offset=50", nil, "Cookie", admin).want(http.StatusOK)
	second.has(`href="/admin?offset=0"`)
	if strings.Contains(string(second.body), "Next →") {
		t.Fatal("the last page links to a next one")
	}
	e.request("GET", "/admin?offset=-3", nil, "Cookie", admin).want(http.StatusOK)
}
