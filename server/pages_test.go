package server_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
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

// form posts values the way a browser submits a form.
func (e *env) form(path string, values url.Values, session string) response {
	e.t.Helper()
	headers := []string{"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html,application/xhtml+xml"}
	if session != "" {
		headers = append(headers, "Cookie", session)
	}
	return e.post(path, values.Encode(), headers...)
}

func (r response) location() string { return r.header.Get("Location") }

func (r response) has(s string) response {
	r.t.Helper()
	if !strings.Contains(string(r.body), s) {
		r.t.Fatalf("body does not contain %q:\n%s", s, r.body)
	}
	return r
}

func sessionFrom(r response) string {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "auth_session" && c.Value != "" {
			return c.Value
		}
	}
	return ""
}

func TestFormsRedirectOnSuccessAndRerenderOnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const email = "form@example.com"
	res := e.form("/register", url.Values{"email": {email}, "password": {"short"}}, "").want(400)
	res.has("at least 15 characters").has(`value="form@example.com"`)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("error page Content-Type %q", ct)
	}

	res = e.form("/register", url.Values{"email": {email}, "password": {testPassword}}, "").want(303)
	if got, want := res.location(), "/register/verify?email=form%40example.com"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.form("/register/verify", url.Values{"email": {email}, "code": {"000000"}, "password": {testPassword}}, "").want(400).has("code")
	res = e.form("/register/verify", url.Values{"email": {email}, "code": {e.mail.lastCode(t, email)}, "password": {testPassword}}, "").want(303)
	if got, want := res.location(), "/dashboard?notice=verified"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.request("GET", res.location(), nil, "Cookie", sessionFrom(res)).want(200).has("Your account is verified and you are logged in")

	e.form("/login", url.Values{"email": {email}, "password": {"wrong password for sure"}}, "").want(401).has("Invalid email or password")
	res = e.form("/login", url.Values{"email": {email}, "password": {testPassword}}, "").want(303)
	if got, want := res.location(), "/dashboard"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	session := sessionFrom(res)
	e.request("GET", "/dashboard", nil, "Cookie", session).want(200).has(email)

	e.form("/forgot-password", url.Values{"email": {email}}, "").want(303)
	e.form("/forgot-password/verify", url.Values{"email": {email}, "code": {e.mail.resetCode(t, email)}, "new_password": {"another long pass phrase"}}, "").want(303)
	// The reset ended every session.
	if got, want := e.request("GET", "/dashboard", nil, "Cookie", session).want(303).location(), "/login?next=%2Fdashboard"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}

	session = sessionFrom(e.form("/login", url.Values{"email": {email}, "password": {"another long pass phrase"}}, "").want(303))
	if got, want := e.form("/logout", url.Values{}, session).want(303).location(), "/?notice=logged_out"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.request("GET", "/dashboard", nil, "Cookie", session).want(303)
}

