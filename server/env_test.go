package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"secutil/tools/webhooksig"
)

// cheapHash keeps account creation fast in tests; cost does not change logic.
var cheapHash = passhash.Params{MemoryKiB: 64, Time: 1, Parallelism: 1}

const testPassword = "violet tram ladder cinema"

// seedWords stand in for the embedded common-password list in the index.
var seedWords = []string{"password", "123456", "letmein", "qwerty"}

// cheapKDF keeps encryption tests fast; the envelope records its parameters.
var cheapKDF = pbe.Params{MemoryKiB: 1024, Time: 1, Parallelism: 1}

var testServerKey = bytes.Repeat([]byte{7}, 32)

// adminToken is the admin bearer token of a server made withAdminToken.
const adminToken = "admin-token-0123456789abcdef"

// ownerAddr is the network of an account's owner in the login tests.
var ownerAddr = []string{"RemoteAddr", "192.0.2.10:1000"}

// env is what every HTTP test of the package works with: a server on a
// database of its own, reached through the real router, with the mail it
// sent and its logs. Its methods make accounts, send requests as an API
// client or a browser would, and read the database; a response's methods
// check the answer. newEnv's tweaks (withAdminToken, withRegistration...)
// change the server's Deps.
type env struct {
	t      testing.TB
	store  *store.Store
	dbPath string
	h      http.Handler
	mail   *mailbox
	logs   *safeBuffer
}

// newEnv starts a server for t, its Deps changed by tweak in order.
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

// withAdminToken lets "Authorization: Bearer "+adminToken use the admin
// routes.
func withAdminToken(d *server.Deps) { d.AdminToken = adminToken }

// withRegistration sets the registration policy (server.RegistrationOpen...).
func withRegistration(policy string) func(*server.Deps) {
	return func(d *server.Deps) { d.Registration = policy }
}

// relaxedLimits lets a test make many tries on one account from one client.
func relaxedLimits(d *server.Deps) {
	limits := server.DefaultLimits
	limits.PerClientAccount = limits.PerAccount
	d.Limits = &limits
}

