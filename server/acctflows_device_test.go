package server_test

import (
	"net/http"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

// TestDeviceCookieKeepsTheOwnerIn: guessers on other networks drain the
// account's login bucket; the owner's browser, which logged in before,
// still logs in with its device cookie. The cookie of another account,
// or an altered one, gives nothing.
func TestDeviceCookieKeepsTheOwnerIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		d.Limits = &server.Limits{PerIP: server.Rate{Burst: 30, Per: time.Hour}, PerClientAccount: server.Rate{Burst: 3, Per: time.Hour},
			PerAccount: server.Rate{Burst: 6, Per: time.Hour}, PublicHash: server.Rate{Burst: 1, Per: time.Hour}, Range: server.Rate{Burst: 1, Per: time.Hour}}
	})
	e.account("owner@example.com", store.PlanStarter)
	e.account("other@example.com", store.PlanStarter)
	owner := []string{"RemoteAddr", "192.0.2.10:1000"}
	login := func(email string, headers ...string) response {
		return e.post("/login", map[string]string{"email": email, "password": testPassword}, headers...)
	}
	deviceOf := func(r response) *http.Cookie {
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == "device" {
				return c
			}
		}
		t.Fatal("no device cookie")
		return nil
	}
	first := login("owner@example.com", owner...).want(200)
	device := deviceOf(first)
	if !device.HttpOnly || device.SameSite != http.SameSiteLaxMode || device.MaxAge < 300*24*3600 || device.Path != "/login" {
		t.Fatalf("device cookie %+v", device)
	}
	otherDevice := deviceOf(login("other@example.com", "RemoteAddr", "192.0.2.20:1000").want(200))

	// Guessers on 20 networks drain the account's bucket.
	for i := range 20 {
		e.post("/login", map[string]string{"email": "owner@example.com", "password": "a wrong guess, long enough"},
			"RemoteAddr", "[2001:db8:"+string(rune('a'+i))+"::1]:1000")
	}
	login("owner@example.com", owner...).wantError(429, "rate_limited")
	withCookie := func(c *http.Cookie) []string {
		// "cookie" in lower case: a raw Cookie header, not the session helper's.
		return append([]string{"cookie", c.Name + "=" + c.Value}, owner...)
	}
	login("owner@example.com", withCookie(otherDevice)...).wantError(429, "rate_limited")
	tampered := *device
	flipped := byte('A')
	if device.Value[30] == 'A' {
		flipped = 'B'
	}
	tampered.Value = device.Value[:30] + string(flipped) + device.Value[31:] // a byte of the MAC
	login("owner@example.com", withCookie(&tampered)...).wantError(429, "rate_limited")
	login("owner@example.com", withCookie(device)...).want(200)
}
