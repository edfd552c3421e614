package server_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// screenshotPages names the template each screenshot of the browser test
// shows.
var screenshotPages = map[string]string{
	"home":               "home",
	"tools":              "tools",
	"tools-dark":         "tools",
	"tools-phone":        "tools",
	"tools-hashid-phone": "tools",
	"tools-file":         "tools",
	"tools-file-phone":   "tools",
	"dashboard":          "dashboard",
	"dashboard-new-key":  "dashboard",
	"dashboard-phone":    "dashboard",
	"not-found":          "status",
	"admin":              "admin",
	"admin-invite":       "admin",
	"admin-phone":        "admin",
}

// screenshotSources records, for each screenshot, the template it shows
// and that template's SHA-256 when the browser test took it.
const screenshotSources = "../docs/screenshots/sources.txt"

const refreshScreenshots = "go test ./server -run '^TestBrowserJourney$' -update"

func templateHash(t testing.TB, page string) string {
	t.Helper()
	raw, err := os.ReadFile("../templates/" + page + ".html")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// writeScreenshotSources records the templates the screenshots show.
func writeScreenshotSources(t testing.TB) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by %s at %s: each screenshot,\n# the template it shows and that template's SHA-256 (TestScreenshotsShowTheCurrentPages).\n",
		refreshScreenshots, time.Now().UTC().Format(time.RFC3339))
	for _, name := range slices.Sorted(maps.Keys(screenshotPages)) {
		page := screenshotPages[name]
		fmt.Fprintf(&b, "%s.png templates/%s.html %s\n", name, page, templateHash(t, page))
	}
	if err := os.WriteFile(screenshotSources, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestScreenshotsShowTheCurrentPages fails when a screenshot the README
// shows was taken of a template that has changed since, so the README
// never shows a page as it no longer is. The browser test records each
// template's SHA-256 as it takes the screenshots: a change that shows no
// difference still asks for a fresh run, and a change merged from another
// branch is caught whatever the commit times. In a git checkout it also
// holds the record's commit time to be no older than the templates' (the
// record names the time it was written, so a fresh run can always be
// committed, even when nothing it shows changed).
func TestScreenshotsShowTheCurrentPages(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile(`docs/screenshots/([a-z0-9-]+\.png)`).FindAllStringSubmatch(string(readme), -1)
	if len(shown) == 0 {
		t.Fatal("the README shows no screenshot")
	}
	recorded := readScreenshotSources(t)
	for _, m := range shown {
		name := m[1]
		rec, ok := recorded[name]
		if !ok {
			t.Errorf("the README shows %s, which the browser test does not take (add it to screenshotPages and run %s)", name, refreshScreenshots)
			continue
		}
		if _, err := os.Stat("../docs/screenshots/" + name); err != nil {
			t.Errorf("the README shows %s: %v", name, err)
		}
		page := strings.TrimSuffix(strings.TrimPrefix(rec.template, "templates/"), ".html")
		if want := screenshotPages[strings.TrimSuffix(name, ".png")]; page != want {
			t.Errorf("%s was taken of %s, but shows templates/%s.html now: run %s", name, rec.template, want, refreshScreenshots)
			continue
		}
		if rec.hash != templateHash(t, page) {
			t.Errorf("docs/screenshots/%s is older than %s, which changed since it was taken: run %s and commit the screenshots", name, rec.template, refreshScreenshots)
		}
	}

	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	if _, err := os.Stat("../.git"); err != nil {
		return // not a git checkout: the hashes above are the whole check
	}
	taken := commitTime(t, "docs/screenshots/sources.txt")
	for _, rec := range recorded {
		if changed := commitTime(t, rec.template); taken.Before(changed) {
			t.Errorf("the screenshots (recorded %s) are older than %s (committed %s): run %s and commit the screenshots",
				taken.Format(time.RFC3339), rec.template, changed.Format(time.RFC3339), refreshScreenshots)
		}
	}
}

type screenshotSource struct{ template, hash string }

func readScreenshotSources(t *testing.T) map[string]screenshotSource {
	t.Helper()
	f, err := os.Open(screenshotSources)
	if err != nil {
		t.Fatalf("%v: run %s", err, refreshScreenshots)
	}
	defer f.Close()
	out := map[string]screenshotSource{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && !strings.HasPrefix(fields[0], "#") {
			out[fields[0]] = screenshotSource{template: fields[1], hash: fields[2]}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// commitTime is when the last commit touching path was made. A path with
// no commit (the record written but not committed yet) counts as now.
func commitTime(t *testing.T, path string) time.Time {
	t.Helper()
	out, err := exec.Command("git", "-C", "..", "log", "-1", "--format=%ct", "--", path).Output()
	if err != nil {
		t.Fatalf("git log %s: %v", path, err)
	}
	unix, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Now()
	}
	return time.Unix(unix, 0)
}
