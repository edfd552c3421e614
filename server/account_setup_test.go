package server_test

import (
	"context"
	"crypto/sha1"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/breach"
)

// breachedPassphrase is long and rated strong: only a breach file refuses it.
const breachedPassphrase = "orchid lantern quarry melody"

// withBreachFile serves a small Pwned Passwords file holding
// breachedPassphrase, seen 12 times.
func withBreachFile(t *testing.T) func(*server.Deps) {
	path := filepath.Join(t.TempDir(), "pwned.txt")
	line := fmt.Sprintf("%X:12\r\n", sha1.Sum([]byte(breachedPassphrase)))
	if err := os.WriteFile(path, []byte("0000000000000000000000000000000000000001:5\r\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := breach.OpenFile(path, breach.KindSHA1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func(d *server.Deps) { d.Breach = breach.NewFileSource(f) }
}

// estimatorRefuses are passwords the old policy accepted and the estimator
// rates 0 or 1.
var estimatorRefuses = []string{"passwordpassword", "123456789012345", "qwertyuiopasdfg", "Password1234567", "p@ssw0rdp@ssw0rd"}

func TestAccountPasswordsFollowTheEstimatorAndTheBreachFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBreachFile(t), func(d *server.Deps) {
		plenty := server.Rate{Burst: 100, Per: time.Minute}
		d.Limits = &server.Limits{PerIP: plenty, PerClientAccount: plenty, PerAccount: plenty}
	})
	e.account("ann@example.com", store.PlanStarter)
	// One reset code: a refused password never spends it.
	e.post("/forgot-password", map[string]string{"email": "ann@example.com"}).want(200)
	code := e.mail.resetCode(t, "ann@example.com")
	refused := append(slices.Clone(estimatorRefuses), breachedPassphrase)
	for _, password := range refused {
		t.Run(password, func(t *testing.T) {
			e := e.in(t)
			m := e.post("/register", map[string]string{"email": "new@example.com", "password": password}).wantError(400, "weak_password")
			msg := m["error"].(string)
			switch password {
			case breachedPassphrase:
				if !strings.Contains(msg, "breached passwords (seen 12 times)") {
					t.Fatalf("refusal %q", msg)
				}
			case "passwordpassword": // this test's common-password list
				if !strings.Contains(msg, "commonly used") {
					t.Fatalf("refusal %q", msg)
				}
			default:
				if !strings.Contains(msg, "too easy to guess") || !strings.Contains(msg, "Add another word or two.") {
					t.Fatalf("refusal without the estimator's feedback: %q", msg)
				}
			}
			e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": password}).wantError(400, "weak_password")
		})
	}
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": "amber glacier pocket violin"}).want(200)
	if _, err := e.store.AccountByEmail(context.Background(), "new@example.com"); err == nil {
		t.Fatal("a refused password created an account")
	}
}

func TestPasswordCheckReportsBreaches(t *testing.T) {
	t.Parallel()
	t.Run("without a breach file, breached is null", func(t *testing.T) {
		e := newEnv(t)
		key := e.key("ann@example.com", store.PlanPro)
		m := e.post("/api/v1/password_check", map[string]string{"password": breachedPassphrase}, "X-API-Key", key).want(200).json()
		if v, ok := m["breached"]; !ok || v != nil || m["score"] != float64(4) {
			t.Fatalf("%v", m)
		}
	})
	t.Run("with one, the count; a breached password scores 0", func(t *testing.T) {
		e := newEnv(t, withBreachFile(t))
		key := e.key("ann@example.com", store.PlanPro)
		m := e.post("/api/v1/password_check", map[string]string{"password": breachedPassphrase}, "X-API-Key", key).want(200).json()
		feedback, _ := m["feedback"].([]any)
		if m["breached"] != float64(12) || m["score"] != float64(0) || m["label"] != "very weak" ||
			len(feedback) == 0 || !strings.Contains(feedback[0].(string), "appeared 12 times in data breaches") ||
			m["estimated_crack_time"] != "less than a second" {
			t.Fatalf("%v", m)
		}
		m = e.post("/password_check", map[string]string{"password": "amber glacier pocket violin"}, "X-API-Key", key).want(200).json()
		if m["breached"] != float64(0) || m["score"] != float64(4) {
			t.Fatalf("%v", m)
		}
	})
}

func TestPagesWithoutMail(t *testing.T) {
	t.Parallel()
	noMail := newEnv(t, func(d *server.Deps) { d.Mailer = nil })
	withMail := newEnv(t)
	for _, path := range []string{"/register", "/register/verify", "/forgot-password", "/forgot-password/verify"} {
		noMail.request("GET", path, nil).want(200).has("This server has no mail configured: ask its operator for")
		if page := string(withMail.request("GET", path, nil).want(200).body); strings.Contains(page, "no mail configured") {
			t.Errorf("%s says no mail on a server with mail", path)
		}
	}
	withMail.request("GET", "/register/verify", nil).has("Enter the 6-digit code we sent")
	register := map[string]string{"email": "new@example.com", "password": testPassword}
	if m := noMail.post("/register", register).want(200).json(); !strings.Contains(m["message"].(string), "ask its operator") {
		t.Errorf("register without mail: %v", m)
	}
	if m := withMail.post("/register", register).want(200).json(); !strings.Contains(m["message"].(string), "check your mail") {
		t.Errorf("register with mail: %v", m)
	}
}

func withRegistration(policy string) func(*server.Deps) {
	return func(d *server.Deps) { d.Registration = policy }
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
