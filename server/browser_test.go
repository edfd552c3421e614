package server_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"secutil/server"
	"secutil/server/browsertest"
	"secutil/store"
	"secutil/tools/apikey"
)

var (
	update      = flag.Bool("update", false, "rewrite the fixtures: the browser test takes the screenshots of docs/screenshots again (and runs every journey)")
	allJourneys = flag.Bool("browser.all", false, "browser test: run every journey, not only the keys journey (.ci/run does)")
)

// loggedCode finds the newest code the log mailer wrote for email.
var loggedCodePattern = regexp.MustCompile(`code: (\d{6})`)

func loggedCode(t *testing.T, logs, email string) string {
	t.Helper()
	lines := strings.Split(logs, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "to="+email) {
			if m := loggedCodePattern.FindStringSubmatch(lines[i]); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no code for %s in the server log", email)
	return ""
}

// browser is a headless Chromium tab and what the steps of a journey need
// to drive it.
type browser struct {
	ctx  context.Context
	tab  context.Context // ctx without the journey's time bound: the parent of a stranger's tab
	base string          // the server's URL

	mu       sync.Mutex
	problems []string        // script errors, console errors, CSP violations
	failing  map[string]bool // URLs a step expects an error status from
}

// expectFailure tells the browser that path answers with an error status
// on purpose (a 404 page, a tool's refusal), which Chromium logs.
func (b *browser) expectFailure(path string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failing[b.base+path] = true
}

// startBrowser starts Chromium for the test; it fails the test at the end
// when the page reported any script error, console error or
// Content-Security-Policy violation.
func startBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(browsertest.Options(browsertest.Find(), t.TempDir()), // TestBrowserJourney skips without one
		chromedp.Flag("hide-scrollbars", true), // the same screenshots on every machine
		chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	return watchTab(t, ctx, base)
}

// stranger opens a Chromium of its own: a second person, with cookies and
// storage of their own. (A second browser context of the same Chromium
// would be cheaper, but a single-process Chromium cannot open one.)
func (b *browser) stranger(t *testing.T) *browser {
	t.Helper()
	return startBrowser(t, b.base)
}

// watchTab opens the tab of ctx and records what it reports.
func watchTab(t *testing.T, ctx context.Context, base string) *browser {
	t.Helper()
	b := &browser{base: base, tab: ctx, failing: map[string]bool{}}
	if err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "script exception: "+ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				b.problems = append(b.problems, "console.error called")
			}
		case *cdplog.EventEntryAdded:
			// CSP violations and failed loads are logged as errors.
			url, _, _ := strings.Cut(ev.Entry.URL, "#")
			if ev.Entry.Level == cdplog.EntryLevelError && !(ev.Entry.Source == cdplog.EntrySourceNetwork && b.failing[url]) {
				b.problems = append(b.problems, "console: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	// Bound the whole journey (the browser was started above, outside it).
	ctx, cancelRun := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelRun)
	b.ctx = ctx
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, p := range b.problems {
			t.Errorf("browser reported %s", p)
		}
	})
	return b
}

// stepTimeout bounds one action: a page that never shows what a step
// waits for fails that step, not the whole journey's time.
const stepTimeout = 30 * time.Second

func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// open navigates to a path of the server and waits for the page's heading.
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	b.do(t, "open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS("h1")))
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression for a value of type T.
func eval[T any](t *testing.T, b *browser, expression string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expression, err)
	}
	return v
}

