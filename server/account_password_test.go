package server_test

import (
	"context"
	"crypto/sha1"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/breach"
)

func TestForgotPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	session := e.login("ann@example.com")
	known := e.post("/forgot-password", map[string]string{"email": "ann@example.com"}).want(200).json()
	unknown := e.post("/forgot-password", map[string]string{"email": "nobody@example.com"}).want(200).json()
	if known["message"] != unknown["message"] {
		t.Fatalf("answers differ, which tells who has an account: %v vs %v", known, unknown)
	}
	code := e.mail.resetCode(t, "ann@example.com")
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": "short"}).wantError(400, "weak_password")
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": "999999", "new_password": "a brand new long passphrase"}).wantError(400, "invalid_request")
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": "a brand new long passphrase"}).want(200)
	// The reset ended existing sessions, and the old password is gone.
	e.post("/api/regenerate", nil, "Cookie", session).wantError(401, "login_required")
	e.post("/login", map[string]string{"email": "ann@example.com", "password": testPassword}).wantError(401, "invalid_credentials")
	e.post("/login", map[string]string{"email": "ann@example.com", "password": "a brand new long passphrase"}).want(200)
}

// TestOwnPasswordChange: a logged-in user changes their password with the
// current one, under the registration's policy; every other session ends,
// this one stays, and the API keys stay unless the user asks.
func TestOwnPasswordChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	mine, other := e.login("ann@example.com"), e.login("ann@example.com")
	change := func(body map[string]any, session string) response {
		return e.post("/account/password", body, "Cookie", session)
	}

	change(map[string]any{"current_password": testPassword, "new_password": newTestPassword}, "").wantError(401, "login_required")
	change(map[string]any{"current_password": testPassword}, mine).wantError(400, "missing_field")
	change(map[string]any{"current_password": "wrong password", "new_password": newTestPassword}, mine).wantError(401, "invalid_credentials")
	change(map[string]any{"current_password": testPassword, "new_password": "short"}, mine).wantError(400, "weak_password")
	e.post("/account/password", map[string]any{"current_password": testPassword, "new_password": newTestPassword},
		"Cookie", mine, "Sec-Fetch-Site", "cross-site").wantError(403, "cross_origin_request")
	e.request("GET", "/account", nil, "Cookie", other).want(200) // nothing changed yet

	changed := change(map[string]any{"current_password": testPassword, "new_password": newTestPassword}, mine).want(200)
	if res := changed.json(); res["status"] != "password_changed" {
		t.Fatalf("answer %v", res)
	}
	e.request("GET", "/account", nil, "Cookie", other).want(303) // to log in
	mine = sessionFrom(changed)                                  // the caller's fresh session (TestPasswordChangeReplacesOwnSession)
	e.request("GET", "/account", nil, "Cookie", mine).want(200)
	e.post("/api/v1/user_info", nil, "X-API-Key", key).want(200)
	e.post("/login", map[string]string{"email": "ann@example.com", "password": testPassword}).wantError(401, "invalid_credentials")
	e.post("/login", map[string]string{"email": "ann@example.com", "password": newTestPassword}).want(200)
	fresh := e.post("/api/v1/regenerate", nil, "Cookie", mine).want(200).json()["api_key"].(string)

	// Asking for it revokes every key.
	mine = sessionFrom(change(map[string]any{"current_password": newTestPassword, "new_password": testPassword, "revoke_keys": true}, mine).want(200))
	e.post("/api/v1/user_info", nil, "X-API-Key", fresh).wantError(401, "unauthorized")
	e.post("/api/v1/regenerate", nil, "Cookie", mine).want(200)
}

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

// blockingMailer holds every mail until released, like a slow SMTP relay.
type blockingMailer struct {
	*mailbox
	release chan struct{}
}

func (b *blockingMailer) Send(ctx context.Context, to, subject, body string) error {
	<-b.release
	return b.mailbox.Send(ctx, to, subject, body)
}

