package server_test

import (
	"net/http"
	"strings"
	"testing"

	"secutil/store"
)

func TestRouteErrorsAreJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.request("GET", "/no/such/page", nil).wantError(404, "not_found")
	res := e.request("GET", "/api/v1/user_info", nil)
	res.wantError(405, "method_not_allowed")
	if res.header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", res.header.Get("Allow"))
	}
	e.request("DELETE", "/health", nil).wantError(405, "method_not_allowed")
}

// TestSecurityHeaders: an API answer carries what an API client needs
// (nosniff, the API version, and its content type); the headers that
// govern how a browser shows a document go on pages only.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pageOnly := []string{"Content-Security-Policy", "Referrer-Policy", "X-Frame-Options", "Cache-Control"}
	for _, path := range []string{"/api/user_info", "/api/v1/user_info", "/api/v1/no_such_route"} {
		res := e.post(path, nil)
		for name, want := range map[string]string{
			"X-API-Version":          "0.9.5",
			"X-Content-Type-Options": "nosniff",
			"Content-Type":           "application/json; charset=utf-8",
		} {
			if got := res.header.Get(name); got != want {
				t.Errorf("%s %s = %q, want %q", path, name, got, want)
			}
		}
		for _, name := range pageOnly {
			if got := res.header.Get(name); got != "" {
				t.Errorf("%s sends the page header %s: %q", path, name, got)
			}
		}
	}
	page := e.request("GET", "/robots.txt", nil)
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("page CSP %q", csp)
	}
	for name, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	} {
		if got := page.header.Get(name); got != want {
			t.Errorf("page %s = %q, want %q", name, got, want)
		}
	}
}

func TestCrossSitePostWithCookieIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	session := e.login("ann@example.com")
	e.post("/api/regenerate", nil, "Cookie", session, "Sec-Fetch-Site", "cross-site").wantError(403, "cross_origin_request")
	e.post("/api/regenerate", nil, "Cookie", session, "Origin", "https://evil.example", "Host", "secutil.local").wantError(403, "cross_origin_request")
	e.post("/logout", nil, "Cookie", session, "Sec-Fetch-Site", "cross-site").wantError(403, "cross_origin_request")
	e.post("/api/regenerate", nil, "Cookie", session, "Sec-Fetch-Site", "same-origin").want(200)
}

// TestUnknownRouteSuggestsTheNearest: a 404 names the route nearest to a
// mistyped path, and none when nothing is near.
func TestUnknownRouteSuggestsTheNearest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for path, want := range map[string]string{
		"/api/v1/bas64":        "did you mean POST /api/v1/base64?",
		"/api/v1/hash_lookups": "did you mean POST /api/v1/hash_lookup?",
		"/api/hash_identifer":  "did you mean POST /api/hash_identifier?",
		"/tool":                "did you mean GET /tools?",
		"/nothing-like-it":     "",
	} {
		msg := e.post(path, map[string]string{}).wantError(http.StatusNotFound, "not_found")["error"].(string)
		if want == "" && strings.Contains(msg, "did you mean") || !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", path, msg, want)
		}
	}
}

// TestCrossOriginRefusalSaysWhatToDo: a browser's POST from another site
// is refused with a message that says why and where the call belongs.
func TestCrossOriginRefusalSaysWhatToDo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	msg := e.post("/api/v1/base64", map[string]string{"text": "x", "option": "encode"},
		"Sec-Fetch-Site", "cross-site", "Origin", "https://app.example").wantError(http.StatusForbidden, "cross_origin_request")["error"].(string)
	for _, says := range []string{"cannot call this API from the browser", "from your own server"} {
		if !strings.Contains(msg, says) {
			t.Errorf("%q does not say %q", msg, says)
		}
	}
}

// TestBrowserErrorPages: unknown paths and wrong methods get a page in the
// site's style for browsers, JSON for API clients.
func TestBrowserErrorPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/no-such-page", 404, "Not Found"},
		{"GET", "/api/v1/no-such-route", 404, "Not Found"},
		{"GET", "/ip_info", 405, "Method Not Allowed"},
		{"GET", "/dashboard/keys", 405, "Method Not Allowed"},
	} {
		res := e.browse(tc.method, tc.path, nil).want(tc.status)
		if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s %s: Content-Type %q for a browser", tc.method, tc.path, ct)
		}
		res.has("<h1>" + tc.want + "</h1>").has("/static/app.css").has(`href="/tools"`)
		if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'self'") {
			t.Errorf("%s %s: CSP %q does not let the page load its stylesheet", tc.method, tc.path, csp)
		}
		if tc.status == 405 && res.header.Get("Allow") != "POST" {
			t.Errorf("%s %s: Allow %q", tc.method, tc.path, res.header.Get("Allow"))
		}
		code := map[int]string{404: "not_found", 405: "method_not_allowed"}[tc.status]
		e.request(tc.method, tc.path, nil, "Accept", "*/*").wantError(tc.status, code)
	}
}
