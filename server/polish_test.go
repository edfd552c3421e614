package server_test

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"secutil/tools/apikey"
	"strings"
	"testing"

	"secutil/store"
)

// TestOneCallIsSingular: a count of one is written "1 call", on the
// utilities page and in the dashboard chart's day titles (the rest of the
// dashboard's wording is its template's).
func TestOneCallIsSingular(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("one@example.com", store.PlanEnterprise) // no cap
	e.fill(id, 1)
	session := &http.Cookie{Name: "auth_session", Value: e.login("one@example.com")}
	page := string(e.browse("GET", "/tools", nil, session).want(http.StatusOK).body)
	if !strings.Contains(page, "<strong>1 call</strong> this month") {
		t.Errorf("/tools: no singular \"1 call\":\n%s", page)
	}
	dashboard := string(e.browse("GET", "/dashboard", nil, session).want(http.StatusOK).body)
	if !strings.Contains(dashboard, ": 1 call</title>") || strings.Contains(dashboard, ": 1 calls</title>") {
		t.Errorf("/dashboard: the chart's day says \"1 calls\":\n%s", dashboard)
	}
}

// TestFavicon: /favicon.ico, where browsers look for an icon, is the
// site's SVG icon rather than a JSON 404.
func TestFavicon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.request("GET", "/favicon.ico", nil).want(http.StatusOK)
	want, err := os.ReadFile("../static/favicon.svg")
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("Content-Type %q", ct)
	}
	if !bytes.Equal(res.body, want) {
		t.Error("the body is not static/favicon.svg")
	}
	e.request("GET", "/favicon.ico", nil, "If-None-Match", res.header.Get("ETag")).want(http.StatusNotModified)
}

// TestKeyRefusalsSayWhatIsWrong: a missing key, a mistyped one and one
// that is revoked and one never made get four different 401 messages,
// each saying what to do.
func TestKeyRefusalsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("keys@example.com", store.PlanPro)
	revoked := key
	session := e.login("keys@example.com")
	e.post("/api/v1/regenerate", nil, "Cookie", session).want(http.StatusOK) // rotates the default key
	mistyped := key[:len(key)-1] + string(rune('a'+(key[len(key)-1]-'a'+1)%26))
	body := map[string]string{"text": "x", "option": "encode"}
	seen := map[string]string{}
	for name, c := range map[string]struct {
		key, says string
	}{
		"missing":   {"", "no API key"},
		"mistyped":  {mistyped, "copy the whole key again"},
		"truncated": {key[:20], "copy the whole key again"},
		"revoked":   {revoked, "revoked"},
		"unknown":   {apikey.New(), "never made on this server"},
	} {
		msg := e.post("/api/v1/base64", body, "X-API-Key", c.key).wantError(http.StatusUnauthorized, "unauthorized")["error"].(string)
		if !strings.Contains(msg, c.says) {
			t.Errorf("%s key: %q does not say %q", name, msg, c.says)
		}
		seen[msg] = name
	}
	if len(seen) != 4 {
		t.Errorf("%d distinct messages, want 4 (missing, mistyped, revoked, unknown): %v", len(seen), seen)
	}
}

// TestUnknownRouteSuggestsTheNearest: a 404 names the route nearest to a
// mistyped path, and none when nothing is near.
func TestUnknownRouteSuggestsTheNearest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for path, want := range map[string]string{
		"/api/v1/bas64":        "did you mean POST /api/v1/base64?",
		"/api/v1/hash_lookups": "did you mean POST /api/v1/hash_lookup?",
		"/api/hash_identifer":  "did you mean POST /api/hash_identifier?",
		"/tool":                "did you mean GET /tools?",
		"/nothing-like-it":     "",
	} {
		msg := e.post(path, map[string]string{}).wantError(http.StatusNotFound, "not_found")["error"].(string)
		if want == "" && strings.Contains(msg, "did you mean") || !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", path, msg, want)
		}
	}
}

