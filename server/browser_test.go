package server_test

import (
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"secutil/server"
)

var updateScreenshots = flag.Bool("screenshots", false, "browser test: write its screenshots to docs/screenshots")

// findBrowser returns a Chromium-family browser on PATH, or "".
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

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

// TestBrowserJourney drives the real pages in headless Chromium: register,
// verify with the code from the server log, log in, see the dashboard,
// regenerate a key, check a password's strength, log out. Any script error
// or Content-Security-Policy violation fails it.
func TestBrowserJourney(t *testing.T) {
	browser := findBrowser()
	if browser == "" {
		t.Skip("no Chromium on PATH: skipping the browser test (install it with apt-get install chromium; .ci/run does)")
	}
	// The mailer is the default one, which writes codes to the server log.
	e := newEnv(t, func(d *server.Deps) { d.Mailer = nil })
	srv := httptest.NewServer(e.h)
	defer srv.Close()

	shots := t.TempDir()
	if *updateScreenshots {
		shots = filepath.Join("..", "docs", "screenshots")
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "script exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				problems = append(problems, "console: "+ev.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	// Bound the whole journey (the browser was started above, outside it).
	ctx, cancelRun := context.WithTimeout(ctx, 60*time.Second)
	defer cancelRun()

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimPrefix(loc, srv.URL)
	}

	const email = "browser@example.com"
	const password = "quiet harbour lantern orchid"

	do("home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("h1")))
	shot("home")

	do("register",
		chromedp.Navigate(srv.URL+"/register"),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("code")))
	if got, want := location(), "/register/verify?email=browser%40example.com"; got != want {
		t.Fatalf("after registering: got %v, want %v", got, want)
	}

	do("verify",
		chromedp.SendKeys(chromedp.ID("code"), loggedCode(t, e.logs.String(), email)),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
	if got := text(".alert.notice"); !strings.Contains(got, "verified") {
		t.Fatalf("login page notice %q", got)
	}

	do("log in",
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("plan")))
	if got, want := text("#plan"), "starter"; got != want {
		t.Fatalf("dashboard plan: got %v, want %v", got, want)
	}
	shot("dashboard")

	do("regenerate", chromedp.Click(chromedp.ID("regenerate")), chromedp.WaitVisible(chromedp.ID("fresh-key")))
	key := text("#fresh-key-value")
	if !regexp.MustCompile(`^sk_[A-Za-z0-9]{46}$`).MatchString(key) {
		t.Fatalf("regenerated key %q", key)
	}
	// The list shows the key by its prefix only.
	if hint := text("tbody code"); !strings.HasPrefix(key, strings.TrimSuffix(hint, "…")) || len(hint) > 12 {
		t.Fatalf("key list shows %q for key %q", hint, key)
	}
	shot("dashboard-new-key")

	do("password tool",
		chromedp.Navigate(srv.URL+"/tools"),
		chromedp.SendKeys(chromedp.ID("strength-password"), "correct horse battery staple"),
		chromedp.WaitVisible(chromedp.CSS(".score-label")))
	if got := text(".score-label"); !strings.HasPrefix(got, "Score ") {
		t.Fatalf("strength result %q", got)
	}
	shot("tools")
	do("hash identifier",
		chromedp.SendKeys(chromedp.ID("hashid-input"), "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy\n5f4dcc3b5aa765d61d8327deb882cf99"),
		chromedp.Click(chromedp.CSS("form[data-tool=hash_identifier] button")),
		chromedp.WaitVisible(chromedp.CSS("form[data-tool=hash_identifier] .candidates")))
	if got := text("form[data-tool=hash_identifier] .result"); !strings.Contains(got, "1 × bcrypt") ||
		!strings.Contains(got, "cost=10") || !strings.Contains(got, "hashcat -m 3200 hash.txt wordlist.txt") {
		t.Fatalf("hash identifier result %q", got)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	shot("tools-dark")

	do("phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.URL+"/dashboard"), chromedp.WaitVisible(chromedp.ID("plan")))
	shot("dashboard-phone")
	do("desktop", chromedp.EmulateViewport(1280, 900))

	do("log out", chromedp.Click(chromedp.CSS("nav.main button")), chromedp.WaitVisible(chromedp.CSS(".hero")))
	do("dashboard after logout", chromedp.Navigate(srv.URL+"/dashboard"), chromedp.WaitVisible(chromedp.CSS("input#password")))
	if got, want := location(), "/login"; got != want {
		t.Fatalf("dashboard after logout: got %v, want %v", got, want)
	}

	// An administrator finds the admin page in the nav, gives the browser
	// account the pro plan and locates an audited IP.
	const adminEmail = "boss@example.com"
	e.adminSession(adminEmail)
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}}); err != nil {
		t.Fatal(err)
	}
	do("admin log in",
		chromedp.SendKeys(chromedp.ID("email"), adminEmail),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("plan")),
		chromedp.Click(chromedp.CSS(`nav.main a[href="/admin"]`)),
		chromedp.WaitVisible(chromedp.ID("accounts")))
	do("admin set plan",
		chromedp.SendKeys(chromedp.ID("plan-email"), email),
		chromedp.SetValue(chromedp.ID("plan-plan"), "pro"),
		chromedp.Click(chromedp.CSS("#set-plan button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
	if got := text("#accounts"); !strings.Contains(got, email) || !strings.Contains(got, "pro") {
		t.Fatalf("accounts after set plan: %q", got)
	}
	do("admin locate", chromedp.Click(chromedp.CSS("[data-locate]")), chromedp.WaitVisible(chromedp.CSS(".located.found, .located.bad")))
	if got := text(".located.found, .located.bad"); !strings.Contains(got, "127.0.0.1") {
		t.Fatalf("located IP %q", got)
	}
	shot("admin")

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser reported %s", p)
	}
}