func TestFormPagesEscapeWhatTheyEcho(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.request("GET", "/login?email="+url.QueryEscape(`"><script>x</script>`)+"&notice=<b>hi</b>", nil).want(200)
	body := string(e.request("GET", "/login?email="+url.QueryEscape(`"><script>x</script>`), nil).body)
	if strings.Contains(body, "<script>x") {
		t.Fatal("the prefilled email is not escaped")
	}
	if strings.Contains(string(e.request("GET", "/login?notice=<b>hi</b>", nil).body), "<b>hi") {
		t.Fatal("an arbitrary notice was shown")
	}
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

// cookie returns the cookie called name that res sets, or nil.
func (r response) cookie(name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestDashboardKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("keys@example.com", store.PlanStarter)
	session := &http.Cookie{Name: "auth_session", Value: e.login("keys@example.com")}
	freshKey := regexp.MustCompile(`sk_[A-Za-z0-9]{46}`)
	var key, rotated string

	// issue posts a key form and follows its redirect as a browser does,
	// returning the dashboard that shows the key and the fresh-key cookie.
	issue := func(e *env, path, name string) (response, *http.Cookie) {
		e.t.Helper()
		res := e.browse("POST", path, url.Values{"name": {name}}, session).want(303)
		if got, want := res.location(), "/dashboard"; got != want {
			e.t.Fatalf("after %s: got %v, want %v", path, got, want)
		}
		flash := res.cookie("fresh_key")
		if flash == nil || flash.Path != "/dashboard" || !flash.HttpOnly || flash.MaxAge <= 0 {
			e.t.Fatalf("fresh_key cookie %+v: want an HttpOnly cookie for /dashboard", flash)
		}
		if strings.Contains(flash.Value, "sk_") {
			e.t.Fatal("the fresh key travels in clear in its cookie")
		}
		return e.browse("GET", "/dashboard", nil, session, flash).want(200), flash
	}

	t.Run("usage", func(t *testing.T) {
		e := e.in(t)
		e.fill(id, 1)
		e.request("GET", "/dashboard", nil, "Cookie", session.Value).want(200).has(`class="w5"`).has("1</span> / 100")
	})

	t.Run("an empty dashboard shows the first-key call-out with this server's address", func(t *testing.T) {
		e := e.in(t)
		page := e.browse("GET", "http://keys.example:9000/dashboard", nil, session).want(200)
		page.has(`id="first-key"`).has("curl -s -X POST http://keys.example:9000/api/v1/user_info")
	})

	t.Run("create shows the key once, and a reload shows none", func(t *testing.T) {
		e := e.in(t)
		page, flash := issue(e, "/dashboard/keys", "ci")
		if got := page.header.Get("Cache-Control"); got != "no-store" {
			t.Fatalf("a page with a fresh key has Cache-Control %q", got)
		}
		if key = freshKey.FindString(string(page.body)); key == "" {
			t.Fatalf("no fresh key on the page:\n%s", page.body)
		}
		page.has(`id="fresh-key-curl"`).has(`X-API-Key: ` + key)
		if c := page.cookie("fresh_key"); c == nil || c.MaxAge >= 0 {
			t.Fatalf("showing the key does not clear its cookie: %+v", c)
		}
		e.post("/api/user_info", nil, "X-API-Key", key).want(200)
		// The reload: the browser no longer holds the cookie.
		reload := e.browse("GET", "/dashboard", nil, session).want(200)
		if freshKey.Match(reload.body) || strings.Count(string(reload.body), key[:7]) != 1 {
			t.Fatal("a reload must show no key, and the list the key's prefix once")
		}
		// An altered cookie shows nothing.
		forged := *flash
		mid, swap := len(flash.Value)/2, "A"
		if flash.Value[mid] == 'A' {
			swap = "B"
		}
		forged.Value = flash.Value[:mid] + swap + flash.Value[mid+1:]
		if freshKey.Match(e.browse("GET", "/dashboard", nil, session, &forged).want(200).body) {
			t.Fatal("an altered fresh_key cookie was opened")
		}
		// Another account cannot use the cookie.
		e.account("other@example.com", store.PlanStarter)
		other := &http.Cookie{Name: "auth_session", Value: e.login("other@example.com")}
		if freshKey.Match(e.browse("GET", "/dashboard", nil, other, flash).want(200).body) {
			t.Fatal("another account's dashboard shows the key")
		}
	})

	t.Run("calls and last use per key, and the chart", func(t *testing.T) {
		e := e.in(t)
		for range 3 {
			e.post("/api/v1/generate_random_key", nil, "X-API-Key", key).want(200)
		}
		page := string(e.browse("GET", "/dashboard", nil, session).want(200).body)
		if !regexp.MustCompile(`data-label="Calls this month" class="calls">3<`).MatchString(page) {
			t.Fatalf("the key table does not show 3 calls:\n%s", page)
		}
		if strings.Contains(page, "never") {
			t.Fatal("a used key shows as never used")
		}
		// 1 call from fill, 3 with the key.
		if !strings.Contains(page, `id="chart-this-total">4<`) || !strings.Contains(page, "<rect class=\"this\"") {
			t.Fatalf("the chart does not show this month's 4 calls:\n%s", page)
		}
	})

	t.Run("create refuses a name in use", func(t *testing.T) {
		e := e.in(t)
		e.browse("POST", "/dashboard/keys", url.Values{"name": {"ci"}}, session).want(409).has("A key named &#34;ci&#34; exists already").has(`id="keys"`)
	})

	t.Run("create refuses a bad name", func(t *testing.T) {
		e := e.in(t)
		e.browse("POST", "/dashboard/keys", url.Values{"name": {"bad name!"}}, session).want(400).has("key name")
	})

	t.Run("rotate revokes the old key", func(t *testing.T) {
		e := e.in(t)
		page, _ := issue(e, "/dashboard/keys/rotate", "ci")
		rotated = freshKey.FindString(string(page.body))
		if rotated == "" || rotated == key {
			t.Fatalf("rotation gave %q", rotated)
		}
		e.post("/api/user_info", nil, "X-API-Key", key).want(401)
	})

	t.Run("rotate refuses a name that has no key", func(t *testing.T) {
		e := e.in(t)
		e.browse("POST", "/dashboard/keys/rotate", url.Values{"name": {"nope"}}, session).want(404).has("There is no key named")
		if _, err := e.store.KeyByName(context.Background(), id, "nope"); err == nil {
			t.Fatal("rotating a missing name created a key")
		}
	})

	t.Run("revoke asks first", func(t *testing.T) {
		e := e.in(t)
		e.browse("GET", "/dashboard", nil, session).want(200).has(`href="/dashboard?revoke=ci#confirm-revoke"`)
		e.browse("GET", "/dashboard?revoke=ci", nil, session).want(200).has(`id="confirm-revoke"`).has("Revoke the key “ci”?")
		if strings.Contains(string(e.browse("GET", "/dashboard?revoke=nope", nil, session).want(200).body), `id="confirm-revoke"`) {
			t.Fatal("a confirmation for a key that does not exist")
		}
		e.post("/api/user_info", nil, "X-API-Key", rotated).want(200) // asking revoked nothing
	})

	t.Run("rotate asks first", func(t *testing.T) {
		e := e.in(t)
		e.browse("GET", "/dashboard", nil, session).want(200).has(`href="/dashboard?rotate=ci#confirm-rotate"`)
		e.browse("GET", "/dashboard?rotate=ci", nil, session).want(200).has(`id="confirm-rotate"`).has("Rotate the key “ci”?").has(`action="/dashboard/keys/rotate"`)
		if strings.Contains(string(e.browse("GET", "/dashboard?rotate=nope", nil, session).want(200).body), `id="confirm-rotate"`) {
			t.Fatal("a confirmation for a key that does not exist")
		}
		e.post("/api/user_info", nil, "X-API-Key", rotated).want(200) // asking rotated nothing
	})

	t.Run("revoke", func(t *testing.T) {
		e := e.in(t)
		res := e.browse("POST", "/dashboard/keys/revoke", url.Values{"name": {"ci"}}, session).want(303)
		if got, want := res.location(), "/dashboard?notice=key_revoked"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		e.post("/api/user_info", nil, "X-API-Key", rotated).want(401)
		e.browse("POST", "/dashboard/keys/revoke", url.Values{"name": {"ci"}}, session).want(404)
	})

	t.Run("needs a session from this site", func(t *testing.T) {
		e := e.in(t)
		// Without a session the browser goes to the login page, which comes
		// back to the dashboard; cross-site posts are refused.
		if got, want := e.browse("POST", "/dashboard/keys", url.Values{"name": {"x"}}).want(303).location(), "/login?next=%2Fdashboard"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		e.post("/dashboard/keys", "name=x", "Cookie", session.Value, "Sec-Fetch-Site", "cross-site",
			"Content-Type", "application/x-www-form-urlencoded").wantError(403, "cross_origin_request")
	})
}

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

// TestOpenAPIServed: /api-docs serves static/openapi.json, version and
// scopes as the server has them, and /docs shows a curl example for every
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
	if len(doc.Servers) != 2 || doc.Servers[0].URL != "/api" || doc.Servers[1].URL != "/api/v1" {
		t.Errorf("servers %v, want /api and /api/v1", doc.Servers)
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
