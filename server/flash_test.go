package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"secutil/store"
)

// TestFreshKeyCookieSecureBehindTLSProxy: the cookie that carries a new
// key to the dashboard is Secure whenever the session cookie is: over TLS
// at a trusted proxy as well as over TLS served directly, and not when an
// untrusted peer only claims HTTPS.
func TestFreshKeyCookieSecureBehindTLSProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, behindProxy)
	e.account("ann@example.com", store.PlanStarter)
	session := e.login("ann@example.com")
	for i, c := range []struct {
		name, peer, proto string
		secure            bool
	}{
		{"trusted proxy, https", "10.0.0.5:443", "https", true},
		{"trusted proxy, http", "10.0.0.5:443", "http", false},
		{"untrusted peer claiming https", "192.0.2.1:1234", "https", false},
	} {
		req := httptest.NewRequest(http.MethodPost, "/dashboard/keys", strings.NewReader(url.Values{"name": {fmt.Sprintf("key%d", i)}}.Encode()))
		req.RemoteAddr = c.peer
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-Proto", c.proto)
		req.AddCookie(&http.Cookie{Name: "auth_session", Value: session})
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		res := response{t: t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		res.want(http.StatusSeeOther)
		flash := res.cookie("fresh_key")
		if flash == nil {
			t.Fatalf("%s: no fresh_key cookie", c.name)
		}
		if flash.Secure != c.secure {
			t.Errorf("%s: fresh_key Secure = %v, want %v", c.name, flash.Secure, c.secure)
		}
	}
}
