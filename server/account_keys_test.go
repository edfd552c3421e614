package server_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"secutil/store"
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

func TestDashboardKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("keys@example.com", store.PlanStarter)
	session := e.sessionCookie("keys@example.com")
	freshKey := regexp.MustCompile(`sk_[A-Za-z0-9]{46}`)
	var key, rotated string

	// issue posts a key form and follows its redirect as a browser does,
	// returning the dashboard that shows the key and the fresh-key cookie.
	issue := func(e *env, path, name string) (response, *http.Cookie) {
		e.t.Helper()
		res := e.browse("POST", path, url.Values{"name": {name}}, session).want(303)
		if got, want := res.location(), "/dashboard"; got != want {
			e.t.Fatalf("after %s: got %v, want %v", path, got, want)
		}
		flash := res.cookie("fresh_key")
		if flash == nil || flash.Path != "/dashboard" || !flash.HttpOnly || flash.MaxAge <= 0 {
			e.t.Fatalf("fresh_key cookie %+v: want an HttpOnly cookie for /dashboard", flash)
		}
		if strings.Contains(flash.Value, "sk_") {
			e.t.Fatal("the fresh key travels in clear in its cookie")
		}
		return e.browse("GET", "/dashboard", nil, session, flash).want(200), flash
	}

	t.Run("usage", func(t *testing.T) {
		e := e.in(t)
		e.fill(id, 1)
		e.request("GET", "/dashboard", nil, "Cookie", session.Value).want(200).has(`class="w5"`).has("1</span> / 100")
	})

	t.Run("an empty dashboard shows the first-key call-out with this server's address", func(t *testing.T) {
		e := e.in(t)
		page := e.browse("GET", "http://keys.example:9000/dashboard", nil, session).want(200)
		page.has(`id="first-key"`).has("curl -s -X POST http://keys.example:9000/api/v1/user_info")
	})

	t.Run("create shows the key once, and a reload shows none", func(t *testing.T) {
		e := e.in(t)
		page, flash := issue(e, "/dashboard/keys", "ci")
		if got := page.header.Get("Cache-Control"); got != "no-store" {
			t.Fatalf("a page with a fresh key has Cache-Control %q", got)
		}
		if key = freshKey.FindString(string(page.body)); key == "" {
			t.Fatalf("no fresh key on the page:\n%s", page.body)
		}
		page.has(`id="fresh-key-curl"`).has(`X-API-Key: ` + key)
		if c := page.cookie("fresh_key"); c == nil || c.MaxAge >= 0 {
			t.Fatalf("showing the key does not clear its cookie: %+v", c)
		}
		e.post("/api/user_info", nil, "X-API-Key", key).want(200)
		// The reload: the browser no longer holds the cookie.
		reload := e.browse("GET", "/dashboard", nil, session).want(200)
		if freshKey.Match(reload.body) || strings.Count(string(reload.body), key[:7]) != 1 {
			t.Fatal("a reload must show no key, and the list the key's prefix once")
		}
		// An altered cookie shows nothing.
		forged := *flash
		mid, swap := len(flash.Value)/2, "A"
		if flash.Value[mid] == 'A' {
			swap = "B"
		}
		forged.Value = flash.Value[:mid] + swap + flash.Value[mid+1:]
		if freshKey.Match(e.browse("GET", "/dashboard", nil, session, &forged).want(200).body) {
			t.Fatal("an altered fresh_key cookie was opened")
		}
		// Another account cannot use the cookie.
		e.account("other@example.com", store.PlanStarter)
		other := e.sessionCookie("other@example.com")
		if freshKey.Match(e.browse("GET", "/dashboard", nil, other, flash).want(200).body) {
			t.Fatal("another account's dashboard shows the key")
		}
	})

	t.Run("calls and last use per key, and the chart", func(t *testing.T) {
		e := e.in(t)
		for range 3 {
			e.post("/api/v1/generate_random_key", nil, "X-API-Key", key).want(200)
		}
		page := string(e.browse("GET", "/dashboard", nil, session).want(200).body)
		if !regexp.MustCompile(`data-label="Items this month" class="calls">3<`).MatchString(page) {
			t.Fatalf("the key table does not show 3 calls:\n%s", page)
		}
		if strings.Contains(page, "never") {
			t.Fatal("a used key shows as never used")
		}
		// 1 call from fill, 3 with the key.
		if !strings.Contains(page, `id="chart-this-total">4<`) || !strings.Contains(page, "<rect class=\"this\"") {
			t.Fatalf("the chart does not show this month's 4 calls:\n%s", page)
		}
	})

	t.Run("create refuses a name in use", func(t *testing.T) {
		e := e.in(t)
		e.browse("POST", "/dashboard/keys", url.Values{"name": {"ci"}}, session).want(409).has("A key named &#34;ci&#34; exists already").has(`id="keys"`)
	})

	t.Run("create refuses a bad name", func(t *testing.T) {
		e := e.in(t)
		e.browse("POST", "/dashboard/keys", url.Values{"name": {"bad name!"}}, session).want(400).has("key name")
	})

	t.Run("rotate revokes the old key", func(t *testing.T) {
		e := e.in(t)
		page, _ := issue(e, "/dashboard/keys/rotate", "ci")
		rotated = freshKey.FindString(string(page.body))
		if rotated == "" || rotated == key {
			t.Fatalf("rotation gave %q", rotated)
		}
		e.post("/api/user_info", nil, "X-API-Key", key).want(401)
	})

	t.Run("rotate refuses a name that has no key", func(t *testing.T) {
		e := e.in(t)
		e.browse("POST", "/dashboard/keys/rotate", url.Values{"name": {"nope"}}, session).want(404).has("There is no key named")
		if _, err := e.store.KeyByName(context.Background(), id, "nope"); err == nil {
			t.Fatal("rotating a missing name created a key")
		}
	})

	t.Run("revoke asks first", func(t *testing.T) {
		e := e.in(t)
		e.browse("GET", "/dashboard", nil, session).want(200).has(`href="/dashboard?revoke=ci#confirm-revoke"`)
		e.browse("GET", "/dashboard?revoke=ci", nil, session).want(200).has(`id="confirm-revoke"`).has("Revoke the key “ci”?")
		if strings.Contains(string(e.browse("GET", "/dashboard?revoke=nope", nil, session).want(200).body), `id="confirm-revoke"`) {
			t.Fatal("a confirmation for a key that does not exist")
		}
		e.post("/api/user_info", nil, "X-API-Key", rotated).want(200) // asking revoked nothing
	})

	t.Run("rotate asks first", func(t *testing.T) {
		e := e.in(t)
		e.browse("GET", "/dashboard", nil, session).want(200).has(`href="/dashboard?rotate=ci#confirm-rotate"`)
		e.browse("GET", "/dashboard?rotate=ci", nil, session).want(200).has(`id="confirm-rotate"`).has("Rotate the key “ci”?").has(`action="/dashboard/keys/rotate"`)
		if strings.Contains(string(e.browse("GET", "/dashboard?rotate=nope", nil, session).want(200).body), `id="confirm-rotate"`) {
			t.Fatal("a confirmation for a key that does not exist")
		}
		e.post("/api/user_info", nil, "X-API-Key", rotated).want(200) // asking rotated nothing
	})

	t.Run("revoke", func(t *testing.T) {
		e := e.in(t)
		res := e.browse("POST", "/dashboard/keys/revoke", url.Values{"name": {"ci"}}, session).want(303)
		if got, want := res.location(), "/dashboard?notice=key_revoked"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		e.post("/api/user_info", nil, "X-API-Key", rotated).want(401)
		e.browse("POST", "/dashboard/keys/revoke", url.Values{"name": {"ci"}}, session).want(404)
	})

	t.Run("needs a session from this site", func(t *testing.T) {
		e := e.in(t)
		// Without a session the browser goes to the login page, which comes
		// back to the dashboard; cross-site posts are refused.
		if got, want := e.browse("POST", "/dashboard/keys", url.Values{"name": {"x"}}).want(303).location(), "/login?next=%2Fdashboard"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		e.post("/dashboard/keys", "name=x", "Cookie", session.Value, "Sec-Fetch-Site", "cross-site",
			"Content-Type", "application/x-www-form-urlencoded").wantError(403, "cross_origin_request")
	})
}
