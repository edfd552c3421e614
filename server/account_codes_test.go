package server_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

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

// TestStrangersOnManyNetworksCannotBlockTheOwnersReset: strangers on 4
// networks asking for 5 reset codes each used up the account's 20 codes
// an hour, and strangers on 7 networks trying 10 wrong codes each its 50
// wrong tries: the owner's own request then mailed nothing, and a code
// they got would not have worked. From a network the owner logged in
// from before, the owner still gets a code and resets.
func TestStrangersOnManyNetworksCannotBlockTheOwnersReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const email = "owner@example.com"
	e.account(email, store.PlanStarter)
	e.ownerLogin(email, ownerAddr...).want(200)
	codes := 0
	ask := func() {
		t.Helper()
		e.post("/forgot-password", map[string]string{"email": email}, "RemoteAddr", fmt.Sprintf("203.0.113.%d:4000", codes%4+1)).want(200)
		codes++
		e.mail.waitForResetCodes(t, email, codes) // the codes are mailed after the answer
	}
	// 5 wrong tries at each code, which kills it, so that every try counts.
	for try := range 7 * store.MaxCodeTriesPerHour {
		if try%store.MaxCodeAttempts == 0 {
			ask()
		}
		e.post("/forgot-password/verify", map[string]string{"email": email, "code": "000000", "new_password": "a stranger's long pass phrase"},
			"RemoteAddr", fmt.Sprintf("198.51.100.%d:4000", try/store.MaxCodeTriesPerHour+1)).wantError(400, "invalid_request")
	}
	for codes < store.MaxAccountCodesPerHour {
		ask()
	}

	e.post("/forgot-password", map[string]string{"email": email}, ownerAddr...).want(200)
	code := e.mail.waitForResetCodes(t, email, codes+1)
	e.post("/forgot-password/verify", map[string]string{"email": email, "code": code, "new_password": "amber kettle horizon velvet"}, ownerAddr...).want(200)
	e.post("/login", map[string]string{"email": email, "password": "amber kettle horizon velvet"}, ownerAddr...).want(200)
}

// waitForResetCodes waits until n reset codes went to to, and returns the
// last; it fails the test after 10 s.
func (m *mailbox) waitForResetCodes(t *testing.T, to string, n int) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		m.mu.Lock()
		var codes []string
		for _, msg := range m.msgs {
			if strings.HasPrefix(msg, to+"\nsecutil password reset code: ") {
				codes = append(codes, codePattern.FindString(msg))
			}
		}
		m.mu.Unlock()
		if len(codes) >= n {
			return codes[len(codes)-1]
		}
	}
	t.Fatalf("fewer than %d reset codes went to %s", n, to)
	return ""
}