// waitText waits until the element sel shows text containing want.
func (b *browser) waitText(t *testing.T, sel, want string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, sel, want)
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
		got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || "(no element)"`, sel)))
		t.Fatalf("waiting for %s to show %q: %v; it shows %q", sel, want, err, got)
	}
}

func (b *browser) location(t *testing.T) string {
	t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(loc, b.base)
}

func (b *browser) shot(t *testing.T, name string, full bool) {
	t.Helper()
	if _, ok := screenshotPages[name]; !ok {
		t.Fatalf("screenshot %s is not in screenshotPages", name)
	}
	if !*update {
		return // screenshots are for docs/ only, and each costs Chromium CPU
	}
	action := chromedp.CaptureScreenshot()
	if full {
		action = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(b.ctx, action)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", "screenshots", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) colorScheme(t *testing.T, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) logIn(t *testing.T, email, password string) {
	t.Helper()
	b.open(t, "/login")
	b.do(t, "log in as "+email,
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("plan")))
}

func (b *browser) logOut(t *testing.T) {
	t.Helper()
	b.do(t, "log out", chromedp.Click(chromedp.CSS("nav.main button")), chromedp.WaitVisible(chromedp.CSS(".hero")))
}

// register fills the registration form on the page (/register, or an
// invite link's) and checks that it asks for the code mailed to email.
func (b *browser) register(t *testing.T, email, password string) {
	t.Helper()
	b.do(t, "register",
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("code")))
	if got, want := b.location(t), "/register/verify?email="+url.QueryEscape(email); got != want {
		t.Fatalf("after registering: got %v, want %v", got, want)
	}
}

// verify enters the code e's server logged for email on the verification
// page, and checks that the browser lands on the dashboard, logged in.
func (b *browser) verify(t *testing.T, e *env, email, password string) {
	t.Helper()
	b.do(t, "verify",
		chromedp.SendKeys(chromedp.ID("code"), loggedCode(t, e.logs.String(), email)),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("plan")))
	b.waitText(t, ".alert.notice", "verified and you are logged in")
}

// noSidewaysScroll fails when the page is wider than the window.
func (b *browser) noSidewaysScroll(t *testing.T, path string) {
	t.Helper()
	b.open(t, path)
	if wide := eval[string](t, b, `(() => {
		const over = document.documentElement.scrollWidth - window.innerWidth;
		if (over <= 0) return "";
		const culprits = [...document.querySelectorAll("main *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1);
		return over + "px too wide: " + culprits.slice(-3).map(e => e.tagName + "." + e.className).join(", ");
	})()`); wide != "" {
		t.Errorf("%s at %dpx scrolls sideways: %s", path, 390, wide)
	}
}

// seedHistory gives the account two keys and calls over last month and
// this one, 20 of them this month, through the store's clock: the chart
// and the usage bar of the README's dashboard screenshot.
func seedHistory(t *testing.T, e *env, accountID int64, now time.Time) {
	t.Helper()
	ctx := context.Background()
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	e.store.SetClock(func() time.Time { return thisMonth.AddDate(0, -1, 0) })
	var keys []int64
	for _, name := range []string{"default", "ci"} {
		k := apikey.New()
		if err := e.store.IssueKey(ctx, accountID, name, apikey.Hash(k), apikey.Hint(k)); err != nil {
			t.Fatal(err)
		}
		key, err := e.store.KeyByName(ctx, accountID, name)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key.ID)
	}
	charge := func(day time.Time, n int) {
		e.store.SetClock(func() time.Time { return day.Add(12 * time.Hour) })
		for i := range n {
			if _, err := e.store.CommitUsage(ctx, store.Charge{AccountID: accountID, KeyID: keys[i%2]}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for day := thisMonth.AddDate(0, -1, 0); day.Before(thisMonth); day = day.AddDate(0, 0, 1) {
		charge(day, (day.Day()*7)%11)
	}
	left := 20
	for day := thisMonth; left > 0; day = day.AddDate(0, 0, 1) {
		n := min(left, 1+(day.Day()*5)%4)
		if day.Day() == now.Day() {
			n = left
		}
		charge(day, n)
		left -= n
	}
	e.store.SetClock(time.Now)
}

// TestBrowserJourney drives the real pages in headless Chromium, in five
// journeys that run side by side, each with its own server and browser:
// the account forms' "Show password" buttons, register and verify with
// the code from the server log and the dashboard's key flows (create,
// rotate, reload, revoke); every tool of
// the bench with and without JavaScript, dark mode, a phone's width and a
// 404 page; the usage bar and chart, the admin page and a plan change
// without a payment provider; a plan change through one; an invite from
// the admin page to a second person's verified account, and the admin and
// hash identifier tables at a phone's width. Any script
// error, console error or Content-Security-Policy violation fails it.
// Each browser costs seconds of CPU, so by default only the keys journey
// runs; -browser.all runs all five (.ci/run does), and -update runs all
// five and writes the README's screenshots.
func TestBrowserJourney(t *testing.T) {
	t.Parallel()
	if browsertest.Find() == "" {
		t.Skip("no Chromium on PATH: skipping the browser test (install it with " + browsertest.Install + "; .ci/run does)")
	}
	t.Cleanup(func() {
		if *update && !t.Failed() {
			writeScreenshotSources(t)
		}
	})
	for name, journey := range map[string]func(*testing.T){
		"keys": keysJourney, "tools": toolsJourney, "usage and admin": usageAndAdminJourney, "checkout": checkoutJourney,
		"invites": invitesJourney,
	} {
		if name != "keys" && !*allJourneys && !*update {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			journey(t)
		})
	}
}

// browserEmail is the account the journeys drive.
const browserEmail = "browser@example.com"

// journeySteps returns a step runner for t: a failed step ends the
// journey, since later steps build on it.
func journeySteps(t *testing.T) func(name string, f func(t *testing.T)) {
	return func(name string, f func(t *testing.T)) {
		t.Helper()
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
}

// journeyServer serves e to a new browser.
func journeyServer(t *testing.T, e *env) (*httptest.Server, *browser) {
	t.Helper()
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close)
	return srv, startBrowser(t, srv.URL)
}

// keysJourney checks the account forms' "Show password" buttons, registers
// an account, verifies it with the code from the server log and drives the
// dashboard's key flows.
func keysJourney(t *testing.T) {
	// The mailer is the default one, which writes codes to the server log.
	e := newEnv(t, func(d *server.Deps) { d.Mailer = nil })
	srv, b := journeyServer(t, e)
	step := journeySteps(t)
	const email = browserEmail
	const password = "quiet harbour lantern orchid"

	step("home", func(t *testing.T) {
		b.open(t, "/")
		b.shot(t, "home", true)
	})

	step("show password on the account forms", b.showPasswordToggles)

	step("register, verify and log in", func(t *testing.T) {
		b.open(t, "/register")
		b.register(t, email, password)
		b.verify(t, e, email, password)
		if got, want := b.text(t, "#plan"), "starter"; got != want {
			t.Fatalf("dashboard plan: got %v, want %v", got, want)
		}
	})

	keyPattern := regexp.MustCompile(`^sk_[A-Za-z0-9]{46}$`)
	var first string
	step("first key from the call-out, shown once", func(t *testing.T) {
		if got := b.text(t, "#first-key-curl"); !strings.Contains(got, "curl -s -X POST "+srv.URL+"/api/v1/user_info") {
			t.Fatalf("the call-out's curl line does not name this server: %q", got)
		}
		b.do(t, "create the first key", chromedp.Click(chromedp.ID("create-first-key")), chromedp.WaitVisible(chromedp.ID("fresh-key")))
		first = b.text(t, "#fresh-key-value")
		if !keyPattern.MatchString(first) {
			t.Fatalf("first key %q", first)
		}
		if got := b.text(t, "#fresh-key-curl"); !strings.Contains(got, srv.URL) || !strings.Contains(got, first) {
			t.Fatalf("the fresh key's curl line %q", got)
		}
		b.do(t, "copy", chromedp.Click(chromedp.CSS(`[data-copy="fresh-key-value"]`)))
		b.waitText(t, `[data-copy="fresh-key-value"]`, "C") // "Copied", or "Selected: press Ctrl+C"
		b.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("plan")))
		if eval[bool](t, b, `!!document.getElementById("fresh-key")`) {
			t.Fatal("a reload shows the key again")
		}
		e.post("/api/v1/user_info", nil, "X-API-Key", first).want(http.StatusOK)
	})

	step("rotate; a reload rotates nothing", func(t *testing.T) {
		// Rotating stops the old key, so it asks first, as revoking does.
		b.do(t, "rotate", chromedp.Click(chromedp.CSS(`[aria-label="Rotate key dashboard"]`)), chromedp.WaitVisible(chromedp.ID("confirm-rotate")))
		b.do(t, "confirm the rotation", chromedp.Click(chromedp.ID("confirm-rotate-button")), chromedp.WaitVisible(chromedp.ID("fresh-key")))
		rotated := b.text(t, "#fresh-key-value")
		if !keyPattern.MatchString(rotated) || rotated == first {
			t.Fatalf("rotated key %q (first %q)", rotated, first)
		}
		// The list shows the key by its prefix only.
		if hint := b.text(t, "#keys tbody code"); !strings.HasPrefix(rotated, strings.TrimSuffix(hint, "…")) || len(hint) > 12 {
			t.Fatalf("key list shows %q for key %q", hint, rotated)
		}
		b.do(t, "top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.shot(t, "dashboard-new-key", false)
		b.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("plan")))
		e.post("/api/v1/user_info", nil, "X-API-Key", first).want(http.StatusUnauthorized)
		e.post("/api/v1/user_info", nil, "X-API-Key", rotated).want(http.StatusOK)
	})

	step("create and revoke, with confirmation", func(t *testing.T) {
		b.do(t, "create ci",
			chromedp.SendKeys(chromedp.ID("key-name"), "ci"),
			chromedp.Click(chromedp.ID("create-key")),
			chromedp.WaitVisible(chromedp.ID("fresh-key")))
		ci := b.text(t, "#fresh-key-value")
		b.do(t, "ask to revoke", chromedp.Click(chromedp.CSS(`a[aria-label="Revoke key ci"]`)), chromedp.WaitVisible(chromedp.ID("confirm-revoke")))
		e.post("/api/v1/user_info", nil, "X-API-Key", ci).want(http.StatusOK) // asking revokes nothing
		b.do(t, "confirm", chromedp.Click(chromedp.ID("confirm-revoke-button")), chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
		b.waitText(t, ".alert.notice", "The key was revoked")
		e.post("/api/v1/user_info", nil, "X-API-Key", ci).want(http.StatusUnauthorized)
	})
}

// toolsJourney runs every tool of the bench with and without JavaScript,
// in dark mode and at a phone's width, as an account with one key.
func toolsJourney(t *testing.T) {
	e := newEnv(t)
	id := e.account(browserEmail, store.PlanStarter)
	k := apikey.New()
	if err := e.store.IssueKey(context.Background(), id, "default", apikey.Hash(k), apikey.Hint(k)); err != nil {
		t.Fatal(err)
	}
	_, b := journeyServer(t, e)
	step := journeySteps(t)
	b.logIn(t, browserEmail, testPassword)

	account, err := e.store.AccountByEmail(context.Background(), browserEmail)
	if err != nil {
		t.Fatal(err)
	}
	dumpFile := filepath.Join(t.TempDir(), "ntds.txt")
	if err := os.WriteFile(dumpFile, []byte(auditDump()), 0o600); err != nil {
		t.Fatal(err)
	}
	step("every tool", func(t *testing.T) {
		b.open(t, "/tools")
		before := e.usage(account.ID)
		// Typing previews for free; Check counts.
		b.do(t, "type a password", chromedp.SendKeys(chromedp.ID("strength-password"), "correct horse battery staple"))
		b.waitText(t, "#strength-out", "Score 4 of 4")
		if got := e.usage(account.ID); got != before {
			t.Fatalf("typing counted %d calls", got-before)
		}
		b.do(t, "check", chromedp.Click(chromedp.CSS("#tool-strength button[type=submit]")))
		b.waitText(t, "#tools-usage", fmt.Sprintf("used %d of 100", before+1))

		jwt := testJWT(t, map[string]any{"sub": "ann", "exp": 1700000000})
		for _, tc := range []struct {
			name   string
			fill   map[string]string // selector → value
			submit string            // the button to click
			out    string            // the element that shows the answer
			want   string
		}{
			{"entropy", map[string]string{"#entropy-password": "abc"}, "#tool-entropy button", "#entropy-out", "14.1 bits"},
			{"common password", map[string]string{"#common-password": "password"}, "#tool-common button", "#common-out", "On the common-password list"},
			{"breach", map[string]string{"#breach-kind": "password", "#breach-query": "letmein"}, "#tool-breach button[type=submit]", "#breach-out", "Found in the common-password list"},
			{"breach range", map[string]string{"#breach-kind": "prefix", "#breach-query": "5BAA6"}, "#tool-breach button[type=submit]", "#breach-out", "1 hash in this range"},
			{"password generator", map[string]string{"#passgen-length": "24"}, "#tool-passgen button", "#passgen-entropy", "bits of entropy"},
			{"passphrase", map[string]string{"#passgen-words": "4", "#passgen-case": "title"}, "#tool-passgen form:last-of-type button", "#passgen-entropy", "Words from EFF"},
			{"hash generator", map[string]string{"#hash-algorithm": "md5", "#hash-plaintext": "abc"}, "#tool-hashgen button", "#hashgen-out", "900150983cd24fb0d6963f7d28e17f72"},
			{"hash verifier", map[string]string{"#hashverify-password": "abc", "#hashverify-hash": "900150983cd24fb0d6963f7d28e17f72"}, "#tool-hashverify button", "#hashverify-out", "Match"},
			{"hash identifier", map[string]string{"#hashid-hash": "5f4dcc3b5aa765d61d8327deb882cf99"}, "#tool-hashid button[type=submit]", "#hashid-hashcat-0", "hashcat -m 0 hash.txt wordlist.txt"},
			{"hash identifier, a batch", map[string]string{"#hashid-hash": "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy\n5f4dcc3b5aa765d61d8327deb882cf99"},
				"#tool-hashid button[type=submit]", "#tool-hashid [data-result]", "1 × bcrypt"},
			{"hash lookup", map[string]string{"#lookup-hashes": "5f4dcc3b5aa765d61d8327deb882cf99\n0d107d09f5bbe40cade3de5c71e9e9b7"}, "#tool-lookup button[type=submit]", "#lookup-summary", "2 of 2 found"},
			{"IP lookup", map[string]string{"#ip": "2a02:ff0::1"}, "#tool-ip button", "#ip-out", "Paris, France"},
			{"base64", map[string]string{"#base64-text": "hello", "#base64-option": "encode"}, "#tool-base64 button", "#base64-out", "aGVsbG8="},
			{"random key", nil, "#tool-randomkey button", "#randomkey-out", ""},
			{"JWT", map[string]string{"#jwt-token": jwt}, "#tool-jwt button", "#jwt-out", "expired"},
			{"JWT verify", map[string]string{"#jwtverify-token": jwt, "#jwtverify-key": "not its secret"}, "#tool-jwtverify button", "#jwtverify-out", "Not valid"},
			{"JSON format", map[string]string{"#json-text": `{"b":[1,2]}`}, "#tool-json button", "#json-out", "\"b\": [\n    1,"},
			{"JSON minify", map[string]string{"#json-text": "{ \"b\" : [ 1, 2 ] }"}, `#tool-json button[formaction]`, "#json-out", `{"b":[1,2]}`},
			{"encrypt", map[string]string{"#crypto-text": "attack at dawn", "#crypto-password": "a long pass phrase"}, "#tool-crypto button", "#crypto-out", ""},
			{"suggestion", map[string]string{"#suggestion-message": "a chart per key"}, "#tool-suggestion button", "#suggestion-out", "Thank you"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				used := e.usage(account.ID)
				for sel, value := range tc.fill {
					b.do(t, "fill "+sel, chromedp.SetValue(chromedp.CSS(sel), value))
				}
				b.do(t, "submit", chromedp.Click(chromedp.CSS(tc.submit)))
				b.waitText(t, tc.out, tc.want)
				// The meter counts items: a batch's, one per hash (a line).
				items := strings.Count(tc.fill["#lookup-hashes"]+tc.fill["#hashid-hash"], "\n") + 1
				b.waitText(t, "#tools-usage", fmt.Sprintf("used %d of 100", used+items))
			})
		}
		if got := b.text(t, "#tool-hashid [data-result]"); !strings.Contains(got, "cost=10") || !strings.Contains(got, "hashcat -m 3200 hash.txt wordlist.txt") {
			t.Fatalf("the batch's bcrypt group: %q", got)
		}
		// Decrypt what was just encrypted, with the second button.
		envelope := b.text(t, "#crypto-out")
		b.do(t, "decrypt", chromedp.SetValue(chromedp.ID("crypto-text"), envelope), chromedp.Click(chromedp.CSS("#tool-crypto button[formaction]")))
		b.waitText(t, "#crypto-out", "attack at dawn")
		if got := b.text(t, "#randomkey-out"); !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(got) {
			t.Fatalf("random key %q", got)
		}
		// An error shows in its panel.
		b.expectFailure("/base64")
		b.do(t, "bad base64", chromedp.SetValue(chromedp.ID("base64-text"), "%%%"), chromedp.SetValue(chromedp.ID("base64-option"), "decode"),
			chromedp.Click(chromedp.CSS("#tool-base64 button")))
		b.waitText(t, "#tool-base64 [role=alert]", "This is not base64")
		b.do(t, "copy", chromedp.Click(chromedp.CSS(`[data-copy="hashgen-out"]`)))
		b.waitText(t, `[data-copy="hashgen-out"]`, "C")
		b.do(t, "top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.shot(t, "tools", false)
	})

	step("files: picked, dropped, refused; the tables and their CSV", func(t *testing.T) { filesOnTheToolsPage(t, b, dumpFile) })

	step("a tool without JavaScript", func(t *testing.T) {
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		b.open(t, "/tools")
		b.do(t, "post the form", chromedp.SetValue(chromedp.ID("base64-text"), "no script"), chromedp.Click(chromedp.CSS("#tool-base64 button")),
			chromedp.WaitVisible(chromedp.ID("base64-out")))
		if got, want := b.location(t), "/base64#tool-base64"; got != want {
			t.Fatalf("the form went to %s, want %s", got, want)
		}
		if got := b.text(t, "#base64-out"); got != "bm8gc2NyaXB0" {
			t.Fatalf("answer %q", got)
		}
		if got := eval[string](t, b, `document.getElementById("base64-text").value`); got != "no script" {
			t.Fatalf("the input came back as %q", got)
		}
		b.open(t, "/tools")
		b.do(t, "post a file", chromedp.SetUploadFiles(chromedp.ID("audit-file"), []string{dumpFile}), chromedp.Click(chromedp.CSS("#tool-audit button[type=submit]")),
			chromedp.WaitVisible(chromedp.ID("audit-table")))
		if got, want := b.location(t), "/password_audit#tool-audit"; got != want {
			t.Fatalf("the form went to %s, want %s", got, want)
		}
		if got := b.text(t, "#audit-file-status"); !strings.Contains(got, "Sent: ntds.txt") {
			t.Fatalf("the file input says %q", got)
		}
	})

	step("dark mode", func(t *testing.T) {
		b.colorScheme(t, "dark")
		defer b.colorScheme(t, "light")
		b.open(t, "/tools")
		b.do(t, "a result", chromedp.SendKeys(chromedp.ID("strength-password"), "Tr0ub4dor&3"))
		b.waitText(t, "#strength-out", "Score")
		if bg := eval[string](t, b, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(15, 18, 22)" {
			t.Fatalf("dark mode background %s", bg)
		}
		b.shot(t, "tools-dark", false)
		b.open(t, "/dashboard")
		// The chart's labels are light on the dark page.
		if fill := eval[string](t, b, `getComputedStyle(document.querySelector("#usage-chart .axis")).fill`); fill != "rgb(154, 164, 177)" {
			t.Fatalf("chart labels in dark mode: fill %s", fill)
		}
	})

	step("a phone's width", func(t *testing.T) {
		b.do(t, "phone", chromedp.EmulateViewport(390, 844))
		defer b.do(t, "desktop", chromedp.EmulateViewport(1280, 900))
		for _, path := range []string{"/docs", "/tools", "/dashboard", "/"} {
			b.noSidewaysScroll(t, path)
		}
		b.open(t, "/dashboard")
		if over := eval[float64](t, b, `document.getElementById("keys").scrollWidth - document.getElementById("keys").parentElement.clientWidth`); over > 0 {
			t.Errorf("the key table is %vpx wider than its panel", over)
		}
		b.do(t, "the keys", chromedp.ScrollIntoView(chromedp.ID("keys")))
		b.shot(t, "dashboard-phone", false)
		b.open(t, "/tools")
		if mode := eval[string](t, b, `document.getElementById("ip").inputMode`); mode == "decimal" || mode == "numeric" {
			t.Errorf("the IP field's keyboard (%s) has no ':'", mode)
		}
		b.do(t, "an IPv6 address", chromedp.SendKeys(chromedp.ID("ip"), "2a02:ff0::1"), chromedp.Click(chromedp.CSS("#tool-ip button")))
		b.waitText(t, "#ip-out", "Paris")
		b.do(t, "the answer", chromedp.ScrollIntoView(chromedp.ID("tool-ip")))
		b.shot(t, "tools-phone", false)
		b.do(t, "audit a dump from a file", chromedp.SetUploadFiles(chromedp.ID("audit-file"), []string{dumpFile}),
			chromedp.Click(chromedp.CSS("#tool-audit button[type=submit]")))
		b.waitText(t, "#audit-table", `CORP\alice`)
		b.readableTables(t, "#audit-table")
		b.do(t, "the audit", chromedp.ScrollIntoView(chromedp.ID("audit-table")))
		b.shot(t, "tools-file-phone", false)
	})

	step("a 404 page", func(t *testing.T) {
		b.expectFailure("/no-such-page")
		b.open(t, "/no-such-page")
		if got := b.text(t, "h1"); got != "Not Found" {
			t.Fatalf("404 heading %q", got)
		}
		b.shot(t, "not-found", false)
	})
}

