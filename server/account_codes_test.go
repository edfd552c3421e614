package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

// relaxedLimits lets a test make many tries on one account from one client.
func relaxedLimits(d *server.Deps) {
	limits := server.DefaultLimits
	limits.PerClientAccount = limits.PerAccount
	d.Limits = &limits
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

// TestReissuedCodesDoNotResetTries: re-issuing a code reset its try
// counter, so registering again gave a guesser 5 fresh tries each time.
func TestReissuedCodesDoNotResetTries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, relaxedLimits)
	creds := map[string]string{"email": "g@example.com", "password": testPassword}
	guess := func(code string) response {
		return e.post("/register/verify", map[string]string{"email": "g@example.com", "code": code, "password": testPassword})
	}
	for round := range 2 {
		e.post("/register", creds).want(200)
		right := e.mail.lastCode(t, "g@example.com")
		for i := range store.MaxCodeAttempts {
			wrong := strconv.Itoa(100000 + round*10 + i)
			if wrong == right {
				wrong = "999999"
			}
			guess(wrong).wantError(400, "invalid_request")
		}
	}
	e.post("/register", creds).want(200)
	guess(e.mail.lastCode(t, "g@example.com")).wantError(400, "invalid_request")
	// And an address gets at most MaxCodesPerHour codes an hour.
	for range store.MaxCodesPerHour {
		e.post("/register", creds).want(200)
	}
	codes := 0
	e.mail.mu.Lock()
	for _, m := range e.mail.msgs {
		if bytes.HasPrefix([]byte(m), []byte("g@example.com\nsecutil verification code")) {
			codes++
		}
	}
	e.mail.mu.Unlock()
	if codes != store.MaxCodesPerHour {
		t.Fatalf("%d codes mailed in the hour, want %d", codes, store.MaxCodesPerHour)
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

// TestCodesAreKeyedHashes: a live reset code came back in 0.46 s from the
// database file alone (a SHA-256 of a 6-digit code). The file now holds an
// HMAC under the server key.
func TestCodesAreKeyedHashes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	a := e.accountOf("ann@example.com")
	e.post("/forgot-password", map[string]string{"email": "ann@example.com"}).want(200)
	code := e.mail.resetCode(t, "ann@example.com")
	plain := sha256.Sum256([]byte(strconv.FormatInt(a.ID, 10) + "\x00" + store.PurposeReset + "\x00" + code))
	for _, name := range []string{e.dbPath, e.dbPath + "-wal"} {
		raw, err := os.ReadFile(name)
		if err == nil && bytes.Contains(raw, plain[:]) {
			t.Fatalf("%s holds a plain SHA-256 of the live code", name)
		}
	}
	// The code still works.
	e.post("/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": code, "new_password": "a brand new long passphrase"}).want(200)
}
