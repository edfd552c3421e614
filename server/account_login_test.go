package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/apikey"
)

// withDeviceLimits makes the login buckets small enough that 20 guesses
// drain the account's.
func withDeviceLimits(d *server.Deps) {
	d.Limits = &server.Limits{PerIP: server.Rate{Burst: 30, Per: time.Hour}, PerClientAccount: server.Rate{Burst: 3, Per: time.Hour},
		PerAccount: server.Rate{Burst: 6, Per: time.Hour}, PublicHash: server.Rate{Burst: 1, Per: time.Hour}, Range: server.Rate{Burst: 1, Per: time.Hour}}
}

// deviceOf is the device cookie r sets.
func deviceOf(t *testing.T, r response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "device" {
			return c
		}
	}
	t.Fatal("no device cookie")
	return nil
}

// withDevice is the owner's request headers with the cookie c: "cookie"
// in lower case, a raw Cookie header, not the session helper's.
func withDevice(c *http.Cookie) []string {
	return append([]string{"cookie", c.Name + "=" + c.Value}, ownerAddr...)
}

// TestDeviceCookieKeepsTheOwnerIn: guessers on other networks drain the
// account's login bucket; the owner's browser, which logged in before,
// still logs in with its device cookie. The cookie of another account,
// or an altered one, gives nothing.
func TestDeviceCookieKeepsTheOwnerIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withDeviceLimits)
	e.account("owner@example.com", store.PlanStarter)
	e.account("other@example.com", store.PlanStarter)
	device := deviceOf(t, e.ownerLogin("owner@example.com", ownerAddr...).want(200))
	if !device.HttpOnly || device.SameSite != http.SameSiteLaxMode || device.MaxAge < 300*24*3600 || device.Path != "/login" {
		t.Fatalf("device cookie %+v", device)
	}
	otherDevice := deviceOf(t, e.ownerLogin("other@example.com", "RemoteAddr", "192.0.2.20:1000").want(200))

	e.drainLogins(t, "owner@example.com")
	e.ownerLogin("owner@example.com", withDevice(otherDevice)...).wantError(429, "rate_limited")
	tampered := *device
	flipped := byte('A')
	if device.Value[30] == 'A' {
		flipped = 'B'
	}
	tampered.Value = device.Value[:30] + string(flipped) + device.Value[31:] // a byte of the MAC
	e.ownerLogin("owner@example.com", withDevice(&tampered)...).wantError(429, "rate_limited")
	e.ownerLogin("owner@example.com", withDevice(device)...).want(200)
}

// TestDeviceCookieFromEveryWayIn: verifying a registration and /setup log
// the account in, so they mark the browser too: after guessers drain the
// account's bucket, that browser still logs in.
func TestDeviceCookieFromEveryWayIn(t *testing.T) {
	t.Parallel()
	t.Run("verified registration", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, withDeviceLimits)
		const email = "new@example.com"
		e.post("/register", map[string]string{"email": email, "password": testPassword}, ownerAddr...).want(200)
		verified := e.post("/register/verify", map[string]string{"email": email, "code": e.mail.lastCode(t, email), "password": testPassword}, ownerAddr...).want(200)
		device := deviceOf(t, verified)
		e.drainLogins(t, email)
		e.ownerLogin(email, withDevice(device)...).want(200)
	})
	t.Run("setup", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, withDeviceLimits)
		const email = "boss@example.com"
		token := apikey.NewToken()
		if err := e.store.SetSetupToken(t.Context(), apikey.Hash(token)); err != nil {
			t.Fatal(err)
		}
		done := e.post("/setup", map[string]string{"token": token, "email": email, "password": testPassword}, ownerAddr...).want(200)
		device := deviceOf(t, done)
		e.drainLogins(t, email)
		e.ownerLogin(email, withDevice(device)...).want(200)
	})
}

func TestRegistrationLoginLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("/register", map[string]string{"email": "new@example.com", "password": "short"}).wantError(400, "weak_password")
	e.post("/register", map[string]string{"email": "new@example.com", "password": "passwordpassword"}).wantError(400, "weak_password")
	e.post("/register", map[string]string{"email": "not an email", "password": testPassword}).wantError(400, "invalid_request")
	e.post("/register", map[string]string{"email": "new@example.com", "password": testPassword}).want(200)
	e.post("/login", map[string]string{"email": "new@example.com", "password": testPassword}).wantError(401, "account_not_verified")
	e.post("/register/verify", map[string]string{"email": "new@example.com", "code": "000000x", "password": testPassword}).wantError(400, "invalid_request")
	e.post("/register/verify", map[string]string{"email": "new@example.com", "code": e.mail.lastCode(t, "new@example.com")}).wantError(400, "missing_field")
	e.post("/register/verify", map[string]string{"email": "new@example.com", "code": e.mail.lastCode(t, "new@example.com"), "password": testPassword}).want(200)

	session := e.login("new@example.com")
	e.post("/api/regenerate", nil, "Cookie", session).want(200)
	e.post("/logout", nil, "Cookie", session).want(200)
	e.post("/api/regenerate", nil, "Cookie", session).wantError(401, "login_required")

	// Registering a taken email answers the same and changes nothing.
	e.post("/register", map[string]string{"email": "new@example.com", "password": "another long passphrase"}).want(200)
	e.login("new@example.com")
}

func TestLoginIssuesAFreshSessionEachTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	first := e.login("ann@example.com")
	res := e.post("/login", map[string]string{"email": "ann@example.com", "password": testPassword}, "Cookie", first).want(200)
	if strings.Contains(strings.Join(res.header.Values("Set-Cookie"), ";"), first) {
		t.Fatal("login reused the session token it was sent (session fixation)")
	}
	// The old session was ended by the new login.
	e.post("/api/regenerate", nil, "Cookie", first).wantError(401, "login_required")
}

func TestBruteForceIsThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		d.Limits = &server.Limits{
			PerIP:            server.Rate{Burst: 100, Per: 3600e9},
			PerClientAccount: server.Rate{Burst: 3, Per: 3600e9},
			PerAccount:       server.Rate{Burst: 100, Per: 3600e9},
			PublicHash:       server.Rate{Burst: 100, Per: 3600e9},
		}
	})
	e.account("ann@example.com", store.PlanStarter)
	for i := 0; i < 3; i++ {
		e.post("/login", map[string]string{"email": "ann@example.com", "password": "wrong"}).wantError(401, "invalid_credentials")
	}
	res := e.post("/api/get_api_key", map[string]string{"email": "ANN@example.com", "password": testPassword})
	res.wantError(429, "rate_limited")
	if res.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	// Another account is not affected by ann's bucket.
	e.account("bob@example.com", store.PlanStarter)
	e.login("bob@example.com")
}

// countingReader counts the bytes a handler read of a body.
type countingReader struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// TestAccountBodiesAreSmall: a 1 MiB body on an account route is a 413
// after at most its 8 KiB limit was read, with or without a
// Content-Length; a normal login still fits.
func TestAccountBodiesAreSmall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := `{"email":"a@example.com","password":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, path := range []string{"/login", "/register", "/setup", "/register/verify", "/forgot-password", "/forgot-password/verify", "/api/v1/get_api_key"} {
		for _, chunked := range []bool{false, true} {
			body := &countingReader{r: strings.NewReader(big)}
			req := httptest.NewRequest(http.MethodPost, path, body)
			req.Header.Set("Content-Type", "application/json")
			if chunked {
				req.ContentLength = -1
			}
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			res := response{t: t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			if msg := res.wantError(413, "request_too_large")["error"].(string); !strings.Contains(msg, "8192 bytes") {
				t.Errorf("%s: %q", path, msg)
			}
			if read := body.read.Load(); read > 16<<10 {
				t.Errorf("%s (chunked %v): read %d bytes of a 1 MiB body", path, chunked, read)
			}
		}
	}
	e.account("small@example.com", "starter")
	e.login("small@example.com")
}

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

// TestLoginComesBack: /login keeps the page that asked for it, and only
// a path of this site.
func TestLoginComesBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.adminSession("boss@example.com")
	next := e.request("GET", "/admin", nil).want(303).location()
	if next != "/login?next=%2Fadmin" {
		t.Fatalf("GET /admin without a session goes to %s", next)
	}
	e.request("GET", next, nil).want(200).has(`action="/login?next=%2fadmin"`)
	for target, want := range map[string]string{"/admin": "/admin", "//evil.example/": "/dashboard", `/\evil.example`: "/dashboard", "https://evil.example/": "/dashboard"} {
		res := e.form("/login?next="+url.QueryEscape(target), url.Values{"email": {"boss@example.com"}, "password": {testPassword}}, "").want(303)
		if got := res.location(); got != want {
			t.Errorf("next=%s: got %v, want %v", target, got, want)
		}
	}
	// A failed attempt keeps the way back.
	e.form("/login?next=%2Fadmin", url.Values{"email": {"boss@example.com"}, "password": {"wrong password entirely"}}, "").want(401).
		has(`action="/login?next=%2fadmin"`)
}

// TestDeviceCookieDiesWithItsAccount: a deleted account's device cookie
// counted for the next holder of its id, which SQLite reused. Ids are no
// longer reused; and an id that was, in a database from before, gives the
// cookies its earlier holder's browsers kept nothing: a cookie older than
// its account is not the account's.
func TestDeviceCookieDiesWithItsAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withDeviceLimits)
	now := time.Now()
	e.store.SetClock(func() time.Time { return now })
	id := e.account("gone@example.com", store.PlanStarter)
	device := deviceOf(t, e.ownerLogin("gone@example.com", ownerAddr...).want(200))
	if err := e.store.DeleteAccount(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	e.account("next@example.com", store.PlanStarter)
	e.drainLogins(t, "next@example.com")
	e.ownerLogin("next@example.com", withDevice(device)...).wantError(429, "rate_limited")

	// A cookie of an id given again, as SQLite did before: issued before
	// the account holding the id now was made. The store's clock, turned
	// back, issues one.
	e.account("reused@example.com", store.PlanStarter)
	now = now.Add(-time.Hour)
	old := deviceOf(t, e.ownerLogin("reused@example.com", ownerAddr...).want(200))
	now = now.Add(2 * time.Hour)
	e.drainLogins(t, "reused@example.com")
	e.ownerLogin("reused@example.com", withDevice(old)...).wantError(429, "rate_limited")
}