// filesOnTheToolsPage chooses a file of hashes with the identifier's
// picker and drops one on the lookup's form, checks each table and the
// CSV its link downloads, has a file too large and a file that is not text
// refused before they are sent, and takes the screenshot of an audit of a
// dump file.
func filesOnTheToolsPage(t *testing.T, b *browser, dumpFile string) {
	dir := t.TempDir()
	hashes := filepath.Join(dir, "hashes.txt")
	if err := os.WriteFile(hashes, []byte("5f4dcc3b5aa765d61d8327deb882cf99\n$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.open(t, "/tools")
	b.do(t, "pick a file", chromedp.SetUploadFiles(chromedp.ID("hashid-file"), []string{hashes}))
	b.waitText(t, "#hashid-file-status", "hashes.txt (")
	b.do(t, "identify it", chromedp.Click(chromedp.CSS("#tool-hashid button[type=submit]")))
	b.waitText(t, "#hashid-table", "bcrypt")
	// The CSV links download into a directory of the test's.
	downloads := t.TempDir()
	if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatal(err)
	}
	csv := func(table string) string {
		t.Helper()
		b.do(t, "download "+table, chromedp.Click(chromedp.CSS(`a[data-csv="`+table+`"]`)))
		file := filepath.Join(downloads, table+".csv")
		for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if raw, err := os.ReadFile(file); err == nil {
				os.Remove(file)
				return string(raw)
			}
		}
		t.Fatalf("no %s downloaded", file)
		return ""
	}
	if got, want := csv("hashid-table"), "Hash,Likeliest,hashcat,John\r\n5f4dcc3b5aa765d61d8327deb882cf99,MD5,0,raw-md5\r\n"; !strings.HasPrefix(got, want) || !strings.Contains(got, "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy,bcrypt,3200,bcrypt\r\n") {
		t.Errorf("the identifier's CSV:\n%q\nwant it to start %q, with the bcrypt row", got, want)
	}

	// A synthetic drop, as a file dragged from the desktop lands.
	drop := func(form, name, js string) {
		t.Helper()
		b.do(t, "drop "+name, chromedp.Evaluate[chromedp.Void](`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File([`+js+`], "`+name+`", { type: "text/plain" }));
			const form = document.querySelector("`+form+`");
			for (const type of ["dragenter", "dragover", "drop"]) form.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
		})()`))
	}
	drop("#tool-lookup form", "huge.txt", `"0".repeat(2 << 20)`)
	b.waitText(t, "#lookup-file-status", "huge.txt is 2 MiB: this tool takes a file of at most 1 MiB.")
	drop("#tool-lookup form", "hashes.gz", `new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0])`)
	b.waitText(t, "#lookup-file-status", "hashes.gz is not text (UTF-8)")
	if n := eval[int](t, b, `document.getElementById("lookup-file").files.length`); n != 0 {
		t.Fatalf("a refused file stays chosen (%d)", n)
	}
	drop("#tool-lookup form", "dropped.txt", `"5f4dcc3b5aa765d61d8327deb882cf99\nnothex\n"`)
	b.waitText(t, "#lookup-file-status", "dropped.txt (")
	if got := eval[string](t, b, `document.getElementById("lookup-file").files[0].name`); got != "dropped.txt" {
		t.Fatalf("the drop chose %q", got)
	}
	b.do(t, "look it up", chromedp.Click(chromedp.CSS("#tool-lookup button[type=submit]")))
	b.waitText(t, "#lookup-table", "skipped: not hexadecimal")
	if got, want := csv("lookup-table"), "Hash,Type,Plaintext\r\n5f4dcc3b5aa765d61d8327deb882cf99,md5,password\r\nnothex,–,skipped: not hexadecimal\r\n"; got != want {
		t.Errorf("the lookup's CSV:\n%q\nwant\n%q", got, want)
	}

	b.do(t, "audit a dump from a file", chromedp.SetUploadFiles(chromedp.ID("audit-file"), []string{dumpFile}),
		chromedp.Click(chromedp.CSS("#tool-audit button[type=submit]")))
	b.waitText(t, "#audit-table", `CORP\alice`)
	if got := csv("audit-table"); !strings.HasPrefix(got, "Line,Account,Format,Findings\r\n") || !strings.Contains(got, `CORP\alice`) {
		t.Errorf("the audit's CSV:\n%q", got)
	}
	b.readableTables(t, "#hashid-table", "#lookup-table", "#audit-table")
	b.do(t, "the audit", chromedp.ScrollIntoView(chromedp.ID("tool-audit")))
	b.shot(t, "tools-file", false)
}

