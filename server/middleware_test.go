package server_test

import (
	"bytes"
	"net/http"
	"os"
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

func TestBodyLimitAndContentType(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := `{"email":"` + strings.Repeat("a", 2<<20) + `"}`
	e.post("/api/get_api_key", big).wantError(413, "request_too_large")
	e.post("/api/get_api_key", `{}`, "Content-Type", "text/xml").wantError(415, "unsupported_media_type")
	// curl -d labels JSON as a form: it is still read as JSON.
	e.account("ann@example.com", store.PlanStarter)
	e.post("/api/get_api_key", `{"email":"ann@example.com","password":"`+testPassword+`"}`,
		"Content-Type", "application/x-www-form-urlencoded").want(200)
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

func TestHealthAndRobots(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.request("GET", "/health", nil).want(200).json()
	if m["status"] != "ok" || m["db"] != "ok" || m["version"] == "" || m["backend"] != "sqlite" {
		t.Fatalf("health = %v", m)
	}
	for _, p := range []string{"/robots", "/robots.txt"} {
		res := e.request("GET", p, nil).want(200)
		if !bytes.Contains(res.body, []byte("Disallow: /api/")) {
			t.Fatalf("%s = %s", p, res.body)
		}
	}
	e.store.Close()
	if m := e.request("GET", "/health", nil).want(503).json(); m["db"] != "error" {
		t.Fatalf("health with a closed db = %v", m)
	}
}

func TestEveryAPIRouteUnderBothScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/get_api_key", "/new_api_key", "/regenerate", "/user_info", "/suggestion"} {
		for _, scope := range []string{"/api", "/api/v1"} {
			if res := e.post(scope+path, `{}`); res.status == 404 || res.status == 405 {
				t.Errorf("POST %s%s: %d", scope, path, res.status)
			}
		}
	}
}

// TestNoSecretInLogsOrDatabase drives every credential path, then searches
// the logs and the raw database file for the secrets that went through.
func TestNoSecretInLogsOrDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const regPassword = "unusual orchid harbour lantern"
	const newPassword = "different quiet meadow bicycle"
	e.post("/register", map[string]string{"email": "sec@example.com", "password": regPassword}).want(200)
	e.post("/register/verify", map[string]string{"email": "sec@example.com", "code": e.mail.lastCode(t, "sec@example.com"), "password": regPassword}).want(200)
	e.post("/login", map[string]string{"email": "sec@example.com", "password": "wrong password attempt"}).want(401)
	res := e.post("/login", map[string]string{"email": "sec@example.com", "password": regPassword}).want(200)
	var session string
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == "auth_session" {
			session = c.Value
		}
	}
	key := e.post("/api/get_api_key", map[string]string{"email": "sec@example.com", "password": regPassword}).want(200).json()["api_key"].(string)
	rotated := e.post("/api/new_api_key", nil, "X-API-Key", key).want(200).json()["api_key"].(string)
	regenerated := e.post("/api/regenerate", nil, "Cookie", session).want(200).json()["api_key"].(string)
	e.meteredCall(regenerated).want(200)
	e.post("/forgot-password", map[string]string{"email": "sec@example.com"}).want(200)
	e.post("/forgot-password/verify", map[string]string{"email": "sec@example.com", "code": e.mail.resetCode(t, "sec@example.com"), "new_password": newPassword}).want(200)
	e.store.Close()

	db, err := os.ReadFile(e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(e.dbPath + "-wal")
	logs := e.logs.String()
	for _, secret := range []string{regPassword, newPassword, "wrong password attempt", session, key, rotated, regenerated} {
		if strings.Contains(logs, secret) {
			t.Errorf("secret %q appears in the logs", secret)
		}
		if bytes.Contains(db, []byte(secret)) || bytes.Contains(wal, []byte(secret)) {
			t.Errorf("secret %q appears in the database file", secret)
		}
	}
}

// Text holding the NUL character cannot be stored (PostgreSQL's text has
// no room for it): a 400 naming it, nothing counted, on either backend.
func TestStoredTextWithNULIsABadRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	e.post("/api/v1/suggestion", map[string]string{"message": "a\x00b"}, "X-API-Key", key).wantError(400, "invalid_request")
	if m := e.post("/api/v1/user_info", nil, "X-API-Key", key).want(200).json(); m["api_usage"] != float64(0) {
		t.Fatalf("user_info after a refused suggestion: %v", m)
	}
	e.post("/login", map[string]string{"email": "a\x00b@example.com", "password": testPassword}).wantError(401, "invalid_credentials")
}
