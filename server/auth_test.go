package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/seal"
)

// TestRevokedKeySaysWhenAndWhy: a key revoked on the dashboard, the old
// value of a rotated key, a key made again under its name, the keys of an
// account whose password was reset and those of a deleted account are
// each refused as revoked, with the date and why; a key never made here
// gets the unknown wording. All are 401 unauthorized.
func TestRevokedKeySaysWhenAndWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	before := time.Now().UTC()
	body := map[string]string{"text": "x", "option": "encode"}
	refusal := func(key string) string {
		t.Helper()
		return e.post("/api/v1/base64", body, "X-API-Key", key).wantError(http.StatusUnauthorized, "unauthorized")["error"].(string)
	}

	revoked := e.key("revoked@example.com", store.PlanStarter)
	e.post("/dashboard/keys/revoke", map[string]string{"name": "default"}, "Cookie", e.login("revoked@example.com")).want(http.StatusSeeOther) // a dashboard form

	rotated := e.key("rotated@example.com", store.PlanStarter)
	rotation := e.post("/api/v1/new_api_key", nil, "X-API-Key", rotated).want(http.StatusOK).json()["api_key"].(string)

	remade := e.key("remade@example.com", store.PlanStarter)
	e.post("/api/v1/get_api_key", map[string]string{"email": "remade@example.com", "password": testPassword}).want(http.StatusOK)

	reset := e.key("reset@example.com", store.PlanStarter)
	e.post("/forgot-password", map[string]string{"email": "reset@example.com"}).want(http.StatusOK)
	e.post("/forgot-password/verify", map[string]string{"email": "reset@example.com", "code": e.mail.resetCode(t, "reset@example.com"),
		"new_password": "a brand new long passphrase"}).want(http.StatusOK)

	deleted := e.key("deleted@example.com", store.PlanStarter)
	e.post("/account/delete", map[string]string{"password": testPassword}, "Cookie", e.login("deleted@example.com")).want(http.StatusOK)

	removed := e.key("removed@example.com", store.PlanStarter)
	e.post("/boss/accounts/delete", map[string]string{"email": "removed@example.com", "confirm": "removed@example.com"}, "Authorization", "Bearer "+adminToken).want(http.StatusOK)
	after := time.Now().UTC()

	for name, c := range map[string]struct{ key, why string }{
		"revoked on the dashboard": {revoked, "on the dashboard"},
		"rotated":                  {rotated, "a new key of the same name replaced it"},
		"made again by name":       {remade, "a new key of the same name replaced it"},
		"password reset":           {reset, "password was reset"},
		"account deleted":          {deleted, "with its account, which was deleted"},
		"deleted by an admin":      {removed, "with its account, which was deleted"},
	} {
		msg := refusal(c.key)
		date, rest, ok := strings.Cut(strings.TrimPrefix(msg, "this API key was revoked on "), ", ")
		if !ok || !strings.Contains(rest, c.why) || date != before.Format(time.DateOnly) && date != after.Format(time.DateOnly) {
			t.Errorf("%s: %q does not say it was revoked today (%s) %s", name, msg, before.Format(time.DateOnly), c.why)
		}
	}
	e.post("/api/v1/base64", body, "X-API-Key", rotation).want(http.StatusOK)
	if msg := refusal(apikey.New()); strings.Contains(msg, "revoked on") || !strings.Contains(msg, "never made on this server") {
		t.Errorf("a key never made here: %q", msg)
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

// TestKeyRefusalsSayWhatIsWrong: a missing key, a mistyped one and one
// that is revoked and one never made get four different 401 messages,
// each saying what to do.
func TestKeyRefusalsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("keys@example.com", store.PlanPro)
	revoked := key
	session := e.login("keys@example.com")
	e.post("/api/v1/regenerate", nil, "Cookie", session).want(http.StatusOK) // rotates the default key
	mistyped := key[:len(key)-1] + string(rune('a'+(key[len(key)-1]-'a'+1)%26))
	body := map[string]string{"text": "x", "option": "encode"}
	seen := map[string]string{}
	for name, c := range map[string]struct {
		key, says string
	}{
		"missing":   {"", "no API key"},
		"mistyped":  {mistyped, "copy the whole key again"},
		"truncated": {key[:20], "copy the whole key again"},
		"revoked":   {revoked, "revoked"},
		"unknown":   {apikey.New(), "never made on this server"},
	} {
		msg := e.post("/api/v1/base64", body, "X-API-Key", c.key).wantError(http.StatusUnauthorized, "unauthorized")["error"].(string)
		if !strings.Contains(msg, c.says) {
			t.Errorf("%s key: %q does not say %q", name, msg, c.says)
		}
		seen[msg] = name
	}
	if len(seen) != 4 {
		t.Errorf("%d distinct messages, want 4 (missing, mistyped, revoked, unknown): %v", len(seen), seen)
	}
}