// usageAndAdminJourney shows an account's usage bar and chart, then an
// administrator sets a plan and a user switches back without checkout.
func usageAndAdminJourney(t *testing.T) {
	e := newEnv(t)
	const chartEmail = "chart@example.com"
	chartID := e.account(chartEmail, store.PlanStarter)
	seedHistory(t, e, chartID, time.Now().UTC())
	const email = browserEmail
	e.account(email, store.PlanStarter)
	srv, b := journeyServer(t, e)
	step := journeySteps(t)

	step("usage bar and chart", func(t *testing.T) {
		b.logIn(t, chartEmail, testPassword)
		width := func() float64 {
			return eval[float64](t, b, `document.getElementById("usage-bar").getBoundingClientRect().width / document.getElementById("usage-bar").parentElement.getBoundingClientRect().width`)
		}
		if got := width(); got < 0.195 || got > 0.205 {
			t.Fatalf("at 20/100 the bar fills %.3f of its track", got)
		}
		if got := b.text(t, "#chart-this-total"); got != "20" {
			t.Fatalf("chart total this month %q", got)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#usage-chart rect.last").length`); n < 20 {
			t.Fatalf("the chart draws %d bars for last month", n)
		}
		b.shot(t, "dashboard", true)
		e.fill(chartID, 80)
		b.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("usage-bar")))
		if got := width(); got < 0.995 {
			t.Fatalf("at 100/100 the bar fills %.3f of its track", got)
		}
		b.logOut(t)
	})

	step("the chart on a phone starts at today", func(t *testing.T) {
		// On the 28th, with calls today: a phone shows half the chart, the
		// half with today's bar in it.
		const phoneEmail = "phone-chart@example.com"
		id := e.account(phoneEmail, store.PlanStarter)
		b.logIn(t, phoneEmail, testPassword) // at the real time: the cookie must not expire at once
		today := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
		seedHistory(t, e, id, today)
		e.store.SetClock(func() time.Time { return today })
		defer e.store.SetClock(time.Now)
		e.fill(id, 7)
		b.do(t, "phone", chromedp.EmulateViewport(390, 844))
		defer b.do(t, "desktop", chromedp.EmulateViewport(1280, 900))
		b.open(t, "/dashboard")
		b.do(t, "the chart", chromedp.ScrollIntoView(chromedp.ID("usage-chart")))
		inView := eval[string](t, b, `(() => {
			const box = document.querySelector(".chart-scroll").getBoundingClientRect();
			const bars = document.querySelectorAll("#usage-chart rect.this");
			const bar = bars[bars.length - 1];
			if (!bar || !bar.querySelector("title").textContent.startsWith("28 Mar: ")) return "the last bar of this month is not today's";
			const r = bar.getBoundingClientRect();
			return r.left >= box.left && r.right <= box.right ? "" :
				"today's bar spans " + r.left.toFixed(0) + "–" + r.right.toFixed(0) + "px, the chart's box " + box.left.toFixed(0) + "–" + box.right.toFixed(0) + "px";
		})()`)
		if inView != "" {
			t.Fatal(inView)
		}
		b.logOut(t)
	})

	step("admin, and a plan change without checkout", func(t *testing.T) {
		// An administrator finds the admin page in the nav, verifies a
		// pending registration, gives the browser account the pro plan from
		// its row and locates an audited IP.
		const adminEmail = "boss@example.com"
		e.adminSession(adminEmail)
		// A long email, whose row has the most actions: one of them asks
		// for a new password.
		const pending = "a-pending-registration-with-a-long-name@example.com"
		e.post("/register", map[string]string{"email": pending, "password": testPassword}).want(http.StatusOK)
		b.logIn(t, adminEmail, testPassword)
		b.do(t, "admin page", chromedp.Click(chromedp.CSS(`nav.main a[href="/admin"]`)), chromedp.WaitVisible(chromedp.ID("accounts")))
		// Every action of every row is in view inside the table's scroll
		// box, on a desktop and on a phone, and a password field has its
		// buttons beside it.
		b.controlsInView(t, "#accounts")
		b.do(t, "phone", chromedp.EmulateViewport(390, 844))
		b.open(t, "/admin")
		b.controlsInView(t, "#accounts")
		b.do(t, "desktop", chromedp.EmulateViewport(1280, 900))
		b.open(t, "/admin")

		b.do(t, "verify the pending account with a new password",
			chromedp.SendKeys(chromedp.CSS(`#accounts input[aria-label="New password for `+pending+`"]`), "amber meadow violin tundra"),
			chromedp.Click(chromedp.CSS(`#accounts form.activate button[formaction="/admin/accounts/verify"]`)),
			chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
		b.waitText(t, ".alert.notice", "The account was verified")
		if e.accountOf(pending).Verified != true {
			t.Fatal("the pending account is not verified")
		}

		b.do(t, "set the plan from the row", chromedp.Click(chromedp.CSS(`#accounts a[aria-label="Set the plan of `+email+`"]`)),
			chromedp.WaitVisible(chromedp.ID("set-plan")))
		if got := eval[string](t, b, `document.getElementById("plan-email").value`); got != email {
			t.Fatalf("the row's Set plan fills the form with %q", got)
		}
		b.do(t, "admin set plan",
			chromedp.SetValue(chromedp.ID("plan-plan"), "pro"),
			chromedp.Click(chromedp.CSS("#set-plan button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
		b.waitText(t, ".alert.notice", "The account "+email+" is now on the pro plan.")
		if got := b.text(t, "#accounts"); !strings.Contains(got, email) || !strings.Contains(got, "pro") {
			t.Fatalf("accounts after set plan: %q", got)
		}
		b.do(t, "admin locate", chromedp.Click(chromedp.CSS("[data-locate]")), chromedp.WaitVisible(chromedp.CSS(".located.found, .located.bad")))
		if got := b.text(t, ".located.found, .located.bad"); !strings.Contains(got, "127.0.0.1") {
			t.Fatalf("located IP %q", got)
		}
		b.readableTables(t, "#accounts", "#audit")
		b.shot(t, "admin", true)

		// A refused form comes back to the page (POST/redirect/GET) with
		// its message, which a reload no longer shows.
		b.do(t, "admin refused form",
			chromedp.SendKeys(chromedp.ID("plan-email"), "nobody@example.com"),
			chromedp.Click(chromedp.CSS("#set-plan button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS(".alert.error")))
		b.waitText(t, ".alert.error", "No account has the email")
		if got := b.location(t); got != "/admin" {
			t.Fatalf("after a refused form: %s, want /admin", got)
		}
		b.do(t, "admin reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("accounts")))
		if n := eval[int](t, b, `document.querySelectorAll(".alert.error").length`); n != 0 {
			t.Fatal("a reload shows the refused form's message again")
		}
		// On a phone the admin tables scroll inside their panels; the page
		// does not scroll sideways.
		b.do(t, "phone", chromedp.EmulateViewport(390, 844))
		b.noSidewaysScroll(t, "/admin")
		b.do(t, "desktop", chromedp.EmulateViewport(1280, 900))
		b.logOut(t)

		// The admin page sends a logged-out browser to log in, and back.
		b.do(t, "admin while logged out", chromedp.Navigate(srv.URL+"/admin"), chromedp.WaitVisible(chromedp.ID("password")))
		b.do(t, "log in to come back",
			chromedp.SendKeys(chromedp.ID("email"), adminEmail),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.CSS("main button[type=submit]")),
			chromedp.WaitVisible(chromedp.ID("accounts")))
		if got := b.location(t); got != "/admin" {
			t.Fatalf("after logging in: %s, want /admin", got)
		}
		b.logOut(t)

		b.logIn(t, email, testPassword)
		if got := b.text(t, "#plan"); got != "pro" {
			t.Fatalf("plan %q after the admin set pro", got)
		}
		// A plan an administrator set is the administrator's to change: the
		// page says so once, above the cards.
		if n := strings.Count(b.text(t, "main"), "An administrator set your plan"); n != 1 || !strings.Contains(b.text(t, "#plan-by-admin"), "ask an administrator") {
			t.Fatalf("the page says %d times that an administrator set the plan", n)
		}
		if eval[bool](t, b, `!!document.querySelector(".plans button[type=submit], .plans a.button")`) {
			t.Fatal("the plan cards offer to switch a plan an administrator set")
		}
		b.logOut(t)
	})
}

// checkoutJourney changes a plan through a payment provider's page.
func checkoutJourney(t *testing.T) {
	step := journeySteps(t)
	step("a plan change through checkout", func(t *testing.T) {
		pay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "<!doctype html><title>Pay</title><h1>Payment page</h1><p id=query>%s</p>", r.URL.RawQuery)
		}))
		defer pay.Close()
		checkout, err := server.NewTemplateCheckout(pay.URL + "/checkout?product={product_id}&ref={ref}")
		if err != nil {
			t.Fatal(err)
		}
		shop := newEnv(t, func(d *server.Deps) { d.Checkout = checkout })
		shop.account("buyer@example.com", store.PlanStarter)
		if _, err := shop.store.CreateProduct(context.Background(), store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
			t.Fatal(err)
		}
		_, b := journeyServer(t, shop)
		b.logIn(t, "buyer@example.com", testPassword)
		if got := b.text(t, ".plans"); !strings.Contains(got, "9.00 EUR a month") {
			t.Fatalf("plan cards: %q", got)
		}
		b.do(t, "upgrade", chromedp.Click(chromedp.CSS(`.plans button[type=submit]:not(.secondary)`)), chromedp.WaitVisible(chromedp.CSS("#query")))
		if got := b.text(t, "#query"); !strings.Contains(got, "ref=account-") {
			t.Fatalf("checkout got %q", got)
		}
		if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); !strings.HasPrefix(loc, pay.URL+"/checkout") {
			t.Fatalf("the browser is at %s, not the payment page", loc)
		}
	})
}

// invitesJourney: on a server that registers only from invite links, an
// administrator creates links on the admin page, copies one, revokes one,
// and a second person registers with another and verifies; at a phone's
// width the admin page's tables and the hash identifier's stay readable.
func invitesJourney(t *testing.T) {
	e := newEnv(t, withRegistration(server.RegistrationInvite), func(d *server.Deps) { d.Mailer = nil })
	const adminEmail = "boss@example.com"
	e.adminSession(adminEmail)
	// A product, so that the products table is on the admin page too.
	if _, err := e.store.CreateProduct(context.Background(), store.Product{Name: "Pro monthly", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
		t.Fatal(err)
	}
	srv, b := journeyServer(t, e)
	step := journeySteps(t)
	// The copy button writes to the clipboard, which the test reads back.
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: srv.URL}); err != nil {
			t.Fatal(err)
		}
	}
	liveInvites := func(t *testing.T) int {
		return eval[int](t, b, `document.querySelectorAll("#invites tbody tr").length`)
	}
	rfc3339 := regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}`)
	// createInvite presses the admin page's button and returns the link
	// the page it lands on shows.
	createInvite := func(t *testing.T) *url.URL {
		t.Helper()
		b.do(t, "create an invite", chromedp.Click(chromedp.CSS("#create-invite button[type=submit]")), chromedp.WaitVisible(chromedp.ID("new-invite")))
		// POST/redirect/GET: the browser is on a page a reload only reads.
		if got, want := b.location(t), "/admin?done=invite_created"; got != want {
			t.Fatalf("after creating an invite the browser is at %s, want %s", got, want)
		}
		b.waitText(t, ".alert.notice", "shown only this once")
		link, err := url.Parse(b.text(t, "#invite-url"))
		if err != nil || srv.URL+link.Path != srv.URL+"/register" || link.Query().Get("invite") == "" {
			t.Fatalf("the new invite link %q (%v)", link, err)
		}
		if got := b.text(t, "#new-invite"); rfc3339.MatchString(got) || !strings.Contains(got, "works until") {
			t.Fatalf("the new invite's panel: %q", got)
		}
		return link
	}
	inviteID := func(link *url.URL) string { return hex.EncodeToString(apikey.Hash(link.Query().Get("invite"))) }
	var first, second *url.URL

	step("an invite link, shown once", func(t *testing.T) {
		b.logIn(t, adminEmail, testPassword)
		b.open(t, "/admin")
		if n := liveInvites(t); n != 0 {
			t.Fatalf("%d live invites on a new server", n)
		}
		b.waitText(t, "main", "No live invites")
		first = createInvite(t)
		if n := liveInvites(t); n != 1 {
			t.Fatalf("%d live invites after creating one", n)
		}
		// The list names each invite as the new link's panel and the audit
		// log do, says when it was made and when it expires, as dates, and
		// who made it.
		row := b.text(t, "#invites tbody tr")
		if rfc3339.MatchString(row) || !strings.Contains(row, adminEmail) || !strings.Contains(row, inviteID(first)[:12]) ||
			!strings.Contains(b.text(t, "#new-invite"), inviteID(first)[:12]) {
			t.Fatalf("the invite's row: %q", row)
		}
		expires, err := time.Parse("2 Jan 2006 15:04 UTC", b.text(t, "#invites tbody td:nth-child(3)"))
		if err != nil {
			t.Fatalf("the expiry is not shown as a date: %v", err)
		}
		if until := time.Until(expires); until < 7*24*time.Hour-5*time.Minute || until > 7*24*time.Hour {
			t.Fatalf("the invite expires %s, in %s, not in 7 days", expires, until)
		}
		b.do(t, "top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.shot(t, "admin-invite", false)
	})

	step("the copy button puts the link on the clipboard", func(t *testing.T) {
		b.do(t, "copy", chromedp.Click(chromedp.CSS(`[data-copy="invite-url"]`)))
		b.waitText(t, `[data-copy="invite-url"]`, "Copied")
		clip, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("reading the clipboard: %v", err)
		}
		if clip != first.String() {
			t.Fatalf("the clipboard holds %q, want the link %q", clip, first)
		}
	})

	step("a reload mints no invite and shows the link no more", func(t *testing.T) {
		b.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("invites")))
		if eval[bool](t, b, `!!document.getElementById("new-invite")`) {
			t.Fatal("a reload shows the invite link again")
		}
		if n := liveInvites(t); n != 1 {
			t.Fatalf("%d live invites after a reload, want 1", n)
		}
		if list, err := e.store.Invites(context.Background(), 10); err != nil || len(list) != 1 {
			t.Fatalf("the store holds %d invites after a reload (%v), want 1", len(list), err)
		}
		second = createInvite(t)
		if n := liveInvites(t); n != 2 || second.String() == first.String() {
			t.Fatalf("%d live invites after a second one (%s, then %s)", n, first, second)
		}
	})

	step("the admin and hash identifier tables on a phone", func(t *testing.T) {
		b.do(t, "phone", chromedp.EmulateViewport(390, 844))
		defer b.do(t, "desktop", chromedp.EmulateViewport(1280, 900))
		b.open(t, "/admin")
		b.readableTables(t, "#accounts", "#invites", "#products", "#audit")
		b.do(t, "the invites", chromedp.ScrollIntoView(chromedp.ID("invites")))
		b.shot(t, "admin-phone", false)
		b.open(t, "/tools")
		b.do(t, "identify a batch", chromedp.SetValue(chromedp.ID("hashid-hash"), "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy\n5f4dcc3b5aa765d61d8327deb882cf99"),
			chromedp.Click(chromedp.CSS("#tool-hashid button[type=submit]")))
		b.waitText(t, "#tool-hashid [data-result]", "1 × bcrypt")
		b.readableTables(t, "#tool-hashid table")
		b.do(t, "the answer", chromedp.ScrollIntoView(chromedp.CSS("#tool-hashid [data-result]")))
		b.shot(t, "tools-hashid-phone", false)
	})

	step("revoke an invite", func(t *testing.T) {
		b.open(t, "/admin")
		b.do(t, "revoke the first invite",
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`#invites form[action="/admin/invites/revoke"]:has(input[name=id][value=%q]) button`, inviteID(first)))),
			chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
		b.waitText(t, ".alert.notice", "The invite was revoked")
		if got := b.location(t); got != "/admin?done=invite_revoked" {
			t.Fatalf("after revoking the browser is at %s", got)
		}
		if n := liveInvites(t); n != 1 {
			t.Fatalf("%d live invites after revoking one of 2", n)
		}
		if eval[bool](t, b, fmt.Sprintf(`!!document.querySelector('#invites input[value=%q]')`, inviteID(first))) {
			t.Fatal("the revoked invite is still listed")
		}
	})

	const invitee = "invitee@example.com"
	const password = "amber meadow violin tundra"
	guest := b.stranger(t)
	step("someone else registers with a link and verifies", func(t *testing.T) {
		// The revoked link registers no one, and says what to do.
		guest.expectFailure(first.RequestURI())
		guest.open(t, first.RequestURI())
		guest.waitText(t, ".alert.error", "ask an administrator for a new one")
		if eval[bool](t, guest, `!!document.getElementById("password")`) {
			t.Fatal("the revoked link shows the registration form")
		}

		guest.open(t, second.RequestURI())
		if got := guest.text(t, "main"); !strings.Contains(got, "works until your account is verified") {
			t.Fatalf("the invite's register page: %q", got)
		}
		guest.register(t, invitee, password)
		guest.waitText(t, "main", "Open the same invite link")

		// The administrator sees the invite in use, and not yet spent.
		b.do(t, "reload the admin page", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("invites")))
		if got := b.text(t, "#invites tbody td:nth-child(5)"); got != "1" {
			t.Fatalf("registered, not verified: %q, want 1", got)
		}

		guest.verify(t, e, invitee, password)

		// Verified, the account has spent the invite.
		b.do(t, "reload the admin page", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("accounts")))
		b.waitText(t, "main", "No live invites")
		b.waitText(t, "#accounts", invitee)
		b.readableTables(t, "#accounts", "#products", "#audit")
	})
}