// TestDocsTablesKeepNamesWhole: every table of the docs pages is a
// docs-table, whose code cells app.css keeps from breaking mid-word
// (what a browser then draws is for the screenshots).
func TestDocsTablesKeepNamesWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	css := string(e.request("GET", "/static/app.css", nil).want(http.StatusOK).body)
	rule := regexp.MustCompile(`table\.docs-table td code \{([^}]*)\}`).FindStringSubmatch(css)
	if rule == nil || !strings.Contains(rule[1], "white-space: nowrap") || !strings.Contains(rule[1], "overflow-wrap: normal") {
		t.Fatalf("app.css has no rule keeping docs-table code whole: %q", rule)
	}
	tables := 0
	for _, path := range []string{"/docs", "/docs/errors", "/docs/hashes", "/docs/ip_info", "/docs/rate_limits"} {
		page := string(e.request("GET", path, nil).want(http.StatusOK).body)
		for _, tag := range regexp.MustCompile(`<table[^>]*>`).FindAllString(page, -1) {
			tables++
			if !strings.Contains(tag, `class="docs-table"`) {
				t.Errorf("%s: %s is not a docs-table", path, tag)
			}
		}
	}
	if tables < 5 {
		t.Errorf("only %d tables found", tables)
	}
}

// TestCrossOriginRefusalSaysWhatToDo: a browser's POST from another site
// is refused with a message that says why and where the call belongs.
func TestCrossOriginRefusalSaysWhatToDo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	msg := e.post("/api/v1/base64", map[string]string{"text": "x", "option": "encode"},
		"Sec-Fetch-Site", "cross-site", "Origin", "https://app.example").wantError(http.StatusForbidden, "cross_origin_request")["error"].(string)
	for _, says := range []string{"cannot call this API from the browser", "from your own server"} {
		if !strings.Contains(msg, says) {
			t.Errorf("%q does not say %q", msg, says)
		}
	}
}

// TestAnonymousToolsPageAsksToSignIn: logged out, /tools shows a sign-in
// call-out listing the tools, and no form that could only fail.
func TestAnonymousToolsPageAsksToSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := string(e.browse("GET", "/tools", nil).want(http.StatusOK).body)
	if !strings.Contains(page, `id="sign-in"`) || !strings.Contains(page, `href="/login?next=/tools"`) {
		t.Errorf("no sign-in call-out:\n%s", page)
	}
	if regexp.MustCompile(`<form[^>]*action="/[a-z_0-9]+#tool-`).MatchString(page) {
		t.Error("the logged-out page still shows the tools' forms")
	}
}

// TestPagesShowMessagesAsSentences: an error shown on a page starts with
// a capital and ends with a full stop.
func TestPagesShowMessagesAsSentences(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := string(e.browse("POST", "/base64", url.Values{"text": {"x"}, "option": {"encode"}}).want(http.StatusUnauthorized).body)
	if !strings.Contains(page, "Log in or send an API key in the X-API-Key header.</p>") {
		t.Errorf("the refusal is not shown as a sentence:\n%s", page)
	}
}

// TestJWTWarningIsAWarning: a token decoded with a warning (here: no
// signature) answers 200, and the page shows the warning as a warning,
// not as an error.
func TestJWTWarningIsAWarning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	session := e.browserSession("jwt@example.com")
	unsigned := "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."
	page := string(e.browse("POST", "/jwt_decoder", url.Values{"token": {unsigned}}, session).want(http.StatusOK).body)
	panel := panelOf(t, []byte(page), "tool-jwt")
	if !strings.Contains(panel, `class="alert warning"`) || strings.Contains(panel, `class="alert error"`) {
		t.Errorf("the warning is not shown as a warning:\n%s", panel)
	}
}

// TestHashIDOffersNoCommandForNotAHash: a string that is recognisably not
// a hash gets no hashcat command on the page, and the answers nobody
// copies (strength, entropy; also common, breach, a suggestion's thanks)
// have no copy button.
func TestHashIDOffersNoCommandForNotAHash(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	session := e.browserSession("hid@example.com")
	for _, s := range []string{"123e4567-e89b-12d3-a456-426614174000", "1234567", "password"} {
		page := string(e.browse("POST", "/hash_identifier", url.Values{"hash": {s}}, session).want(http.StatusOK).body)
		panel := panelOf(t, []byte(page), "tool-hashid")
		if !strings.Contains(panel, "not a hash") || strings.Contains(panel, "Crack it with hashcat") {
			t.Errorf("%s: the panel offers a hashcat command for not a hash:\n%s", s, panel)
		}
	}
	for path, id := range map[string]string{"/password_check": "strength-out", "/entropy": "entropy-out"} {
		page := string(e.browse("POST", path, url.Values{"password": {"x"}}, session).want(http.StatusOK).body)
		if !strings.Contains(page, `id="`+id+`"`) || strings.Contains(page, `data-copy="`+id+`"`) {
			t.Errorf("%s: no answer, or a copy button for it", path)
		}
	}
}

