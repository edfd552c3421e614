package server_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"secutil/store"
)

// TestPrivacyPageNamesEveryCookieAndCount: every cookie the server sets
// (each name constant of server/*.go ending in Cookie) is named on the
// privacy page, and so is every table of the store that keeps a count
// about people (a column named count, codes, failures, attempts or
// tokens), by what the page calls it; and it says how long the hashes of
// revoked keys are kept.
func TestPrivacyPageNamesEveryCookieAndCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := string(e.request("GET", "/docs/privacy", nil).want(http.StatusOK).body)

	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	cookies := 0
	for _, path := range sources {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\w+Cookie\s+=\s+"([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
			cookies++
			if !strings.Contains(page, "<code>"+m[1]+"</code>") {
				t.Errorf("the privacy page does not name the cookie %s (%s)", m[1], path)
			}
		}
	}
	if cookies < 2 {
		t.Errorf("found %d cookie names; the pattern no longer matches the source", cookies)
	}

	if kept := fmt.Sprintf("for %d days", int(store.RevokedKeysKept.Hours()/24)); !strings.Contains(page, kept) {
		t.Errorf("the privacy page does not say how long revoked keys' hashes are kept (%q)", kept)
	}

	// What the page calls each counting table.
	named := map[string]string{
		"usage":              "calls per month",
		"usage_days":         "calls per day",
		"deleted_usage":      "When an account is deleted",
		"code_limits":        "how many codes were sent",
		"verification_codes": "wrong tries on it",
		"throttle":           "Rate limits",
	}
	migrations, err := filepath.Glob("../store/migrations/sqlite/*.sql")
	if err != nil || len(migrations) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	table := regexp.MustCompile(`(?s)CREATE TABLE (\w+) \((.*?)\n\)`)
	counter := regexp.MustCompile(`(?m)^\s*(count|codes|failures|attempts|tokens)\s`)
	for _, path := range migrations {
		sql, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range table.FindAllStringSubmatch(string(sql), -1) {
			if !counter.MatchString(m[2]) {
				continue
			}
			phrase, ok := named[m[1]]
			if !ok {
				t.Errorf("%s: table %s keeps a count the privacy page does not name (add it to the page and here)", path, m[1])
			} else if !strings.Contains(page, phrase) {
				t.Errorf("the privacy page does not say %q (table %s)", phrase, m[1])
			}
		}
	}
}
