package server_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"secutil/store"
	"secutil/tools/apikey"
)

var tokenField = regexp.MustCompile(`name="token" value="([^"]+)"`)

func TestSetup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	token := apikey.NewToken()
	if err := e.store.SetSetupToken(context.Background(), apikey.Hash(token)); err != nil {
		t.Fatal(err)
	}
	e.account("ann@example.com", store.PlanStarter) // registered on the web before setup

	t.Run("a wrong token gets a page", func(t *testing.T) {
		e := e.in(t)
		res := e.request("GET", "/setup?token=wrong", nil).want(403).has("setup link is not valid")
		if strings.Contains(string(res.body), `action="/setup"`) || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
			t.Fatalf("wrong token page:\n%s", res.body)
		}
		e.request("GET", "/setup", nil).want(403)
		e.form("/setup", url.Values{"token": {"wrong"}, "email": {"boss@example.com"}, "password": {testPassword}}, "").want(403).has("not valid")
	})

	t.Run("the form keeps the token after a refusal", func(t *testing.T) {
		e := e.in(t)
		page := e.request("GET", "/setup?token="+token, nil).want(200)
		if m := tokenField.FindStringSubmatch(string(page.body)); m == nil || m[1] != token {
			t.Fatalf("setup form without its token:\n%s", page.body)
		}
		res := e.form("/setup", url.Values{"token": {token}, "email": {"boss@example.com"}, "password": {"Password1234567"}}, "").want(400)
		res.has("too easy to guess").has(`value="boss@example.com"`)
		if m := tokenField.FindStringSubmatch(string(res.body)); m == nil || m[1] != token {
			t.Fatal("the form shown again lost the token")
		}
		e.form("/setup", url.Values{"token": {token}, "email": {"ann@example.com"}, "password": {testPassword}}, "").want(400).has("already has a verified account")
	})

	t.Run("creates a verified pro admin and logs it in", func(t *testing.T) {
		e := e.in(t)
		res := e.form("/setup", url.Values{"token": {token}, "email": {" boss@example.com "}, "password": {testPassword}}, "").want(303)
		if got, want := res.location(), "/admin?done=setup"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		e.request("GET", res.location(), nil, "Cookie", sessionFrom(res)).want(200).has("first administrator")
		a := e.accountOf("boss@example.com")
		if !a.Admin || !a.Verified || a.Plan != store.PlanPro {
			t.Fatalf("first admin %+v", a)
		}
	})

	t.Run("then the link is dead", func(t *testing.T) {
		e := e.in(t)
		e.request("GET", "/setup?token="+token, nil).want(410).has("Setup is done")
		e.post("/setup", map[string]string{"token": token, "email": "eve@example.com", "password": testPassword}).wantError(410, "setup_done")
	})
}

// TestSetupTakesOverAPendingRegistration: someone registered the
// operator's email before setup and chose its password; /setup takes the
// pending account over with the operator's password, so the registrant's
// password opens nothing, and no message hands the registrant admin rights.
func TestSetupTakesOverAPendingRegistration(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "setup-token-0123456789abcdef"
	if err := e.store.SetSetupToken(t.Context(), apikey.Hash(token)); err != nil {
		t.Fatal(err)
	}
	const squatter = "squatter's own long passphrase"
	e.post("/register", map[string]string{"email": "boss@example.com", "password": squatter}).want(200)
	res := e.form("/setup", url.Values{"token": {token}, "email": {"boss@example.com"}, "password": {testPassword}}, "").want(303)
	if strings.Contains(string(res.body), "-admin=true") || res.location() != "/admin?done=setup" {
		t.Fatalf("setup over a pending registration: %d %s %s", res.status, res.location(), res.body)
	}
	e.request("GET", "/admin", nil, "Cookie", sessionFrom(res)).want(200)
	e.post("/login", map[string]string{"email": "boss@example.com", "password": squatter}).wantError(401, "invalid_credentials")
	e.post("/register/verify", map[string]string{"email": "boss@example.com", "code": e.mail.lastCode(t, "boss@example.com"), "password": squatter}).wantError(400, "invalid_request")
	e.login("boss@example.com")
}
