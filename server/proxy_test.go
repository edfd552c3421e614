package server_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/seal"
)

func behindProxy(d *server.Deps) {
	d.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	limits := server.DefaultLimits
	limits.PublicHash = server.Rate{Burst: 1, Per: 3600e9}
	d.Limits = &limits
}

// TestForwardedForIsBelievedOnlyFromTrustedProxies: the limiter counts the
// client a trusted proxy names, and ignores the header from anyone else.
func TestForwardedForIsBelievedOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, behindProxy)
	lookup := func(peer string, xff ...string) int {
		headers := []string{"RemoteAddr", peer}
		for _, v := range xff {
			headers = append(headers, "X-Forwarded-For", v)
		}
		return e.post("/api/hash_lookup_site", map[string]string{"hashes": md5Password}, headers...).status
	}
	// Two clients behind the proxy get a bucket each.
	for _, client := range []string{"198.51.100.1", "198.51.100.2"} {
		if got := lookup("10.0.0.5:443", client); got != 200 {
			t.Fatalf("client %s behind the proxy: %d", client, got)
		}
	}
	// A client cannot pick its bucket by writing the header itself: the
	// proxy appends the real address, and that one counts.
	if got := lookup("10.0.0.5:443", "203.0.113.77, 198.51.100.1"); got != http.StatusTooManyRequests {
		t.Fatalf("a spoofed leftmost entry: %d, want 429 (198.51.100.1's bucket)", got)
	}
	// Through two proxies the client is the first untrusted hop from the right.
	if got := lookup("10.0.0.5:443", "198.51.100.2, 10.9.9.9"); got != http.StatusTooManyRequests {
		t.Fatalf("two proxies: %d, want 429 (198.51.100.2's bucket)", got)
	}
	// From a peer that is not a proxy, the header is ignored.
	if got := lookup("192.0.2.50:1", "198.51.100.3"); got != 200 {
		t.Fatalf("first call from 192.0.2.50: %d", got)
	}
	if got := lookup("192.0.2.50:1", "198.51.100.4"); got != http.StatusTooManyRequests {
		t.Fatalf("an untrusted peer's X-Forwarded-For was believed: %d", got)
	}
}

// TestForwardedClientReachesTheAuditLog: the sealed IP of an event is the
// client the trusted proxy named, not the proxy.
func TestForwardedClientReachesTheAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, behindProxy)
	e.account("ann@example.com", store.PlanStarter)
	creds := map[string]string{"email": "ann@example.com", "password": testPassword}
	e.post("/login", creds, "RemoteAddr", "10.0.0.5:443", "X-Forwarded-For", "198.51.100.9").want(200)
	e.post("/login", creds, "RemoteAddr", "192.0.2.50:1", "X-Forwarded-For", "198.51.100.10").want(200)
	events, err := e.store.AuditEvents(t.Context(), 2, 0)
	if err != nil || len(events) != 2 {
		t.Fatalf("%v %v", events, err)
	}
	for i, want := range []string{"192.0.2.50", "198.51.100.9"} {
		ip, err := seal.Open(testServerKey, events[i].SealedIP)
		if err != nil || string(ip) != want {
			t.Errorf("event %d: %q, %v; want %s", i, ip, err, want)
		}
	}
}

// TestHTTPSBehindTrustedProxy: X-Forwarded-Proto from a trusted proxy
// makes the session cookie Secure and sends HSTS; so does TLS served
// directly; from anyone else it changes nothing.
func TestHTTPSBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, behindProxy)
	e.account("ann@example.com", store.PlanStarter)
	creds := map[string]string{"email": "ann@example.com", "password": testPassword}
	for _, tc := range []struct {
		name    string
		headers []string
		https   bool
	}{
		{"trusted proxy, https", []string{"RemoteAddr", "10.0.0.5:443", "X-Forwarded-Proto", "https"}, true},
		{"trusted proxy, http", []string{"RemoteAddr", "10.0.0.5:443", "X-Forwarded-Proto", "http"}, false},
		{"untrusted peer claiming https", []string{"X-Forwarded-Proto", "https"}, false},
	} {
		res := e.post("/login", creds, tc.headers...).want(200)
		secure := strings.Contains(res.header.Get("Set-Cookie"), "Secure")
		hsts := res.header.Get("Strict-Transport-Security") != ""
		if secure != tc.https || hsts != tc.https {
			t.Errorf("%s: Secure cookie %v, HSTS %v; want %v", tc.name, secure, hsts, tc.https)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/health", nil)
	req.TLS = &tls.ConnectionState{}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Header().Get("Strict-Transport-Security") == "" {
		t.Fatal("no HSTS when serving TLS")
	}
}

// TestAllowedHostsRefuseOtherHosts: a DNS-rebinding page reaches a loopback
// server under its own name; that Host gets 421.
func TestAllowedHostsRefuseOtherHosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) { d.AllowedHosts = []string{"localhost", "127.0.0.1", "::1", "Secutil.Example"} })
	for _, host := range []string{"localhost:8080", "127.0.0.1", "[::1]:8080", "secutil.example", "SECUTIL.example."} {
		if res := e.request(http.MethodGet, "/health", nil, "Host", host); res.status != 200 {
			t.Errorf("Host %s: %d", host, res.status)
		}
	}
	for _, host := range []string{"attacker.example", "attacker.example:8080", "localhost.attacker.example"} {
		e.request(http.MethodGet, "/health", nil, "Host", host).wantError(http.StatusMisdirectedRequest, "host_not_allowed")
	}
	// A load balancer's health check may send no Host (HAProxy's default
	// option httpchk); only /health answers it.
	if res := e.request(http.MethodGet, "/health", nil, "Host", ""); res.status != 200 {
		t.Errorf("/health without Host: %d", res.status)
	}
	for _, path := range []string{"/", "/robots.txt", "/health/", "/metrics"} {
		e.request(http.MethodGet, path, nil, "Host", "").wantError(http.StatusMisdirectedRequest, "host_not_allowed")
	}
	e.post("/api/v1/get_api_key", map[string]string{"email": "a@b.c"}, "Host", "").wantError(http.StatusMisdirectedRequest, "host_not_allowed")
	e.post("/api/v1/get_api_key", map[string]string{"email": "a@b.c"}, "Host", "attacker.example").wantError(http.StatusMisdirectedRequest, "host_not_allowed")
	// Without a list, any Host is served (a server bound to a public address).
	if res := newEnv(t).request(http.MethodGet, "/health", nil, "Host", "anything.example"); res.status != 200 {
		t.Fatalf("no list: %d", res.status)
	}
}
