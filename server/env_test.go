package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/breach"
	"secutil/tools/passhash"
	"secutil/tools/pbe"
)

// cheapHash keeps account creation fast in tests; cost does not change logic.
var cheapHash = passhash.Params{MemoryKiB: 64, Time: 1, Parallelism: 1}

const testPassword = "violet tram ladder cinema"

// seedWords stand in for the embedded common-password list in the index.
var seedWords = []string{"password", "123456", "letmein", "qwerty"}

// cheapKDF keeps encryption tests fast; the envelope records its parameters.
var cheapKDF = pbe.Params{MemoryKiB: 1024, Time: 1, Parallelism: 1}

var testServerKey = bytes.Repeat([]byte{7}, 32)

// mailbox captures mail instead of sending it.
type mailbox struct {
	mu   sync.Mutex
	msgs []string
	sent chan struct{} // closed (and replaced) by the next Send
}

func (m *mailbox) Send(_ context.Context, to, subject, body string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, to+"\n"+subject+"\n"+body)
	if m.sent != nil {
		close(m.sent)
		m.sent = nil
	}
	return nil
}

var codePattern = regexp.MustCompile(`\b\d{6}\b`)

// resetCode waits for the password reset code mailed to to: reset mails
// go out after the forgot-password answer. It wakes on each mail sent,
// and gives up after 10 s.
func (m *mailbox) resetCode(t testing.TB, to string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		m.mu.Lock()
		for i := len(m.msgs) - 1; i >= 0; i-- {
			if strings.HasPrefix(m.msgs[i], to+"\nsecutil password reset code: ") {
				m.mu.Unlock()
				return codePattern.FindString(m.msgs[i])
			}
		}
		if m.sent == nil {
			m.sent = make(chan struct{})
		}
		sent := m.sent
		m.mu.Unlock()
		select {
		case <-sent:
		case <-timeout:
			t.Fatalf("no reset code mailed to %s", to)
			return ""
		}
	}
}

// lastCode returns the newest 6-digit code mailed to to.
func (m *mailbox) lastCode(t testing.TB, to string) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.msgs) - 1; i >= 0; i-- {
		if strings.HasPrefix(m.msgs[i], to+"\n") {
			if c := codePattern.FindString(m.msgs[i]); c != "" {
				return c
			}
		}
	}
	t.Fatalf("no code mailed to %s", to)
	return ""
}

// safeBuffer is a log sink that tests read while handlers write.
type safeBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type env struct {
	t      testing.TB
	store  *store.Store
	dbPath string
	h      http.Handler
	mail   *mailbox
	logs   *safeBuffer
}

func newEnv(t testing.TB, tweak ...func(*server.Deps)) *env {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "secutil.db")
	st := openStore(t, dbPath)
	e := &env{t: t, store: st, dbPath: dbPath, mail: &mailbox{}, logs: &safeBuffer{}}
	hashes, err := sharedHashes()
	if err != nil {
		t.Fatal(err)
	}
	assets, err := sharedAssets()
	if err != nil {
		t.Fatal(err)
	}
	deps := server.Deps{
		Store:            st,
		Assets:           assets,
		Logger:           slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Mailer:           e.mail,
		PasswordParams:   cheapHash,
		IsCommonPassword: func(p string) bool { return p == "passwordpassword" },
		Crypto:           pbe.NewEngine(2, cheapKDF),
		ServerKey:        testServerKey,
		Geo:              sharedLocator(t),
		Hashes:           hashes,
		Breach:           breach.NewListSource("test list", seedWords, breach.KindSHA1),
	}
	for _, f := range tweak {
		f(&deps)
	}
	h, err := server.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	return e
}

// in is e reporting to t, for the steps of a scenario run as subtests
// (a subtest must not fail its parent's t).
func (e *env) in(t testing.TB) *env {
	c := *e
	c.t = t
	return &c
}

// account creates a verified account and returns its id.
func (e *env) account(email, plan string) int64 {
	e.t.Helper()
	hash, err := passhash.Hash(testPassword, cheapHash)
	if err != nil {
		e.t.Fatal(err)
	}
	id, err := e.store.CreateAccount(context.Background(), store.NewAccount{Email: email, PasswordHash: hash, Plan: plan, Verified: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// key creates an account and returns an API key for it.
func (e *env) key(email, plan string) string {
	e.t.Helper()
	e.account(email, plan)
	res := e.post("/api/v1/get_api_key", map[string]string{"email": email, "password": testPassword})
	res.want(http.StatusOK)
	return res.json()["api_key"].(string)
}

type response struct {
	t      testing.TB
	status int
	header http.Header
	body   []byte
}

func (r response) want(status int) response {
	r.t.Helper()
	if r.status != status {
		r.t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	return r
}

func (r response) json() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		r.t.Fatalf("body %q is not a JSON object: %v", r.body, err)
	}
	return m
}

// wantError checks the status and the shared error shape, and that the
// vocabulary gives code that status.
func (r response) wantError(status int, code string) map[string]any {
	r.t.Helper()
	if declared := server.ErrorCodes()[code]; declared != status {
		r.t.Fatalf("code %q is declared with status %d, not %d", code, declared, status)
	}
	r.want(status)
	m := r.json()
	if m["code"] != code || m["error"] == "" || m["error"] == nil {
		r.t.Fatalf("error body %s, want code %q and a message", r.body, code)
	}
	return m
}

// request sends body (a string is sent raw, anything else as JSON) with
// headers given as name, value pairs. "Cookie" sets the session cookie,
// "RemoteAddr" the peer (192.0.2.1:1234 by default) and "Host" the host.
func (e *env) request(method, path string, body any, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	req.RemoteAddr = "192.0.2.1:1234"
	for i := 0; i+1 < len(headers); i += 2 {
		switch headers[i] {
		case "Cookie":
			req.AddCookie(&http.Cookie{Name: "auth_session", Value: headers[i+1]})
			continue
		case "RemoteAddr":
			req.RemoteAddr = headers[i+1]
			continue
		case "Host":
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (e *env) post(path string, body any, headers ...string) response {
	e.t.Helper()
	return e.request(http.MethodPost, path, body, headers...)
}

// login returns a session cookie value.
func (e *env) login(email string) string {
	e.t.Helper()
	res := e.post("/login", map[string]string{"email": email, "password": testPassword})
	res.want(http.StatusOK)
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == "auth_session" && c.Value != "" {
			return c.Value
		}
	}
	e.t.Fatal("login set no auth_session cookie")
	return ""
}

func (e *env) usage(id int64) int {
	e.t.Helper()
	n, err := e.store.Usage(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// fill charges n calls to the account directly.
func (e *env) fill(id int64, n int) {
	e.t.Helper()
	for i := 0; i < n; i++ {
		if _, err := e.store.CommitUsage(context.Background(), store.Charge{AccountID: id}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// quietLogs formats logs as the server does but throws them away, for
// measurements where a growing buffer would distort the figures.
func quietLogs(d *server.Deps) {
	d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
