package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/passhash"
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

	// A wrong password (a right one gets "wrong code: N tries left").
	wrong := e.post("/register/verify", map[string]string{"email": "ann@example.com", "code": "000000", "password": "not the one registered"}).wantError(400, "invalid_request")
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

// TestParseRegistration: the three names are the three policies, which
// answer the routes' questions; every other name is refused with the
// message serve prints for -registration.
func TestParseRegistration(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]struct{ closed, byInvite bool }{
		server.RegistrationOpen:   {false, false},
		server.RegistrationClosed: {true, false},
		server.RegistrationInvite: {false, true},
	} {
		p, err := server.ParseRegistration(name)
		if err != nil || string(p) != name || p.Closed() != want.closed || p.ByInvite() != want.byInvite {
			t.Errorf("ParseRegistration(%q) = %q (closed %v, by invite %v), %v", name, p, p.Closed(), p.ByInvite(), err)
		}
	}
	for _, name := range []string{"", "Open", " open", "sometimes", "invite\x00"} {
		if _, err := server.ParseRegistration(name); err == nil || err.Error() != "registration must be open, closed or invite" {
			t.Errorf("ParseRegistration(%q) = %v, want the refusal", name, err)
		}
	}
}

func FuzzParseRegistration(f *testing.F) {
	f.Add("invite")
	f.Add("sometimes")
	f.Fuzz(func(t *testing.T, name string) {
		p, err := server.ParseRegistration(name)
		known := name == server.RegistrationOpen || name == server.RegistrationClosed || name == server.RegistrationInvite
		if known != (err == nil) || (known && string(p) != name) {
			t.Fatalf("ParseRegistration(%q) = %q, %v", name, p, err)
		}
	})
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

// TestStrangerCannotSilentlyReplaceAPendingPassword: once a stranger's
// codes for the hour were used up, registering the owner's pending email
// again still replaced its password, and mailed nothing: the owner's code
// then failed with no word why. Now such a registration changes nothing
// (and answers as any other); every replacement goes with a code mailed
// to the owner, saying the address was registered again; and the owner's
// failed verification says that only the newest registration's code and
// password go together.
func TestStrangerCannotSilentlyReplaceAPendingPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const email = "owner@example.com"
	const owners = "quiet harbour lantern mosaic"
	stranger := []string{"RemoteAddr", "203.0.113.5:1"}
	e.post("/register", map[string]string{"email": email, "password": owners}, ownerAddr...).want(200)
	for i := range store.MaxCodesPerHour {
		e.post("/register", map[string]string{"email": email, "password": fmt.Sprintf("stranger's pass phrase %d", i)}, stranger...).want(200)
		if mail := e.mail.last(t, email); !strings.Contains(mail, "This address was registered again") {
			t.Fatalf("the code of a registration again does not say so:\n%s", mail)
		}
	}
	mails := e.mail.count()
	e.post("/register", map[string]string{"email": email, "password": "the stranger's silent one"}, stranger...).want(200)
	last := fmt.Sprintf("stranger's pass phrase %d", store.MaxCodesPerHour-1)
	if ok, _ := passhash.Verify(last, e.accountOf(email).PasswordHash); !ok {
		t.Fatal("a registration past the stranger's codes replaced the password")
	}
	if e.mail.count() != mails+1 || !strings.Contains(e.mail.last(t, email), "secutil: codes asked for your account") {
		t.Fatalf("the owner was not told, and only told: %d mails, the last:\n%s", e.mail.count()-mails, e.mail.last(t, email))
	}
	failed := e.post("/register/verify", map[string]string{"email": email, "code": e.mail.lastCode(t, email), "password": owners}, ownerAddr...).
		wantError(400, "invalid_request")["error"].(string)
	if !strings.Contains(failed, "only the newest code mailed for this address works, with the password of the registration that sent it") {
		t.Fatalf("the owner's failed verification says %q", failed)
	}
	// The owner registers again, from their own network, and gets in.
	e.post("/register", map[string]string{"email": email, "password": owners}, ownerAddr...).want(200)
	e.post("/register/verify", map[string]string{"email": email, "code": e.mail.lastCode(t, email), "password": owners}, ownerAddr...).want(200)
}

// TestWrongCodeSaysTriesLeft: a mistyped code answered that the code or
// the password was wrong and to register again. A registrant (who gave the
// pending account's password) is told it was the code, with the tries
// left, and a browser stays on the verify form with the email kept; the
// last try and a dead code say to register again.
func TestWrongCodeSaysTriesLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const email = "new@example.com"
	e.post("/register", map[string]string{"email": email, "password": testPassword}).want(200)
	right := e.mail.lastCode(t, email)
	wrong := "000000"
	if right == wrong {
		wrong = "111111"
	}
	verify := map[string]string{"email": email, "code": wrong, "password": testPassword}
	if msg := e.post("/register/verify", verify).wantError(400, "invalid_request")["error"]; msg != "wrong code: 4 tries left" {
		t.Fatalf("the first wrong code: %q", msg)
	}
	page := e.browse("POST", "/register/verify", url.Values{"email": {email}, "code": {wrong}, "password": {testPassword}}).want(400)
	page.has("Wrong code: 3 tries left.").has(`action="/register/verify"`).has(`value="` + email + `"`)
	if strings.Contains(string(page.body), "register again") {
		t.Fatal("a wrong code with tries left sends the user to register again")
	}
	e.post("/register/verify", verify).wantError(400, "invalid_request")
	e.post("/register/verify", verify).wantError(400, "invalid_request")
	if msg := e.post("/register/verify", verify).wantError(400, "invalid_request")["error"].(string); !strings.HasPrefix(msg, "wrong code, and that was the last try at it: register again") {
		t.Fatalf("the last wrong code: %q", msg)
	}
	verify["code"] = right
	if msg := e.post("/register/verify", verify).wantError(400, "invalid_request")["error"].(string); !strings.HasPrefix(msg, "this code no longer works") {
		t.Fatalf("the right code after the last try: %q", msg)
	}
	// Without the password, nothing is said of the code.
	verify["password"] = "not the registrant's password"
	if msg := e.post("/register/verify", verify).wantError(400, "invalid_request")["error"].(string); strings.Contains(msg, "tries left") || strings.Contains(msg, "no longer works") {
		t.Fatalf("a wrong password learns of the code: %q", msg)
	}
}

// last is the last mail to to.
func (m *mailbox) last(t *testing.T, to string) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.msgs) - 1; i >= 0; i-- {
		if strings.HasPrefix(m.msgs[i], to+"\n") {
			return m.msgs[i]
		}
	}
	t.Fatalf("no mail to %s", to)
	return ""
}

// count is how many mails went out.
func (m *mailbox) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.msgs)
}
