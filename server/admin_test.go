package server_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/passhash"
)

const adminToken = "admin-token-0123456789abcdef"

func withAdminToken(d *server.Deps) { d.AdminToken = adminToken }

// adminSession creates an admin account and returns its session cookie.
func (e *env) adminSession(email string) string {
	e.t.Helper()
	hash, err := passhash.Hash(testPassword, cheapHash)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.CreateAccount(context.Background(), store.NewAccount{Email: email, PasswordHash: hash, Verified: true, Admin: true}); err != nil {
		e.t.Fatal(err)
	}
	return e.login(email)
}

// adminPatterns is every route the router registers under /boss/ or for
// the admin page (/admin and under it): a route added there is in this
// list without anyone writing it down.
func adminPatterns(t *testing.T) []string {
	var patterns []string
	for _, p := range server.RoutePatterns() {
		_, path, _ := strings.Cut(p, " ")
		if strings.HasPrefix(path, "/boss/") || path == "/admin" || strings.HasPrefix(path, "/admin/") {
			patterns = append(patterns, p)
		}
	}
	if !slices.Contains(patterns, "POST /boss/accounts/list") || !slices.Contains(patterns, "GET /admin") || len(patterns) < 30 {
		t.Fatalf("the admin routes found are %q", patterns)
	}
	return patterns
}

// TestEveryAdminRouteIsGuarded sends every admin route, as the router
// lists them, what would act on an account, from everyone but an
// administrator: the /boss/ API and the admin page's forms answer 401
// without a credential (a wrong admin token, an API key or no session
// count as none) and 403 to an account that is not an administrator's;
// the admin page sends a visitor without a session to log in and shows
// other accounts its refusal. An administrator's session and the admin
// token get past the guard, and no refused request changed anything.
func TestEveryAdminRouteIsGuarded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken, withRegistration(server.RegistrationInvite))
	key := e.key("ann@example.com", store.PlanStarter)
	user := e.login("ann@example.com")
	admin := e.adminSession("boss@example.com")
	acting := map[string]any{"email": "ann@example.com", "confirm": "ann@example.com", "plan": "enterprise", "usage_cap": 5}
	actingForm := url.Values{"email": {"ann@example.com"}, "confirm": {"ann@example.com"}, "plan": {"enterprise"}, "usage_cap": {"5"}}
	for _, pattern := range adminPatterns(t) {
		method, path, _ := strings.Cut(pattern, " ")
		t.Run(pattern, func(t *testing.T) {
			e := e.in(t)
			if method == http.MethodGet {
				for _, stranger := range [][]string{nil, {"X-API-Key", key}, {"Authorization", "Bearer " + adminToken}} {
					res := e.request(method, path, nil, stranger...).want(http.StatusSeeOther)
					if got, want := res.location(), "/login?next="+url.QueryEscape(path); got != want {
						t.Fatalf("%v: sent to %s, want %s", stranger, got, want)
					}
				}
				e.request(method, path, nil, "Cookie", user).want(http.StatusForbidden).has("not an administrator")
				e.request(method, path, nil, "Cookie", admin).want(http.StatusOK)
				return
			}
			e.post(path, acting).wantError(http.StatusUnauthorized, "unauthorized")
			e.post(path, acting, "Authorization", "Bearer wrong-token").wantError(http.StatusUnauthorized, "unauthorized")
			e.post(path, acting, "Authorization", "Bearer "+adminToken+"x").wantError(http.StatusUnauthorized, "unauthorized")
			e.post(path, acting, "X-API-Key", key).wantError(http.StatusUnauthorized, "unauthorized")
			e.post(path, acting, "Cookie", user).wantError(http.StatusForbidden, "forbidden")
			e.form(path, actingForm, user).wantError(http.StatusForbidden, "forbidden")
			// Past the guard, an empty body is refused by the route itself
			// (or, for a list, answered): never as a credential.
			for _, who := range [][]string{{"Cookie", admin}, {"Authorization", "Bearer " + adminToken}} {
				if res := e.post(path, nil, who...); res.status == http.StatusUnauthorized || res.status == http.StatusForbidden {
					t.Fatalf("%s: an administrator got %d: %s", who[0], res.status, res.body)
				}
			}
		})
	}
	ann := e.accountOf("ann@example.com")
	if ann.Disabled || ann.Admin || !ann.Verified || ann.Plan != store.PlanStarter || ann.UsageCap != nil {
		t.Fatalf("a refused request changed the account: %+v", ann)
	}
}

func TestAdminBearerNeverWorksWithoutAConfiguredToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, token := range []string{"", " ", "anything"} {
		e.post("/boss/accounts/list", nil, "Authorization", "Bearer "+token).wantError(http.StatusUnauthorized, "unauthorized")
	}
}

func TestCreateProductValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	valid := func() map[string]any {
		return map[string]any{"name": "Pro yearly", "plan": "pro", "price_cents": 12000, "currency": "USD", "interval": "year"}
	}
	tests := []struct {
		field string
		value any
		code  string
	}{
		{"name", "", "missing_field"},
		{"name", strings.Repeat("n", 201), "invalid_request"},
		{"plan", "starter", "invalid_request"},
		{"plan", "gold", "invalid_request"},
		{"price_cents", 0, "invalid_request"},
		{"price_cents", -5, "invalid_request"},
		{"price_cents", "12", "invalid_field"},
		{"currency", "eur", "invalid_request"},
		{"currency", "EURO", "invalid_request"},
		{"currency", "", "missing_field"},
		{"interval", "week", "invalid_request"},
	}
	for _, tt := range tests {
		body := valid()
		body[tt.field] = tt.value
		m := e.post("/boss/payments/create_product", body, "Authorization", "Bearer "+adminToken).wantError(http.StatusBadRequest, tt.code)
		if !strings.Contains(m["error"].(string), `"`+tt.field+`"`) {
			t.Fatalf("%s=%v: error %q does not name the field", tt.field, tt.value, m["error"])
		}
	}
	m := e.post("/boss/payments/create_product", valid(), "Authorization", "Bearer "+adminToken).want(http.StatusOK).json()
	if m["id"] == nil || m["plan"] != "pro" || m["price_cents"] != float64(12000) {
		t.Fatalf("created product %v", m)
	}
	p, err := e.store.ProductForPlan(context.Background(), store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Interval, "year"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAdminListAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key := e.key("ann@example.com", store.PlanStarter)
	e.account("bob@example.com", store.PlanPro)
	e.meteredCall(key).want(http.StatusOK)

	res := e.post("/boss/accounts/list", nil, bearer...).want(http.StatusOK).json()
	items := res["items"].([]any)
	if len(items) != 2 || res["limit"] != float64(50) || res["offset"] != float64(0) {
		t.Fatalf("default page %v", res)
	}
	ann := items[0].(map[string]any)
	for field, want := range map[string]any{"email": "ann@example.com", "plan": "starter", "effective_plan": "starter",
		"api_usage": float64(1), "max_usage_for_plan": float64(100), "paid_until": nil, "admin": false, "verified": true} {
		if ann[field] != want {
			t.Fatalf("%s = %v, want %v (in %v)", field, ann[field], want, ann)
		}
	}
	if _, ok := ann["created_at"].(string); !ok {
		t.Fatalf("no created_at in %v", ann)
	}
	second := e.post("/boss/accounts/list", map[string]any{"limit": 1, "offset": 1}, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(second) != 1 || second[0].(map[string]any)["email"] != "bob@example.com" {
		t.Fatalf("second page %v", second)
	}
	for _, bad := range []map[string]any{{"limit": 0}, {"limit": 501}, {"offset": -1}} {
		e.post("/boss/accounts/list", bad, bearer...).wantError(http.StatusBadRequest, "invalid_request")
	}
	empty := e.post("/boss/accounts/list", map[string]any{"offset": 10}, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(empty) != 0 {
		t.Fatalf("page past the end %v", empty)
	}
}

func TestAdminSetPlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key := e.key("ann@example.com", store.PlanStarter)

	e.post("/boss/accounts/set_plan", map[string]any{"plan": "pro"}, bearer...).wantError(http.StatusBadRequest, "missing_field")
	e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com"}, bearer...).wantError(http.StatusBadRequest, "missing_field")
	for _, bad := range []map[string]any{
		{"email": "ann@example.com", "plan": "gold"},
		{"email": "ann@example.com", "plan": "pro", "usage_cap": 10},
		{"email": "ann@example.com", "plan": "enterprise", "usage_cap": 0},
		{"email": "ann@example.com", "plan": "starter", "paid_until": "2030-01-01T00:00:00Z"},
		{"email": "ann@example.com", "plan": "pro", "paid_until": "soon"},
	} {
		e.post("/boss/accounts/set_plan", bad, bearer...).wantError(http.StatusBadRequest, "invalid_request")
	}
	e.post("/boss/accounts/set_plan", map[string]any{"email": "nobody@example.com", "plan": "pro"}, bearer...).wantError(http.StatusNotFound, "account_not_found")

	m := e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "enterprise", "usage_cap": 500, "paid_until": "2030-01-01T00:00:00Z"}, bearer...).
		want(http.StatusOK).json()
	if m["plan"] != "enterprise" || m["usage_cap"] != float64(500) || m["paid_until"] != "2030-01-01T00:00:00Z" {
		t.Fatalf("set_plan answered %v", m)
	}
	info := e.post("/api/user_info", nil, "X-API-Key", key).want(http.StatusOK).json()
	if info["plan"] != "enterprise" || info["max_usage_for_plan"] != float64(500) {
		t.Fatalf("user_info after set_plan: %v", info)
	}
	changes := e.planChanges()
	if len(changes) != 1 || !strings.Contains(changes[0].Detail, "starter -> enterprise") {
		t.Fatalf("plan_changed audit events %+v", changes)
	}
}

func TestAdminListSuggestionsAndAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key := e.key("ann@example.com", store.PlanStarter)
	e.meteredCall(key).want(http.StatusOK)

	sg := e.post("/boss/suggestions/list", nil, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(sg) != 1 || sg[0].(map[string]any)["message"] != "more tools please" {
		t.Fatalf("suggestions %v", sg)
	}
	events := e.post("/boss/audit/list", map[string]any{"limit": 1}, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["kind"] != store.AuditKeyIssued {
		t.Fatalf("newest audit event %v", events)
	}
}
