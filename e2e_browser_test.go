package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"secutil/cmd/cmdtest"
	"secutil/server/browsertest"
)

var allBrowserTests = flag.Bool("browser.all", false, "run TestBrowserFirstStart, a browser journey (.ci/run does)")

// TestBrowserFirstStart is the first run as a new operator lives it: the
// secutil process starts on an empty database and prints a setup link; the
// link, opened in headless Chromium, creates the first administrator and
// logs it in; that account then gets a key and calls the API. Any script
// error or Content-Security-Policy violation fails it. A browser costs
// seconds of CPU and TestFirstStartPrintsTheSetupLink covers the link
// without one, so it runs only with -browser.all; it is skipped without
// Chromium; .ci/run installs Chromium and requires it to pass.
func TestBrowserFirstStart(t *testing.T) {
	t.Parallel()
	if !*allBrowserTests {
		t.Skip("a browser journey: go test -run '^TestBrowserFirstStart$' -browser.all . runs it (.ci/run does)")
	}
	if testing.Short() {
		t.Skip("runs the binary")
	}
	browser := browsertest.Find()
	if browser == "" {
		t.Skip("no Chromium on PATH: skipping the browser test (" + browsertest.Install + "; .ci/run does)")
	}
	bin := secutilBinary(t)
	db := filepath.Join(t.TempDir(), "empty.db")
	_, base, stdout, _ := startBinary(t, bin, db)
	setupURL := cmdtest.SetupLine.FindString(stdout.String())
	if setupURL == "" {
		t.Fatalf("no setup link in the start message:\n%s", stdout)
	}

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.Options(browser, t.TempDir())...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			problems = append(problems, "script exception: "+e.ExceptionDetails.Text)
		}
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && e.Entry.Level == cdplog.EntryLevelError {
			problems = append(problems, "console: "+e.Entry.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancelRun := context.WithTimeout(ctx, 60*time.Second)
	defer cancelRun()

	const email, password = "first@example.com", "quiet harbour lantern orchid"
	if err := chromedp.Do(ctx,
		chromedp.Navigate(setupURL),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("main button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("accounts"))); err != nil {
		t.Fatalf("setting up in the browser: %v", err)
	}
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	notice, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".alert.notice")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(location, "/admin?done=setup") || !strings.Contains(notice, "first administrator") {
		t.Fatalf("after setup: at %s, notice %q", location, notice)
	}

	t.Run("the link is spent", func(t *testing.T) {
		res, err := http.Get(setupURL)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusGone || !strings.Contains(string(page), "Setup is done") {
			t.Fatalf("the setup link again: %d\n%s", res.StatusCode, page)
		}
	})

	t.Run("the administrator calls the API", func(t *testing.T) {
		status, m := cmdtest.PostJSON(t, base+"/api/v1/get_api_key", "", map[string]string{"email": email, "password": password})
		if status != 200 {
			t.Fatalf("get_api_key: %d %v", status, m)
		}
		status, m = cmdtest.PostJSON(t, base+"/api/v1/user_info", m["api_key"].(string), nil)
		if status != 200 || m["email"] != email || m["plan"] != "pro" || m["max_usage_for_plan"] != nil {
			t.Fatalf("user_info: %d %v", status, m)
		}
	})

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser reported %s", p)
	}
}
