package server_test

import (
	"net/http"
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

// ownerAddr is the network of the account's owner in these tests.
var ownerAddr = []string{"RemoteAddr", "192.0.2.10:1000"}

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

func (e *env) ownerLogin(email string, headers ...string) response {
	return e.post("/login", map[string]string{"email": email, "password": testPassword}, headers...)
}

// drainLogins has guessers on 20 networks drain email's login bucket, so
// that the owner's next login without a device cookie is refused.
func (e *env) drainLogins(t *testing.T, email string) {
	t.Helper()
	for i := range 20 {
		e.post("/login", map[string]string{"email": email, "password": "a wrong guess, long enough"},
			"RemoteAddr", "[2001:db8:"+string(rune('a'+i))+"::1]:1000")
	}
	e.ownerLogin(email, ownerAddr...).wantError(429, "rate_limited")
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
