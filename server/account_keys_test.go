package server_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/seal"
)

func TestGetAPIKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"wrong password", map[string]string{"email": "ann@example.com", "password": "nope"}, 401, "invalid_credentials"},
		{"unknown email", map[string]string{"email": "bob@example.com", "password": testPassword}, 401, "invalid_credentials"},
		{"missing password", map[string]string{"email": "ann@example.com"}, 400, "missing_field"},
		{"wrong type", `{"email": 1, "password": "x"}`, 400, "invalid_field"},
		{"malformed", `{"email":`, 400, "invalid_request"},
		{"array", `[]`, 400, "invalid_request"},
		{"null", `null`, 400, "invalid_request"},
		{"empty", ``, 400, "invalid_request"},
		{"bad key name", map[string]string{"email": "ann@example.com", "password": testPassword, "name": "no spaces"}, 400, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.in(t).post("/api/get_api_key", tc.body).wantError(tc.status, tc.code)
		})
	}
	key := e.post("/api/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).want(200).json()["api_key"].(string)
	e.post("/api/v1/user_info", nil, "X-API-Key", key).want(200)

	// Issuing the same name again revokes the previous key of that name;
	// another name is a separate key.
	key2 := e.post("/api/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).want(200).json()["api_key"].(string)
	ci := e.post("/api/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword, "name": "ci"}).want(200).json()["api_key"].(string)
	e.post("/api/v1/user_info", nil, "X-API-Key", key).wantError(401, "unauthorized")
	e.post("/api/v1/user_info", nil, "X-API-Key", key2).want(200)
	e.post("/api/v1/user_info", nil, "X-API-Key", ci).want(200)
}

func TestUnverifiedAccountGetsNoKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("/register", map[string]string{"email": "new@example.com", "password": testPassword}).want(200)
	e.post("/api/get_api_key", map[string]string{"email": "new@example.com", "password": testPassword}).wantError(401, "account_not_verified")
}

func TestKeyRoutesNeedAValidKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/new_api_key", "/user_info", "/suggestion"} {
		for _, scope := range []string{"/api", "/api/v1"} {
			e.post(scope+path, `{}`).wantError(401, "unauthorized")
			e.post(scope+path, `{}`, "X-API-Key", "sk_not-a-key").wantError(401, "unauthorized")
			// Well-formed (right checksum) but unknown.
			e.post(scope+path, `{}`, "X-API-Key", "sk_0000000000000000000000000000000000000000"+checksumOfZeros).wantError(401, "unauthorized")
		}
	}
}

// checksumOfZeros is the base62 CRC32 of forty '0's, so the key above is
// well formed and reaches the database lookup.
const checksumOfZeros = "2kaqcA"

func TestNewAPIKeyRotatesAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.key("ann@example.com", store.PlanStarter)
	fresh := e.post("/api/v1/new_api_key", nil, "X-API-Key", old).want(200).json()["api_key"].(string)
	if fresh == old || !strings.HasPrefix(fresh, "sk_") {
		t.Fatalf("rotated key %q", fresh)
	}
	e.post("/api/v1/user_info", nil, "X-API-Key", old).wantError(401, "unauthorized")
	e.post("/api/v1/new_api_key", nil, "X-API-Key", old).wantError(401, "unauthorized")
	e.post("/api/v1/user_info", nil, "X-API-Key", fresh).want(200)
}

func TestRegenerateNeedsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.key("ann@example.com", store.PlanStarter)
	e.post("/api/regenerate", nil).wantError(401, "login_required")
	e.post("/api/regenerate", nil, "Cookie", "forged").wantError(401, "login_required")
	// An API key is not a session.
	e.post("/api/regenerate", nil, "X-API-Key", old).wantError(401, "login_required")
	session := e.login("ann@example.com")
	fresh := e.post("/api/v1/regenerate", nil, "Cookie", session).want(200).json()["api_key"].(string)
	e.post("/api/v1/user_info", nil, "X-API-Key", old).wantError(401, "unauthorized")
	e.post("/api/v1/user_info", nil, "X-API-Key", fresh).want(200)
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

func TestUserInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	m := e.post("/api/user_info", nil, "X-API-Key", key).want(200).json()
	if m["email"] != "ann@example.com" || m["plan"] != "starter" || m["api_usage"] != float64(0) ||
		m["max_usage_for_plan"] != float64(100) || m["paid_until"] != nil {
		t.Fatalf("user_info = %v", m)
	}
	if _, ok := m["created_at"].(string); !ok || !strings.HasSuffix(m["created_at"].(string), "Z") {
		t.Fatalf("created_at %v is not RFC 3339 UTC", m["created_at"])
	}
	pro := e.key("pro@example.com", store.PlanPro)
	if m := e.post("/api/user_info", nil, "X-API-Key", pro).want(200).json(); m["max_usage_for_plan"] != nil || m["plan"] != "pro" {
		t.Fatalf("pro user_info = %v", m)
	}
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

func TestForgotPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	session := e.login("ann@example.com")
	known := e.post("/forgot-password", map[string]string{"email": "ann@example.com"}).want(200).json()
	unknown := e.post("/forgot-password", map[string]string{"email": "nobody@example.com"}).want(200).json()
	if known["message"] != unknown["message"] {
		t.Fatalf("answers differ, which tells who has an account: %v vs %v", known, unknown)
	}
	code := e.mail.resetCode(t, "ann@example.com")
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": "short"}).wantError(400, "weak_password")
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": "999999", "new_password": "a brand new long passphrase"}).wantError(400, "invalid_request")
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": "a brand new long passphrase"}).want(200)
	// The reset ended existing sessions, and the old password is gone.
	e.post("/api/regenerate", nil, "Cookie", session).wantError(401, "login_required")
	e.post("/login", map[string]string{"email": "ann@example.com", "password": testPassword}).wantError(401, "invalid_credentials")
	e.post("/login", map[string]string{"email": "ann@example.com", "password": "a brand new long passphrase"}).want(200)
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

func TestConcurrentRotationsLeaveOneKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.key("ann@example.com", store.PlanStarter)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e.post("/api/new_api_key", nil, "X-API-Key", old).status == http.StatusOK {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 1 {
		t.Fatalf("%d concurrent rotations of one key succeeded, want 1", ok)
	}
}

func TestAuditEventsSealTheClientIP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	e.login("ann@example.com")
	events, err := e.store.AuditEvents(t.Context(), 10, 0)
	if err != nil || len(events) == 0 {
		t.Fatalf("audit events %v, %v", events, err)
	}
	ev := events[0]
	if ev.Kind != store.AuditLoginOK || ev.SealedIP == "" || strings.Contains(ev.SealedIP, "192.0.2.1") {
		t.Fatalf("event %+v", ev)
	}
	ip, err := seal.Open(testServerKey, ev.SealedIP)
	if err != nil || string(ip) != "192.0.2.1" {
		t.Fatalf("opened %q, %v", ip, err)
	}
}
