package server_test

import (
	"net/url"
	"strings"
	"testing"

	"secutil/store"
)

// TestLoginNextStaysOnSite: whatever ?next= a login page was given, the
// browser is sent to a path of this site, checked as the browser will
// read the Location once cleaned.
func TestLoginNextStaysOnSite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("next@example.com", store.PlanStarter)
	for i, tc := range []struct{ next, want string }{
		{"/./%5Cevil.com", "/dashboard"},
		{"/./\\evil.com", "/dashboard"},
		{"/\\evil.com", "/dashboard"},
		{"\\/evil.com", "/dashboard"},
		{"//evil.com", "/dashboard"},
		{"/.//evil.com", "/evil.com"},
		{"/..//evil.com", "/evil.com"},
		{"///evil.com", "/dashboard"},
		{"/%09/evil.com", "/dashboard"},
		{"/\t/evil.com", "/dashboard"},
		{"/\n/evil.com", "/dashboard"},
		{"https://evil.com", "/dashboard"},
		{"https:/evil.com", "/dashboard"},
		{"javascript:alert(1)", "/dashboard"},
		{"evil.com", "/dashboard"},
		{"/a/../b\\..\\..\\evil.com", "/dashboard"},
		{"/admin", "/admin"},
		{"/admin/./x/../?tab=keys", "/admin/?tab=keys"},
		{"/tools#tool-base64", "/tools#tool-base64"},
		{"", "/dashboard"},
	} {
		// Each case from its own address: the login limits are not tested here.
		addr := "198.51.100." + string(rune('1'+i%9)) + string(rune('0'+i/9)) + ":1000"
		query := "?next=" + url.QueryEscape(tc.next)
		if strings.Contains(tc.next, "%") {
			query = "?next=" + tc.next // as the attacker's link has it
		}
		res := e.post("/login"+query, url.Values{"email": {"next@example.com"}, "password": {testPassword}}.Encode(),
			"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html", "RemoteAddr", addr).want(303)
		loc := res.location()
		u, err := url.Parse(loc)
		if loc != tc.want || err != nil || u.Host != "" || u.Scheme != "" || !strings.HasPrefix(loc, "/") ||
			strings.HasPrefix(loc, "//") || strings.ContainsAny(loc, "\\\t\n\r") {
			t.Errorf("next %q: Location %q, want %q", tc.next, loc, tc.want)
		}
	}
}

// TestLoggedInAndLoggedOutPages: the login and registration pages send a
// logged-in browser to the dashboard, and the page after logout says the
// user is logged out.
func TestLoggedInAndLoggedOutPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("in@example.com", store.PlanStarter)
	session := e.login("in@example.com")
	for _, page := range []string{"/login", "/register"} {
		if got := e.request("GET", page, nil, "Cookie", session).want(303).location(); got != "/dashboard" {
			t.Errorf("GET %s logged in: Location %q", page, got)
		}
		e.request("GET", page, nil).want(200)
	}
	if got := e.request("GET", "/login?next=/tools", nil, "Cookie", session).want(303).location(); got != "/tools" {
		t.Errorf("GET /login?next=/tools logged in: Location %q", got)
	}
	res := e.form("/logout", url.Values{}, session).want(303)
	e.request("GET", res.location(), nil).want(200).has("You are logged out.")
	e.request("GET", "/login", nil, "Cookie", session).want(200) // the session ended
}
