package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

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
