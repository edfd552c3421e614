// Package browsertest starts the headless Chromium that the browser tests
// drive (TestBrowserJourney in server, TestBrowserFirstStart in package
// main), found and configured the same way for both. Test-only: no package
// of the binary imports it.
package browsertest

import (
	"os/exec"

	"github.com/chromedp/chromedp"
)

// names are the browsers Find looks for on PATH, in order. The first is
// Chromium's headless shell (Debian's chromium-headless-shell): the same
// engine without the desktop browser around it. It starts on a sixth of the
// CPU a full Chromium needs (0.6 CPU-seconds against 3.2 to 4.4 for an
// empty page on a 2-core machine), and the keys journey costs half as much.
var names = []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Install is the command that installs the browser Find prefers, for the
// message of a test that skips without one.
const Install = "apt-get install chromium-headless-shell"

// Find returns the path of the first of names on PATH, or "" when there is
// none.
func Find() string {
	for _, name := range names {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// Options are the allocator options for the browser at path, with its
// profile in userDataDir (a test's own temporary folder).
func Options(path, userDataDir string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(userDataDir),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		// One process instead of a browser, a renderer, a GPU process and
		// a zygote: about a third less CPU. Such a browser cannot open a
		// second browser context, so a second person needs a browser of
		// their own.
		chromedp.Flag("single-process", true), chromedp.Flag("no-zygote", true))
}
