package server_test

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

func TestStaticAssetsAreVersionedAndCached(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := string(e.request("GET", "/", nil).want(200).body)
	css := regexp.MustCompile(`/static/app\.css\?v=[0-9a-f]+`).FindString(page)
	if css == "" {
		t.Fatal("the page links no versioned stylesheet")
	}
	res := e.request("GET", css, nil).want(200)
	if got := res.header.Get("Cache-Control"); !strings.Contains(got, "immutable") {
		t.Fatalf("versioned asset Cache-Control %q", got)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Fatalf("Content-Type %q", ct)
	}
	e.request("GET", css, nil, "If-None-Match", res.header.Get("ETag")).want(304)
	if got := e.request("GET", "/static/app.css", nil).want(200).header.Get("Cache-Control"); got != "no-cache" {
		t.Fatalf("unversioned asset Cache-Control %q", got)
	}
	e.request("GET", "/static/nope.js", nil).wantError(404, "not_found")
}

// TestNoBrokenInternalLinks crawls every page reachable from the home page
// and the docs, logged out and logged in, and fetches every internal link
// and asset they name.
func TestNoBrokenInternalLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("links@example.com", store.PlanStarter)
	session := e.login("links@example.com")
	admin := e.adminSession("boss@example.com")
	link := regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)
	for _, cookie := range []string{"", session, admin} {
		seen := map[string]bool{}
		queue := []string{"/", "/docs", "/docs/", "/dashboard", "/admin"}
		for len(queue) > 0 {
			path := queue[0]
			queue = queue[1:]
			if seen[path] {
				continue
			}
			seen[path] = true
			var res response
			if cookie == "" {
				res = e.request("GET", path, nil)
			} else {
				res = e.request("GET", path, nil, "Cookie", cookie)
			}
			if (path == "/dashboard" || path == "/admin" || path == "/account") && cookie == "" ||
				(path == "/login" || path == "/register") && cookie != "" { // a logged-in browser goes on
				res.want(303)
				continue
			}
			if path == "/admin" && cookie == session {
				res.want(403)
				continue
			}
			if res.status != 200 {
				t.Errorf("GET %s: %d", path, res.status)
				continue
			}
			if !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(string(res.body), -1) {
				target := html.UnescapeString(m[1])
				if !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") {
					continue // a fragment or an external link
				}
				target, _, _ = strings.Cut(target, "#")
				if strings.Contains(m[0], "action=") {
					continue // a form's POST route, not a page
				}
				queue = append(queue, target)
			}
		}
		if len(seen) < 15 {
			t.Errorf("the crawl reached only %d URLs: %v", len(seen), seen)
		}
	}
}

// TestOpenAPIServed: /api-docs serves static/openapi.json, version as the
// server has it, paths in full, and /docs shows a curl example for every
// API route.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.request("GET", "/api-docs", nil).want(200)
	var doc struct {
		OpenAPI string
		Info    struct{ Version string }
		Servers []struct{ URL string }
	}
	if err := json.Unmarshal(res.body, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := doc.OpenAPI, "3.1.0"; got != want {
		t.Errorf("openapi: got %v, want %v", got, want)
	}
	if got, want := doc.Info.Version, server.APIVersion; got != want {
		t.Errorf("info.version: got %v, want %v", got, want)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Errorf("servers %v, want the origin alone (every path is written in full)", doc.Servers)
	}
	// Its paths are held to the router's patterns by TestContractCoversEveryRoute.
	routed := server.APIPaths()
	// The embedded file is the one served.
	raw, err := os.ReadFile("../static/openapi.json")
	if err != nil || string(raw) != string(res.body) {
		t.Errorf("served document differs from static/openapi.json (%v)", err)
	}
	// The examples use the address the page was reached by.
	ref := string(e.request("GET", "http://docs.example:8443/docs", nil).want(200).body)
	for _, path := range routed {
		if !strings.Contains(ref, "curl -s -X POST http://docs.example:8443/api/v1"+path) {
			t.Errorf("/docs shows no curl example for %s", path)
		}
	}
}