// showPasswordToggles checks that, on the account forms, "Show password"
// turns the password field into text and back, from static/app.js under
// the page's Content-Security-Policy (a violation fails the journey).
func (b *browser) showPasswordToggles(t *testing.T) {
	for _, tc := range []struct{ page, field string }{
		{"/login", "password"}, {"/register", "password"}, {"/forgot-password/verify", "new_password"},
	} {
		b.open(t, tc.page)
		toggle := `main [data-show-password="` + tc.field + `"]`
		typeOf := `document.getElementById("` + tc.field + `").type`
		b.do(t, "type a password on "+tc.page, chromedp.WaitVisible(chromedp.CSS(toggle)), chromedp.SendKeys(chromedp.ID(tc.field), "secret words"))
		if got := eval[string](t, b, typeOf); got != "password" {
			t.Fatalf("%s: the field starts as %q", tc.page, got)
		}
		b.do(t, "show", chromedp.Click(chromedp.CSS(toggle)))
		if got, label := eval[string](t, b, typeOf), b.text(t, toggle); got != "text" || label != "Hide password" {
			t.Fatalf("%s: shown as %q, button %q", tc.page, got, label)
		}
		b.do(t, "hide", chromedp.Click(chromedp.CSS(toggle)))
		if got := eval[string](t, b, typeOf); got != "password" {
			t.Fatalf("%s: hidden again as %q", tc.page, got)
		}
	}
}

