package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/apikey"
)

// TestInviteSurvivesUntilVerification: an invitee who mistyped the email,
// or whose code expired, registers again with the same invite; the invite
// is spent when an account registered with it is verified, and the pages
// and messages in invite mode say what works.
func TestInviteSurvivesUntilVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withRegistration(server.RegistrationInvite), withAdminToken)
	link := e.post("/boss/invites/create", nil, "Authorization", "Bearer "+adminToken).want(200).json()["url"].(string)
	invite := link[strings.Index(link, "invite=")+len("invite="):]
	register := func(email string) response {
		return e.post("/register", map[string]string{"email": email, "password": testPassword, "invite": invite})
	}
	e.request("GET", "/register?invite="+invite, nil).want(200).has("works until your account is verified")
	register("typo@exmaple.com").want(200)
	register("ann@example.com").want(200)
	register("ann@example.com").want(200) // a new code, the same invite

	wrong := e.post("/register/verify", map[string]string{"email": "ann@example.com", "code": "000000", "password": testPassword}).wantError(400, "invalid_request")
	if msg := wrong["error"].(string); !strings.Contains(msg, "same invite link") || strings.HasSuffix(msg, "register again for a new code") {
		t.Fatalf("the wrong code's message in invite mode: %q", msg)
	}
	page := e.request("GET", "/register/verify?email=ann%40example.com", nil).want(200)
	if strings.Contains(string(page.body), `href="/register">Register again`) {
		t.Fatalf("the verify page offers /register, which needs the invite:\n%s", page.body)
	}
	page.has("same invite link")

	e.post("/register/verify", map[string]string{"email": "ann@example.com", "code": e.mail.lastCode(t, "ann@example.com"), "password": testPassword}).want(200)
	register("bob@example.com").wantError(403, "invalid_invite")
	e.post("/register/verify", map[string]string{"email": "typo@exmaple.com", "code": e.mail.lastCode(t, "typo@exmaple.com"), "password": testPassword}).wantError(403, "invalid_invite")
}

// TestVerifiedRegistrationIsLoggedIn: verifying a registration logs the
// user in (a browser goes to the dashboard, a JSON client gets the
// cookie), and a code pasted with spaces or a dash works.
func TestVerifiedRegistrationIsLoggedIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.form("/register", url.Values{"email": {"web@example.com"}, "password": {testPassword}}, "").want(303)
	code := e.mail.lastCode(t, "web@example.com")
	res := e.form("/register/verify", url.Values{"email": {"web@example.com"}, "code": {" " + code[:3] + " " + code[3:] + "\t"}, "password": {testPassword}}, "").want(303)
	if got := res.location(); got != "/dashboard?notice=verified" {
		t.Fatalf("after verifying, a browser goes to %q", got)
	}
	e.request("GET", res.location(), nil, "Cookie", sessionFrom(res)).want(200).has("web@example.com").has("you are logged in")

	e.post("/register", map[string]string{"email": "json@example.com", "password": testPassword}).want(200)
	code = e.mail.lastCode(t, "json@example.com")
	res = e.post("/register/verify", map[string]string{"email": "json@example.com", "code": code[:3] + "-" + code[3:], "password": testPassword}).want(200)
	if m := res.json(); m["status"] != "verified" {
		t.Fatalf("JSON answer %v", m)
	}
	session := sessionFrom(res)
	if session == "" {
		t.Fatal("verifying set no session cookie")
	}
	e.request(http.MethodGet, "/dashboard", nil, "Cookie", session).want(200).has("json@example.com")

	for _, page := range []string{"/register/verify", "/forgot-password/verify"} {
		e.request("GET", page, nil).want(200).has(`inputmode="numeric"`).has(`autocomplete="one-time-code"`)
	}
}

// TestStrangerCannotStopRecovery: a stranger who asks for the owner's
// reset codes and tries wrong ones, from another network, uses up their
// own share: the owner still gets a code and resets, and hears of it.
func TestStrangerCannotStopRecovery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("owner@example.com", "starter")
	stranger := []string{"RemoteAddr", "198.51.100.7:4000"}
	for range 6 {
		e.post("/forgot-password", map[string]string{"email": "owner@example.com"}, stranger...)
	}
	for range 11 {
		e.post("/forgot-password/verify", map[string]string{"email": "owner@example.com", "code": "000000", "new_password": "another long pass phrase"}, stranger...)
	}
	// The stranger's requests mail from a queue after their answers: wait
	// for all of them (its codes for the hour and the notice to the owner),
	// or one of its codes could land after the owner's and pass for it.
	var before, codes int
	told := false
	for deadline := time.Now().Add(10 * time.Second); (!told || codes < store.MaxCodesPerHour) && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		e.mail.mu.Lock()
		before, codes = len(e.mail.msgs), 0
		for _, m := range e.mail.msgs {
			told = told || strings.HasPrefix(m, "owner@example.com\nsecutil: codes asked for your account")
			if strings.HasPrefix(m, "owner@example.com\nsecutil password reset code: ") {
				codes++
			}
		}
		e.mail.mu.Unlock()
	}
	if !told || codes != store.MaxCodesPerHour {
		t.Fatalf("the stranger's requests mailed %d codes (want %d) and told the owner: %v", codes, store.MaxCodesPerHour, told)
	}
	e.post("/forgot-password", map[string]string{"email": "owner@example.com"}).want(200)
	var code string
	for deadline := time.Now().Add(10 * time.Second); code == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		e.mail.mu.Lock()
		for _, m := range e.mail.msgs[before:] {
			if strings.HasPrefix(m, "owner@example.com\nsecutil password reset code: ") {
				code = codePattern.FindString(m)
			}
		}
		e.mail.mu.Unlock()
	}
	e.post("/forgot-password/verify", map[string]string{"email": "owner@example.com", "code": code,
		"new_password": "another long pass phrase"}).want(200)
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