// TestOneItemIsSingular: a count of one is written "1 item", on the
// utilities page and in the dashboard chart's day titles (the rest of the
// dashboard's wording is its template's).
func TestOneItemIsSingular(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("one@example.com", store.PlanEnterprise) // no cap
	e.fill(id, 1)
	session := e.sessionCookie("one@example.com")
	page := string(e.browse("GET", "/tools", nil, session).want(http.StatusOK).body)
	if !strings.Contains(page, "<strong>1 item</strong> this month") {
		t.Errorf("/tools: no singular \"1 item\":\n%s", page)
	}
	dashboard := string(e.browse("GET", "/dashboard", nil, session).want(http.StatusOK).body)
	if !strings.Contains(dashboard, ": 1 item</title>") || strings.Contains(dashboard, ": 1 items</title>") {
		t.Errorf("/dashboard: the chart's day says \"1 items\":\n%s", dashboard)
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

// TestAlertsSitUnderTheHeading: every page's alerts come right after its
// h1, capitalised.
func TestAlertsSitUnderTheHeading(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("alert@example.com", store.PlanStarter)
	res := e.form("/login", url.Values{"email": {"alert@example.com"}, "password": {"wrong password entirely"}}, "").want(401)
	if !regexp.MustCompile(`</h1>\s*<div class="alert error" role="alert">Invalid email or password\.</div>`).Match(res.body) {
		t.Fatalf("the alert is not under the heading:\n%s", res.body)
	}
	page := e.request("GET", "/login?notice=verified", nil).want(200).body
	if !regexp.MustCompile(`</h1>\s*<div class="alert notice" role="status">Your account is verified`).Match(page) {
		t.Fatalf("the notice is not under the heading:\n%s", page)
	}
}

// TestCurlLinesUseTheRequestsOrigin: the curl examples name the address
// the page was reached by, and only a plain host name.
func TestCurlLinesUseTheRequestsOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Every curl line of the docs, and the reference's for every route.
	for _, path := range []string{"/docs", "/docs/getting_started", "/docs/authentication", "/docs/rate_limits", "/docs/security", "/docs/ip_info"} {
		page := string(e.request("GET", "http://docs.example"+path, nil).want(200).body)
		lines := strings.Count(page, "curl -s ")
		ours := strings.Count(page, "curl -s -X POST http://docs.example/") + strings.Count(page, "curl -s http://docs.example/")
		if lines == 0 && path == "/docs" || lines != ours {
			t.Errorf("%s: %d of its %d curl lines name another address", path, lines-ours, lines)
		}
	}
	for _, path := range []string{"/docs", "/docs/getting_started"} {
		e.request("GET", "https://api.example.org"+path, nil).want(200).has("curl -s -X POST https://api.example.org/api/v1/")
		// HTTPS as a trusted proxy says, and only then.
		behind := newEnv(t, behindProxy)
		behind.request("GET", "http://secutil.internal:8443"+path, nil, "RemoteAddr", "10.0.0.5:443", "X-Forwarded-Proto", "https").
			want(200).has("curl -s -X POST https://secutil.internal:8443/api/v1/")
		behind.request("GET", "http://secutil.internal:8443"+path, nil, "X-Forwarded-Proto", "https").
			want(200).has("curl -s -X POST http://secutil.internal:8443/api/v1/")
		// A Host header a shell would run never reaches a curl line.
		req := httptest.NewRequest("GET", path, nil)
		req.Host = "a$(reboot)"
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if body := rec.Body.String(); !strings.Contains(body, "curl -s -X POST http://localhost/api/v1/") || strings.Contains(body, "reboot") {
			t.Errorf("%s with a hostile Host header:\n%s", path, body)
		}
	}
}

// TestHomePromisesLinkToWorkingTools: every tool the home page promises
// links to its panel on the tools page.
func TestHomePromisesLinkToWorkingTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := string(e.request("GET", "/", nil).want(200).body)
	tools := string(e.request("GET", "/tools", nil).want(200).body)
	links := regexp.MustCompile(`href="/tools#(tool-[a-z0-9]+)"`).FindAllStringSubmatch(home, -1)
	found := map[string]bool{}
	for _, l := range links {
		found[l[1]] = true
		if !strings.Contains(tools, `id="`+l[1]+`"`) {
			t.Errorf("the home page links to /tools#%s, which is not on the tools page", l[1])
		}
	}
	for _, want := range []string{"tool-strength", "tool-breach", "tool-hashgen", "tool-hashid", "tool-lookup", "tool-ip", "tool-base64", "tool-jwt", "tool-randomkey", "tool-json", "tool-crypto"} {
		if !found[want] {
			t.Errorf("the home page does not link to /tools#%s", want)
		}
	}
}