// TestForgotPasswordAnswersBeforeTheMail: with SMTP on, the mail was sent
// inline only for real accounts, so timing told who had one (78 of 80
// guesses right). Now every request answers before any mail work.
func TestForgotPasswordAnswersBeforeTheMail(t *testing.T) {
	t.Parallel()
	slow := &blockingMailer{release: make(chan struct{})}
	e := newEnv(t, func(d *server.Deps) { d.Mailer = slow })
	slow.mailbox = e.mail
	e.account("ann@example.com", store.PlanStarter)
	var once sync.Once
	defer once.Do(func() { close(slow.release) })
	for _, email := range []string{"ann@example.com", "nobody@example.com"} {
		done := make(chan response, 1)
		go func() { done <- e.post("/forgot-password", map[string]string{"email": email}) }()
		select {
		case res := <-done:
			res.want(200)
		case <-time.After(5 * time.Second):
			t.Fatalf("/forgot-password for %s waited for the mail", email)
		}
	}
	once.Do(func() { close(slow.release) })
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": e.mail.resetCode(t, "ann@example.com"),
		"new_password": "a brand new long passphrase"}).want(200)
}

// TestResetRevokesAPIKeys: a reset ended sessions but left every API key
// working. It now revokes them unless the request says not to, and the
// form offers that choice, checked.
func TestResetRevokesAPIKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, relaxedLimits)
	reset := func(email string, extra url.Values) {
		t.Helper()
		e.form("/forgot-password", url.Values{"email": {email}}, "").want(303)
		values := url.Values{"email": {email}, "code": {e.mail.resetCode(t, email)}, "new_password": {"a brand new long passphrase"}}
		for k, v := range extra {
			values[k] = v
		}
		e.form("/forgot-password/verify", values, "").want(303)
	}
	page := string(e.request("GET", "/forgot-password/verify", nil).want(200).body)
	for _, want := range []string{`name="revoke_api_keys" value="true" checked`, "Revoke all API keys"} {
		if !contains(page, want) {
			t.Fatalf("the reset form lacks %q", want)
		}
	}
	ann := e.key("ann@example.com", store.PlanPro)
	reset("ann@example.com", url.Values{"revoke_api_keys": {"true", "false"}}) // the box as sent when checked
	e.meteredCall(ann).wantError(401, "unauthorized")

	bob := e.key("bob@example.com", store.PlanPro)
	reset("bob@example.com", url.Values{"revoke_api_keys": {"false"}}) // unchecked: only the hidden field
	e.meteredCall(bob).want(200)

	// A JSON client gets the safe default.
	cy := e.key("cy@example.com", store.PlanPro)
	e.post("/forgot-password", map[string]string{"email": "cy@example.com"}).want(200)
	res := e.post("/forgot-password/verify", map[string]string{"email": "cy@example.com", "code": e.mail.resetCode(t, "cy@example.com"),
		"new_password": "a brand new long passphrase"}).want(200)
	if !contains(string(res.body), "API keys revoked") {
		t.Fatalf("the answer does not say the keys went: %s", res.body)
	}
	e.meteredCall(cy).wantError(401, "unauthorized")
}

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

// TestPasswordChangeReplacesOwnSession: changing one's password kept the
// session's token, so a copy of the cookie (whoever the user changes the
// password against may hold one) went on working. The change ends every
// session, the caller's too, and gives the caller a fresh one, to a JSON
// client and a browser alike.
func TestPasswordChangeReplacesOwnSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	copied := e.login("ann@example.com")
	res := e.post("/account/password", map[string]any{"current_password": testPassword, "new_password": newTestPassword}, "Cookie", copied).want(200)
	fresh := sessionFrom(res)
	if fresh == "" || fresh == copied {
		t.Fatalf("the change gave the caller the session %q", fresh)
	}
	e.request("GET", "/account", nil, "Cookie", copied).want(303) // to log in
	e.request("GET", "/account", nil, "Cookie", fresh).want(200)

	res = e.browse("POST", "/account/password", url.Values{"current_password": {newTestPassword}, "new_password": {testPassword}},
		&http.Cookie{Name: "auth_session", Value: fresh}).want(303)
	again := res.cookie("auth_session")
	if again == nil || again.Value == "" || again.Value == fresh || !again.HttpOnly {
		t.Fatalf("a browser's change gave the cookie %+v", again)
	}
	e.request("GET", "/account", nil, "Cookie", fresh).want(303)
	e.browse("GET", res.location(), nil, again).want(200).has("Your password was changed")
}