// TestLookupNotFoundInThePlaintextColumn: a hash the lookup does not know
// says "not found" under Plaintext, with the Type cell empty, so the
// columns keep their meaning.
func TestLookupNotFoundInThePlaintextColumn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	session := e.browserSession("lk@example.com")
	unknown := strings.Repeat("ab", 16)
	page := string(e.browse("POST", "/hash_lookup", url.Values{"hashes": {unknown}}, session).want(http.StatusOK).body)
	row := regexp.MustCompile(`(?s)<tr><td><code>` + unknown + `</code></td>(.*?)</tr>`).FindStringSubmatch(page)
	if row == nil {
		t.Fatalf("no row for the hash:\n%s", page)
	}
	cells := regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row[1], -1)
	if len(cells) != 2 || !strings.Contains(cells[1][1], "not found") || strings.Contains(cells[0][1], "not found") {
		t.Errorf("cells %q: want Type empty and Plaintext \"not found\"", row[1])
	}
}

// TestHashLookupTakesAnArray: "hashes" may be an array of strings, as for
// /hash_identifier, with the same answer as the one-string form; another
// type is a 400 that names the field.
func TestHashLookupTakesAnArray(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("arr@example.com", store.PlanPro)
	a, b := strings.Repeat("ab", 16), strings.Repeat("cd", 16)
	asArray := e.post("/api/v1/hash_lookup", map[string]any{"hashes": []string{a, b}}, "X-API-Key", key).want(http.StatusOK)
	asString := e.post("/api/v1/hash_lookup", map[string]any{"hashes": a + "\n" + b}, "X-API-Key", key).want(http.StatusOK)
	if !bytes.Equal(asArray.body, asString.body) {
		t.Errorf("array %s, string %s", asArray.body, asString.body)
	}
	msg := e.post("/api/v1/hash_lookup", map[string]any{"hashes": 5}, "X-API-Key", key).wantError(http.StatusBadRequest, "invalid_field")["error"].(string)
	if !strings.Contains(msg, `"hashes"`) {
		t.Errorf("%q does not name the field", msg)
	}
	e.post("/api/v1/hash_lookup", map[string]any{}, "X-API-Key", key).wantError(http.StatusBadRequest, "missing_field")
}

// TestBreachOnTheCommonListSaysSo: a password found in the embedded list,
// which has no counts, keeps "count": 0 and says "in the common list"
// rather than leaving 0 to read as "seen 0 times".
func TestBreachOnTheCommonListSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("br@example.com", store.PlanPro)
	found := e.post("/api/v1/data_breach", map[string]string{"password": "letmein"}, "X-API-Key", key).want(http.StatusOK).json()
	if found["breached"] != true || found["count"] != float64(0) || !strings.Contains(found["message"].(string), "in the common list") {
		t.Errorf("listed: %v", found)
	}
	missed := e.post("/api/v1/data_breach", map[string]string{"password": "a long passphrase nobody has used"}, "X-API-Key", key).want(http.StatusOK).json()
	if missed["breached"] != false || !strings.HasPrefix(missed["message"].(string), "not found in") {
		t.Errorf("not listed: %v", missed)
	}
	page := string(e.browse("GET", "/docs/operating", nil).want(http.StatusOK).body)
	if !strings.Contains(page, `id="breach-data"`) {
		t.Error("/docs/operating has no breach-data section for the breach panel to link to")
	}
}

// TestHomeSaysIPLookupWorksOutOfTheBox: the embedded data answers country
// and ASN with no database to provide, and the home page says so.
func TestHomeSaysIPLookupWorksOutOfTheBox(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := string(e.request("GET", "/", nil).want(http.StatusOK).body)
	if !strings.Contains(home, "Country and ASN out of the box") || strings.Contains(home, "databases you provide") {
		t.Error("the home page does not say country and ASN work out of the box")
	}
}

// browserSession makes a verified pro account and returns the session
// cookie of its login.
func (e *env) browserSession(email string) *http.Cookie {
	e.t.Helper()
	e.account(email, store.PlanPro)
	return &http.Cookie{Name: "auth_session", Value: e.login(email)}
}
