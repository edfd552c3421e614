package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"secutil/server"
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

func TestRegistrationPolicies(t *testing.T) {
	t.Parallel()
	register := map[string]string{"email": "new@example.com", "password": testPassword}

	t.Run("open", func(t *testing.T) {
		e := newEnv(t)
		for _, path := range []string{"/", "/login"} {
			e.request("GET", path, nil).want(200).has(`href="/register"`)
		}
		e.post("/register", register).want(200)
	})

	t.Run("closed", func(t *testing.T) {
		e := newEnv(t, withRegistration(server.RegistrationClosed))
		e.post("/register", register).wantError(403, "registration_closed")
		e.post("/register", map[string]string{"email": "not an email", "password": "x"}).wantError(403, "registration_closed")
		page := e.request("GET", "/register", nil).want(403).has("Registration is closed on this server")
		if strings.Contains(string(page.body), `action="/register"`) {
			t.Fatal("the closed register page shows the form")
		}
		e.form("/register", url.Values{"email": {"new@example.com"}, "password": {testPassword}}, "").want(403).has("Registration is closed")
		for _, path := range []string{"/", "/login", "/tools"} {
			if body := string(e.request("GET", path, nil).want(200).body); strings.Contains(body, `href="/register"`) || strings.Contains(body, "Create an account") {
				t.Errorf("%s offers registration on a closed server", path)
			}
		}
		if _, err := e.store.AccountByEmail(context.Background(), "new@example.com"); err == nil {
			t.Fatal("a closed server created an account")
		}
	})

	t.Run("invite", func(t *testing.T) {
		e := newEnv(t, withRegistration(server.RegistrationInvite), withAdminToken)
		now := time.Now()
		e.store.SetClock(func() time.Time { return now })
		e.post("/register", register).wantError(403, "registration_closed")
		e.request("GET", "/register", nil).want(403).has("needs an invite")

		m := e.post("/boss/invites/create", nil, "Authorization", "Bearer "+adminToken).want(200).json()
		link, _ := m["url"].(string)
		if !strings.HasPrefix(link, "http://example.com/register?invite=") || // the request's own origin
			m["expires_at"] != now.Add(7*24*time.Hour).UTC().Format(time.RFC3339) {
			t.Fatalf("invite %v", m)
		}
		invite := strings.TrimPrefix(link, "http://example.com/register?invite=")
		e.request("GET", "/register?invite=wrong", nil).want(403).has("This invite is unknown, used or expired")
		e.request("GET", "/register?invite="+invite, nil).want(200).has(`name="invite" value="` + invite + `"`)

		withInvite := map[string]string{"email": "new@example.com", "password": testPassword, "invite": invite}
		e.post("/register", map[string]string{"email": "new@example.com", "password": "short", "invite": invite}).wantError(400, "weak_password")
		// A refused password keeps the invite; the form shows it again.
		e.form("/register", url.Values{"email": {"new@example.com"}, "password": {"short"}, "invite": {invite}}, "").want(400).has(`value="` + invite + `"`)
		e.post("/register", withInvite).want(200)
		// The invite is spent at verification (acctflows_register_test.go).
		e.post("/register/verify", map[string]string{"email": "new@example.com", "code": e.mail.lastCode(t, "new@example.com"), "password": testPassword}).want(200)
		withInvite["email"] = "second@example.com"
		e.post("/register", withInvite).wantError(403, "invalid_invite")

		later := e.post("/boss/invites/create", nil, "Authorization", "Bearer "+adminToken).want(200).json()["url"].(string)
		now = now.Add(7*24*time.Hour + time.Second)
		e.post("/register", map[string]string{"email": "late@example.com", "password": testPassword,
			"invite": later[strings.Index(later, "invite=")+len("invite="):]}).wantError(403, "invalid_invite")
	})

	t.Run("invites only where registration needs them", func(t *testing.T) {
		e := newEnv(t, withAdminToken)
		e.post("/boss/invites/create", nil, "Authorization", "Bearer "+adminToken).wantError(409, "invites_off")
	})
}

// TestPendingRegistrationCannotBeHijacked: re-registering a pending email
// replaced its password, so the victim who entered the newest code
// verified an account that opened with the attacker's password. Now
// verification asks for the password again.
func TestPendingRegistrationCannotBeHijacked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, relaxedLimits)
	const victim = "victim owns this mailbox"
	const attacker = "attacker chose this one"
	e.post("/register", map[string]string{"email": "v@example.com", "password": victim}).want(200)
	e.post("/register", map[string]string{"email": "v@example.com", "password": attacker}, "RemoteAddr", "203.0.113.5:1").want(200)
	// The victim enters the newest code, with the only password she knows.
	e.post("/register/verify", map[string]string{"email": "v@example.com", "code": e.mail.lastCode(t, "v@example.com"), "password": victim}).
		wantError(400, "invalid_request")
	if e.accountOf("v@example.com").Verified {
		t.Fatal("the account was activated with the attacker's password")
	}
	// Registering again, she gets a code that works with her password.
	e.post("/register", map[string]string{"email": "v@example.com", "password": victim}).want(200)
	e.post("/register/verify", map[string]string{"email": "v@example.com", "code": e.mail.lastCode(t, "v@example.com"), "password": victim}).want(200)
	e.post("/login", map[string]string{"email": "v@example.com", "password": attacker}).wantError(401, "invalid_credentials")
	e.post("/login", map[string]string{"email": "v@example.com", "password": victim}).want(200)
}