// controlsInView fails when a button, link or field of the table sel lies
// outside the table's scroll box at the window's width (an action the
// reader must scroll sideways to find, or cannot see), or when a password
// field has no button in its form.
func (b *browser) controlsInView(t *testing.T, sel string) {
	t.Helper()
	problems := eval[[]string](t, b, fmt.Sprintf(`((sel) => {
		const out = [];
		const table = document.querySelector(sel);
		if (!table) return [sel + ": no such table"];
		const box = table.closest(".table-scroll").getBoundingClientRect();
		for (const c of table.querySelectorAll("button, a, input:not([type=hidden]), select")) {
			const r = c.getBoundingClientRect();
			if (r.left < box.left - 1 || r.right > box.right + 1) {
				out.push(sel + ": " + c.tagName.toLowerCase() + " " + JSON.stringify(c.textContent || c.getAttribute("aria-label")) +
					" spans " + r.left.toFixed(0) + "–" + r.right.toFixed(0) + "px, its scroll box " + box.left.toFixed(0) + "–" + box.right.toFixed(0) + "px");
			}
		}
		for (const field of table.querySelectorAll("input[type=password]")) {
			if (!field.form || !field.form.querySelector("button[type=submit]")) out.push(sel + ": a password field without a button");
		}
		return out;
	})(%q)`, sel))
	for _, p := range problems {
		t.Errorf("%s at %vpx: %s", b.location(t), eval[float64](t, b, "window.innerWidth"), p)
	}
}

