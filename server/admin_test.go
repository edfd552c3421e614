package server_test

import (
	"context"
	"net/http"
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

// adminRoutes are every /boss/ route with a valid body.
var adminRoutes = []struct {
	path string
	body any
}{
	{"/boss/payments/create_product", map[string]any{"name": "Pro monthly", "plan": "pro", "price_cents": 1200, "currency": "EUR", "interval": "month"}},
	{"/boss/accounts/list", nil},
	{"/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "pro"}},
	{"/boss/suggestions/list", map[string]any{"limit": 10}},
	{"/boss/audit/list", map[string]any{"limit": 10, "offset": 0}},
}

func TestAdminRoutesAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	e.account("ann@example.com", store.PlanStarter)
	user := e.login("ann@example.com")
	admin := e.adminSession("boss@example.com")
	for _, rt := range adminRoutes {
		t.Run(rt.path, func(t *testing.T) {
			e.t = t
			e.post(rt.path, rt.body).wantError(http.StatusUnauthorized, "unauthorized")
			e.post(rt.path, rt.body, "Authorization", "Bearer wrong-token").wantError(http.StatusUnauthorized, "unauthorized")
			e.post(rt.path, rt.body, "Authorization", "Bearer "+adminToken+"x").wantError(http.StatusUnauthorized, "unauthorized")
			e.post(rt.path, rt.body, "Cookie", user).wantError(http.StatusForbidden, "forbidden")
			e.post(rt.path, rt.body, "Cookie", admin).want(http.StatusOK)
			e.post(rt.path, rt.body, "Authorization", "Bearer "+adminToken).want(http.StatusOK)
		})
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
