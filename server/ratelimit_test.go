package server_test

import (
	"net/http"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// TestGuessersElsewhereDoNotLockOutTheOwner: ten wrong tries a minute used
// to lock the owner out of login and key issuance, from anywhere.
func TestGuessersElsewhereDoNotLockOutTheOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the default limits
	e.account("ann@example.com", store.PlanStarter)
	wrong := map[string]string{"email": "ann@example.com", "password": "not the password at all"}
	limited := 0
	for range 50 {
		if e.post("/login", wrong, "RemoteAddr", "203.0.113.9:4000").status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited < 40 {
		t.Fatalf("only %d of 50 guesses from one address were refused", limited)
	}
	// The owner, on her own network, is not affected.
	e.login("ann@example.com")
	e.post("/api/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).want(200)
}

// TestIPv6ClientsAreLimitedPerSlash64: a host picking a fresh address from
// its /64 for every try is still one client; IPv4 clients are one address.
func TestIPv6ClientsAreLimitedPerSlash64(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		limits := server.DefaultLimits
		limits.PublicHash = server.Rate{Burst: 3, Per: 3600e9}
		d.Limits = &limits
	})
	lookup := func(peer string) int {
		return e.post("/api/hash_lookup_site", map[string]string{"hashes": md5Password}, "RemoteAddr", peer).status
	}
	for i, peer := range []string{"[2001:db8:1:2::1]:1", "[2001:db8:1:2:aaaa::7]:1", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:1"} {
		if got := lookup(peer); got != 200 {
			t.Fatalf("try %d: %d", i, got)
		}
	}
	if got := lookup("[2001:db8:1:2:1234::9]:1"); got != http.StatusTooManyRequests {
		t.Fatalf("a fourth address of the same /64: %d, want 429", got)
	}
	if got := lookup("[2001:db8:1:3::1]:1"); got != 200 {
		t.Fatalf("the next /64: %d, want 200", got)
	}
	for i := range 3 {
		lookup("198.51.100.1:1")
		if i == 2 {
			if got := lookup("198.51.100.2:1"); got != 200 {
				t.Fatalf("a neighbouring IPv4 address: %d, want 200", got)
			}
		}
	}
}

// TestOverlongEmailsAreRefusedBeforeTheLimiter: 600 requests with 1 MiB
// emails used to keep about 1 GiB resident in the limiter's keys.
func TestOverlongEmailsAreRefusedBeforeTheLimiter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("a", 255-len("@example.com")) + "@example.com"
	huge := strings.Repeat("a", 1<<19) + "@example.com"
	for _, path := range []string{"/login", "/api/get_api_key", "/register", "/register/verify", "/forgot-password", "/forgot-password/verify"} {
		for _, email := range []string{long, huge} {
			body := map[string]string{"email": email, "password": testPassword, "code": "123456", "new_password": testPassword + " again"}
			res := e.post(path, body)
			if len(email) > 8<<10 { // past the account forms' body limit, unread
				res.wantError(http.StatusRequestEntityTooLarge, "request_too_large")
				continue
			}
			if res.status != http.StatusBadRequest || !strings.Contains(string(res.body), "email") {
				t.Errorf("%s with a %d-byte email: %d %.200s", path, len(email), res.status, res.body)
			}
		}
	}
}