// readableTables fails when the page scrolls sideways at the window's
// width, when a table of sels is wider than its panel (its last columns
// out of view), or when a cell of a table sels names is narrower than 4
// characters of its font (or than its text, when that is shorter): such a
// cell stacks its text a word or a few letters a line.
func (b *browser) readableTables(t *testing.T, sels ...string) {
	t.Helper()
	list, err := json.Marshal(sels)
	if err != nil {
		t.Fatal(err)
	}
	problems := eval[[]string](t, b, `((sels) => {
		const out = [];
		const over = document.scrollingElement.scrollWidth - window.innerWidth;
		if (over > 0) out.push("the page scrolls sideways: " + over + "px wider than the window");
		const ruler = document.createElement("canvas").getContext("2d");
		for (const sel of sels) {
			const table = document.querySelector(sel);
			if (!table) { out.push(sel + ": no such table"); continue; }
			const hidden = table.scrollWidth - table.parentElement.clientWidth;
			if (hidden > 1) out.push(sel + ": " + hidden + "px of the table are out of view, past the side of its panel");
			for (const cell of table.querySelectorAll("th, td")) {
				if (!cell.getClientRects().length) continue; // not shown
				const style = getComputedStyle(cell);
				ruler.font = style.font;
				const content = cell.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
				// A cell may be as narrow as its text on one line ("Id", "1").
				const least = Math.min(ruler.measureText("0000").width, ruler.measureText(cell.textContent.trim()).width);
				if (content + 1 < least) out.push(sel + ": a cell " + content.toFixed(0) + "px wide (4 characters are " + least.toFixed(0) + "px): " + JSON.stringify(cell.textContent.trim().slice(0, 40)));
			}
		}
		return out;
	})(`+string(list)+`)`)
	for _, p := range problems {
		t.Errorf("%s at %vpx: %s", b.location(t), eval[float64](t, b, "window.innerWidth"), p)
	}
}