// quietLogs formats logs as the server does but throws them away, for
// measurements where a growing buffer would distort the figures.
func quietLogs(d *server.Deps) {
	d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
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

// sessionCookie logs the account email in and returns its session cookie.
func (e *env) sessionCookie(email string) *http.Cookie {
	e.t.Helper()
	return &http.Cookie{Name: "auth_session", Value: e.login(email)}
}

// browserSession makes a verified pro account and returns the session
// cookie of its login.
func (e *env) browserSession(email string) *http.Cookie {
	e.t.Helper()
	e.account(email, store.PlanPro)
	return e.sessionCookie(email)
}

// adminSession creates an admin account and returns its session cookie.
func (e *env) adminSession(email string) string {
	e.t.Helper()
	hash, err := passhash.Hash(testPassword, cheapHash)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.CreateAccount(context.Background(), store.NewAccount{Email: email, PasswordHash: hash, Verified: true, Admin: true}); err != nil {
		e.t.Fatal(err)
	}
	return e.login(email)
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

// form posts values the way a browser submits a form.
func (e *env) form(path string, values url.Values, session string) response {
	e.t.Helper()
	headers := []string{"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html,application/xhtml+xml"}
	if session != "" {
		headers = append(headers, "Cookie", session)
	}
	return e.post(path, values.Encode(), headers...)
}

// browse sends what a browser sends: the cookies it holds, a form body
// when there is one, and an Accept that prefers HTML.
func (e *env) browse(method, path string, form url.Values, cookies ...*http.Cookie) response {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	req.RemoteAddr = "192.0.2.1:1234"
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// meteredCall is a cheap metered utility call used to exercise counting.
func (e *env) meteredCall(key string) response {
	e.t.Helper()
	return e.post("/api/v1/suggestion", map[string]string{"message": "more tools please"}, "X-API-Key", key)
}

// webhook posts body signed now with the test secret.
func (e *env) webhook(body []byte) response {
	e.t.Helper()
	return e.post("/billing/payments/webhook", body,
		webhooksig.HeaderName, webhooksig.Format(time.Now().Unix(), body, []byte(billingSecret)))
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

// followAdmin sends the GET a form's 303 asks for, with the session and
// the admin_flash cookie the answer set, as a browser does.
func (e *env) followAdmin(res response, session string) response {
	e.t.Helper()
	res.want(http.StatusSeeOther)
	if !strings.HasPrefix(res.location(), "/admin") {
		e.t.Fatalf("redirect to %q, want the admin page", res.location())
	}
	req := httptest.NewRequest(http.MethodGet, res.location(), nil)
	req.RemoteAddr = "192.0.2.1:1234"
	req.AddCookie(&http.Cookie{Name: "auth_session", Value: session})
	if c := res.cookie("admin_flash"); c != nil && c.MaxAge > 0 {
		if c.Path != "/admin" || !c.HttpOnly {
			e.t.Fatalf("admin_flash cookie %+v: want an HttpOnly cookie for /admin", c)
		}
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// refused posts an admin form that must fail: the answer redirects back
// to the admin page (POST/redirect/GET), which shows msg.
func (e *env) refused(path string, form url.Values, session, msg string) response {
	e.t.Helper()
	res := e.form(path, form, session).want(http.StatusSeeOther)
	if got := res.location(); got != "/admin" {
		e.t.Fatalf("a refused form redirects to %q, want /admin", got)
	}
	page := e.followAdmin(res, session).want(http.StatusOK).has(`id="accounts"`).has(`class="alert error"`)
	if shown := strings.ToLower(html.UnescapeString(string(page.body))); !strings.Contains(shown, strings.ToLower(msg)) {
		e.t.Fatalf("the page after a refused form does not say %q:\n%s", msg, page.body)
	}
	return page
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

func (r response) has(s string) response {
	r.t.Helper()
	if !strings.Contains(string(r.body), s) {
		r.t.Fatalf("body does not contain %q:\n%s", s, r.body)
	}
	return r
}

func (r response) location() string { return r.header.Get("Location") }

// cookie returns the cookie called name that res sets, or nil.
func (r response) cookie(name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func sessionFrom(r response) string {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "auth_session" && c.Value != "" {
			return c.Value
		}
	}
	return ""
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func (e *env) accountOf(email string) *store.Account {
	e.t.Helper()
	a, err := e.store.AccountByEmail(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
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

func (e *env) planChanges() []store.AuditEvent {
	e.t.Helper()
	all, err := e.store.AuditEvents(context.Background(), 1000, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []store.AuditEvent
	for _, ev := range all {
		if ev.Kind == store.AuditPlanChanged {
			out = append(out, ev)
		}
	}
	return out
}

// accountEvents are the audit events about email, newest first, as
// /boss/audit/list answers them.
func (e *env) accountEvents(email, admin string) []map[string]any {
	e.t.Helper()
	items := e.post("/boss/audit/list", map[string]int{"limit": 500}, "Cookie", admin).want(200).json()["items"].([]any)
	var out []map[string]any
	for _, it := range items {
		if ev := it.(map[string]any); ev["email"] == email {
			out = append(out, ev)
		}
	}
	return out
}

// detailsOf is the details of the audit events of kind among events.
func detailsOf(events []map[string]any, kind string) []string {
	var out []string
	for _, ev := range events {
		if ev["kind"] == kind {
			out = append(out, ev["detail"].(string))
		}
	}
	return out
}

// createProduct stores a product directly.
func (e *env) createProduct(plan string, cents int64) int64 {
	e.t.Helper()
	id, err := e.store.CreateProduct(context.Background(), store.Product{Name: plan + " monthly", Plan: plan, PriceCents: cents, Currency: "EUR", Interval: "month"})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

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
