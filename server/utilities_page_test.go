package server_test

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/breach"
)

// testJWT is an HS256 token with the claims given, and a made-up signature.
func testJWT(t testing.TB, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc(payload) + ".c2lnbmF0dXJl"
}

// panelOf returns the HTML of the utilities page's panel with the given id.
func panelOf(t testing.TB, page []byte, id string) string {
	t.Helper()
	panel := regexp.MustCompile(`(?s)<section class="panel tool[^"]*" id="` + id + `".*?</section>`).Find(page)
	if panel == nil {
		t.Fatalf("no panel %s on the page:\n%s", id, page)
	}
	return string(panel)
}

// TestUtilitiesWorkWithoutJavaScript posts every utility's form as a browser
// without JavaScript does and finds the answer in the utility's panel, with
// the input kept, on an HTML page: never JSON. Each call counts once.
func TestUtilitiesWorkWithoutJavaScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("bench@example.com", store.PlanPro)
	session := &http.Cookie{Name: "auth_session", Value: e.login("bench@example.com")}
	expired := testJWT(t, map[string]any{"sub": "ann", "exp": 1700000000})

	for _, tc := range []struct {
		path  string
		form  url.Values
		panel string
		want  []string // in the panel, HTML-escaped as the page shows it
	}{
		{"/password_check", url.Values{"password": {"correct horse battery staple"}}, "tool-strength",
			[]string{"Score 4 of 4: very strong", `value="correct horse battery staple"`}},
		{"/entropy", url.Values{"password": {"abc"}}, "tool-entropy", []string{"14.1 bits", `value="abc"`}},
		{"/common_pwd", url.Values{"password": {"password"}}, "tool-common", []string{"On the common-password list"}},
		{"/data_breach", url.Values{"kind": {"password"}, "query": {"letmein"}}, "tool-breach", []string{"Found in the common-password list", `value="letmein"`}},
		{"/data_breach", url.Values{"kind": {"sha1"}, "query": {"b1b3773a05c0ed0176787a4f1574ff0075f7521e"}}, "tool-breach",
			[]string{"Found in the common-password list", `<option value="sha1" selected>`}},
		{"/data_breach", url.Values{"kind": {"prefix"}, "query": {"5BAA6"}}, "tool-breach", []string{"1 hash in this range", "1E4C9B93F3F0682250B6CF8331B7EE68FD8"}},
		{"/hash_generator", url.Values{"algorithm": {"md5"}, "plaintext": {"abc"}}, "tool-hashgen",
			[]string{"900150983cd24fb0d6963f7d28e17f72", "<option selected>md5</option>", `data-copy="hashgen-out"`}},
		{"/hash_identifier", url.Values{"hash": {"5f4dcc3b5aa765d61d8327deb882cf99"}}, "tool-hashid",
			[]string{`id="hashid-out-0">MD5<`, "<code>-m 0</code>", `id="hashid-hashcat-0">hashcat -m 0 hash.txt wordlist.txt<`}},
		{"/hash_identifier", url.Values{"hash": {"$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy\n5f4dcc3b5aa765d61d8327deb882cf99"}}, "tool-hashid",
			[]string{`1 × <strong id="hashid-out-0">bcrypt`, "<code>cost=10</code>", "hashcat -m 3200 hash.txt wordlist.txt", `id="hashid-out-1">MD5<`}},
		{"/hash_lookup", url.Values{"hashes": {"5f4dcc3b5aa765d61d8327deb882cf99\n0d107d09f5bbe40cade3de5c71e9e9b7"}}, "tool-lookup",
			[]string{"<strong>2</strong> of 2 found (100%)", "<code>password</code>", "<code>letmein</code>", "5f4dcc3b5aa765d61d8327deb882cf99:password"}},
		{"/ip_info", url.Values{"ip_string": {"2a02:ff0::1"}}, "tool-ip", []string{"🇫🇷", "Paris, France", "<th scope=\"row\">ASN</th><td>3215</td>", `value="2a02:ff0::1"`}},
		{"/base64", url.Values{"text": {"hello"}, "option": {"encode"}}, "tool-base64", []string{">aGVsbG8=<", ">hello</textarea>"}},
		{"/base64", url.Values{"text": {"aGVsbG8"}, "option": {"decode"}}, "tool-base64", []string{">hello<", `<option value="decode" selected>`}},
		{"/generate_random_key", url.Values{}, "tool-randomkey", []string{`id="randomkey-out">`}},
		{"/jwt_decoder", url.Values{"token": {expired}}, "tool-jwt",
			[]string{"Expires 14 Nov 2023 22:13 UTC", `<span class="badge bad">expired</span>`, "&#34;sub&#34;: &#34;ann&#34;", "&#34;alg&#34;: &#34;HS256&#34;"}},
		{"/json_format", url.Values{"text": {`{"b":[1,2],"a":null}`}}, "tool-json", []string{"{\n  &#34;b&#34;: [\n    1,\n    2\n  ],\n  &#34;a&#34;: null\n}"}},
		{"/json_minify", url.Values{"text": {"{ \"a\" : [ 1 ] }"}}, "tool-json", []string{">{&#34;a&#34;:[1]}<"}},
		{"/suggestion", url.Values{"message": {"a dark mode for the chart"}}, "tool-suggestion", []string{"Thank you: your suggestion was received."}},
	} {
		t.Run(tc.path+" "+tc.form.Encode(), func(t *testing.T) {
			e := e.in(t)
			before := e.usage(id)
			res := e.browse("POST", tc.path, tc.form, session).want(http.StatusOK)
			if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Fatalf("Content-Type %q, want a page", ct)
			}
			panel := panelOf(t, res.body, tc.panel)
			for _, want := range tc.want {
				if !strings.Contains(panel, want) {
					t.Errorf("panel %s does not contain %q:\n%s", tc.panel, want, panel)
				}
			}
			if strings.Contains(panel, `role="alert"`) {
				t.Errorf("panel %s shows an error:\n%s", tc.panel, panel)
			}
			// Verdicts and a thank-you are read, not copied.
			readOnly := map[string]bool{"tool-strength": true, "tool-entropy": true, "tool-common": true, "tool-breach": true, "tool-suggestion": true}
			if copyable := strings.Contains(panel, `data-copy="`); copyable == readOnly[tc.panel] {
				t.Errorf("panel %s: copy button %v, want %v", tc.panel, copyable, !readOnly[tc.panel])
			}
			if got := e.usage(id); got != before+1 {
				t.Errorf("usage went from %d to %d, want one call", before, got)
			}
		})
	}

	t.Run("encrypt, then decrypt what it gave", func(t *testing.T) {
		e := e.in(t)
		panel := panelOf(t, e.browse("POST", "/secure_encrypt", url.Values{"text": {"attack at dawn"}, "password": {"a long pass phrase"}}, session).want(200).body, "tool-crypto")
		envelope := regexp.MustCompile(`id="crypto-out">([A-Za-z0-9_-]+)<`).FindStringSubmatch(panel)
		if envelope == nil {
			t.Fatalf("no envelope in the panel:\n%s", panel)
		}
		panel = panelOf(t, e.browse("POST", "/secure_decrypt", url.Values{"text": {envelope[1]}, "password": {"a long pass phrase"}}, session).want(200).body, "tool-crypto")
		if !strings.Contains(panel, `id="crypto-out">attack at dawn<`) {
			t.Fatalf("decrypting gave:\n%s", panel)
		}
	})
}

// TestUtilityErrorsShowInTheirPanel: a refused input comes back on the page,
// in its utility's panel, capitalised, with the error's status; nothing counts.
func TestUtilityErrorsShowInTheirPanel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("bench@example.com", store.PlanStarter)
	session := &http.Cookie{Name: "auth_session", Value: e.login("bench@example.com")}
	for _, tc := range []struct {
		path   string
		form   url.Values
		panel  string
		status int
		want   string
	}{
		{"/base64", url.Values{"text": {"%%%"}, "option": {"decode"}}, "tool-base64", 400, "This is not base64"},
		{"/json_minify", url.Values{"text": {"{"}}, "tool-json", 400, "line 1"},
		{"/secure_decrypt", url.Values{"text": {"not an envelope"}, "password": {"x"}}, "tool-crypto", 400, "Invalid"},
		{"/ip_info", url.Values{"ip_string": {"not an ip"}}, "tool-ip", 400, "IP"},
		{"/hash_lookup", url.Values{"hashes": {"xyz"}}, "tool-lookup", 400, "xyz"},
		{"/hash_generator", url.Values{"algorithm": {"rot13"}, "plaintext": {"a"}}, "tool-hashgen", 400, "Unknown"},
		{"/data_breach", url.Values{"kind": {"ntlm"}, "query": {strings.Repeat("a", 32)}}, "tool-breach", 400, "NTLM lookups need"},
		{"/suggestion", url.Values{"message": {"   "}}, "tool-suggestion", 400, "Field &#34;message&#34;"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e := e.in(t)
			res := e.browse("POST", tc.path, tc.form, session).want(tc.status)
			panel := panelOf(t, res.body, tc.panel)
			if !strings.Contains(panel, `<p class="alert error" role="alert">`) || !strings.Contains(panel, tc.want) {
				t.Fatalf("panel %s has no error %q:\n%s", tc.panel, tc.want, panel)
			}
			if msg := regexp.MustCompile(`role="alert">(.)`).FindStringSubmatch(panel); msg == nil || strings.ToUpper(msg[1]) != msg[1] {
				t.Errorf("the error does not start with a capital letter: %v", msg)
			}
		})
	}
	if got := e.usage(id); got != 0 {
		t.Fatalf("refused calls counted: usage %d", got)
	}

	t.Run("without a session", func(t *testing.T) {
		e := e.in(t)
		page := string(e.browse("POST", "/base64", url.Values{"text": {"x"}, "option": {"encode"}}).want(401).body)
		callout := regexp.MustCompile(`(?s)<section class="panel callout" id="sign-in".*?</section>`).FindString(page)
		if !strings.Contains(callout, "Log in or send an API key") {
			t.Fatalf("the sign-in call-out does not say why:\n%s", page)
		}
	})

	t.Run("at the plan's cap", func(t *testing.T) {
		e := e.in(t)
		e.fill(id, store.StarterCap)
		panel := panelOf(t, e.browse("POST", "/base64", url.Values{"text": {"x"}, "option": {"encode"}}, session).want(429).body, "tool-base64")
		if !strings.Contains(panel, "Your plan&#39;s limit of 100 calls") {
			t.Fatalf("panel:\n%s", panel)
		}
	})
}

// TestRootToolsStillAnswerJSON: scripts calling the root-level routes with
// a key or a session keep getting the API's JSON.
func TestRootToolsStillAnswerJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("json@example.com", store.PlanPro)
	session := e.login("json@example.com")
	m := e.post("/base64", map[string]string{"text": "hi", "option": "encode"}, "X-API-Key", key).want(200).json()
	if m["answer"] != "aGk=" {
		t.Fatalf("got %v", m)
	}
	e.post("/hash_identifier", map[string]string{"hash": "5f4dcc3b5aa765d61d8327deb882cf99"}, "Cookie", session).want(200).json()
	// curl -d sends a form's Content-Type but accepts */*: JSON, as before.
	e.post("/base64", "text=hi&option=encode", "X-API-Key", key, "Content-Type", "application/x-www-form-urlencoded").want(200).json()
	e.post("/base64", map[string]string{"text": "%%", "option": "decode"}, "X-API-Key", key).wantError(400, "invalid_input")
}

// TestEveryUtilityIsOnThePage: every metered utility of the API has a
// root-level route whose form is in the panel its declaration names.
func TestEveryUtilityIsOnThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("panels@example.com", store.PlanPro)
	session := &http.Cookie{Name: "auth_session", Value: e.login("panels@example.com")}
	page := e.browse("GET", "/tools", nil, session).want(200).body
	panels := server.UtilityPanels()
	if len(panels) == 0 {
		t.Fatal("no utility declared")
	}
	for path, panel := range panels {
		form := `(action|formaction)="` + regexp.QuoteMeta(path) + `#tool-` + panel + `"`
		if !regexp.MustCompile(form).MatchString(panelOf(t, page, "tool-"+panel)) {
			t.Errorf("no form of the utilities page's panel %s posts to %s", panel, path)
		}
		if res := e.post(path, map[string]string{}); res.status == http.StatusNotFound || res.status == http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d; want the root-level route", path, res.status)
		}
	}
	if got := regexp.MustCompile(`<option(?: selected)?>[a-z0-9_]+</option>`).FindAllString(string(page), -1); len(got) != 22 {
		t.Errorf("the hash generator offers %d algorithms, want all 22", len(got))
	}
}

// TestStrengthPreviewIsFreeAndLimited: the meter's preview while typing
// counts nothing and stops after 60 a minute; Check counts. The clock
// stands still, so however slowly the 60 previews run (under -race on a
// busy machine they took over a second, and the bucket refilled), none
// refills it.
func TestStrengthPreviewIsFreeAndLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := time.Now()
	e.store.SetClock(func() time.Time { return now })
	id := e.account("typist@example.com", store.PlanStarter)
	session := &http.Cookie{Name: "auth_session", Value: e.login("typist@example.com")}
	password := "correct horse battery staple"
	for i := 1; i <= 60; i++ {
		panel := panelOf(t, e.browse("POST", "/password_check/preview", url.Values{"password": {password[:min(i, len(password))]}}, session).want(200).body, "tool-strength")
		if !strings.Contains(panel, "Score ") {
			t.Fatalf("preview %d:\n%s", i, panel)
		}
	}
	if got := e.usage(id); got != 0 {
		t.Fatalf("60 previews counted %d calls, want 0", got)
	}
	res := e.browse("POST", "/password_check/preview", url.Values{"password": {password}}, session).want(http.StatusTooManyRequests)
	if res.header.Get("Retry-After") == "" || !strings.Contains(panelOf(t, res.body, "tool-strength"), "press Check") {
		t.Fatalf("the 61st preview: %s", res.body)
	}
	e.browse("POST", "/password_check", url.Values{"password": {password}}, session).want(200)
	if got := e.usage(id); got != 1 {
		t.Fatalf("Check counted %d calls, want 1", got)
	}
	e.post("/password_check/preview", map[string]string{"password": "x"}).wantError(http.StatusUnauthorized, "login_required")
	page := string(e.browse("GET", "/tools", nil, session).want(200).body)
	if !strings.Contains(page, `data-preview="/password_check/preview"`) || !strings.Contains(page, "does not count toward your usage") {
		t.Fatal("the tools page does not say the preview is free")
	}
}

// TestHashLookupCSV: the lookup's second button downloads the results.
func TestHashLookupCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("csv@example.com", store.PlanPro)
	session := &http.Cookie{Name: "auth_session", Value: e.login("csv@example.com")}
	res := e.browse("POST", "/hash_lookup", url.Values{"hashes": {"5f4dcc3b5aa765d61d8327deb882cf99,ffffffffffffffffffffffffffffffff"}, "format": {"csv"}}, session).want(200)
	if ct, cd := res.header.Get("Content-Type"), res.header.Get("Content-Disposition"); ct != "text/csv; charset=utf-8" || !strings.Contains(cd, "attachment") {
		t.Fatalf("Content-Type %q, Content-Disposition %q", ct, cd)
	}
	want := "hash,found,type,plaintext\n5f4dcc3b5aa765d61d8327deb882cf99,true,md5,password\nffffffffffffffffffffffffffffffff,false,,\n"
	if got := string(res.body); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestToolsSayWhatIsNotAvailable: a server without GeoIP data, a breach
// file or an NTLM file says so to users, and tells admins the flag.
func TestToolsSayWhatIsNotAvailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) { d.Geo = nil })
	e.account("user@example.com", store.PlanPro)
	user := &http.Cookie{Name: "auth_session", Value: e.login("user@example.com")}
	admin := &http.Cookie{Name: "auth_session", Value: e.adminSession("boss@example.com")}

	page := e.browse("GET", "/tools", nil, user).want(200).body
	ip := panelOf(t, page, "tool-ip")
	if !strings.Contains(ip, "IP lookup is not available on this server") || strings.Contains(ip, "-geoip-city") || !strings.Contains(ip, "disabled") {
		t.Errorf("a user's IP panel:\n%s", ip)
	}
	breachPanel := panelOf(t, page, "tool-breach")
	if !strings.Contains(breachPanel, "Breach counts are not available on this server") || !strings.Contains(breachPanel, "not available on this server</option>") {
		t.Errorf("a user's breach panel:\n%s", breachPanel)
	}
	page = e.browse("GET", "/tools", nil, admin).want(200).body
	for panel, flag := range map[string]string{"tool-ip": "-geoip-city", "tool-breach": "-breach-file-ntlm"} {
		if !strings.Contains(panelOf(t, page, panel), flag) {
			t.Errorf("an admin's %s does not name %s", panel, flag)
		}
	}
	if !strings.Contains(panelOf(t, page, "tool-breach"), "-breach-file (a Pwned Passwords SHA-1 file") {
		t.Error("an admin's breach panel does not name -breach-file")
	}
}

// TestStrengthShowsBreachCountWithABreachFile: with -breach-file, the
// strength meter says how often the password was seen.
func TestStrengthShowsBreachCountWithABreachFile(t *testing.T) {
	t.Parallel()
	f, err := breach.OpenFile("../testdata/pwned-passwords-sha1.txt", breach.KindSHA1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := newEnv(t, func(d *server.Deps) { d.Breach = breach.NewFileSource(f) })
	e.account("count@example.com", store.PlanPro)
	session := &http.Cookie{Name: "auth_session", Value: e.login("count@example.com")}
	panel := panelOf(t, e.browse("POST", "/password_check", url.Values{"password": {"password"}}, session).want(200).body, "tool-strength")
	if !strings.Contains(panel, "seen 424\u202f242 times") {
		t.Fatalf("panel:\n%s", panel)
	}
	panel = panelOf(t, e.browse("POST", "/password_check", url.Values{"password": {"quiet harbour lantern orchid"}}, session).want(200).body, "tool-strength")
	if !strings.Contains(panel, "not in the breach file") {
		t.Fatalf("panel:\n%s", panel)
	}
	if strings.Contains(string(e.browse("GET", "/tools", nil, session).body), "Breach counts are not available") {
		t.Fatal("a server with a breach file says it has no counts")
	}
}

// TestBrowserErrorPages: unknown paths and wrong methods get a page in the
// site's style for browsers, JSON for API clients.
func TestBrowserErrorPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/no-such-page", 404, "Not Found"},
		{"GET", "/api/v1/no-such-route", 404, "Not Found"},
		{"GET", "/ip_info", 405, "Method Not Allowed"},
		{"GET", "/dashboard/keys", 405, "Method Not Allowed"},
	} {
		res := e.browse(tc.method, tc.path, nil).want(tc.status)
		if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s %s: Content-Type %q for a browser", tc.method, tc.path, ct)
		}
		res.has("<h1>" + tc.want + "</h1>").has("/static/app.css").has(`href="/tools"`)
		if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'self'") {
			t.Errorf("%s %s: CSP %q does not let the page load its stylesheet", tc.method, tc.path, csp)
		}
		if tc.status == 405 && res.header.Get("Allow") != "POST" {
			t.Errorf("%s %s: Allow %q", tc.method, tc.path, res.header.Get("Allow"))
		}
		code := map[int]string{404: "not_found", 405: "method_not_allowed"}[tc.status]
		e.request(tc.method, tc.path, nil, "Accept", "*/*").wantError(tc.status, code)
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

// TestLoginComesBack: /login keeps the page that asked for it, and only
// a path of this site.
func TestLoginComesBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.adminSession("boss@example.com")
	next := e.request("GET", "/admin", nil).want(303).location()
	if next != "/login?next=%2Fadmin" {
		t.Fatalf("GET /admin without a session goes to %s", next)
	}
	e.request("GET", next, nil).want(200).has(`action="/login?next=%2fadmin"`)
	for target, want := range map[string]string{"/admin": "/admin", "//evil.example/": "/dashboard", `/\evil.example`: "/dashboard", "https://evil.example/": "/dashboard"} {
		res := e.form("/login?next="+url.QueryEscape(target), url.Values{"email": {"boss@example.com"}, "password": {testPassword}}, "").want(303)
		if got := res.location(); got != want {
			t.Errorf("next=%s: got %v, want %v", target, got, want)
		}
	}
	// A failed attempt keeps the way back.
	e.form("/login?next=%2Fadmin", url.Values{"email": {"boss@example.com"}, "password": {"wrong password entirely"}}, "").want(401).
		has(`action="/login?next=%2fadmin"`)
}

// TestPlanCards: without a checkout provider, paid plans say to ask the
// administrator; with one, they show the price and their button goes to
// checkout, which the page's CSP lets the form reach. Every refusal comes
// back to the dashboard as an alert.
func TestPlanCards(t *testing.T) {
	t.Parallel()
	t.Run("without checkout", func(t *testing.T) {
		e := newEnv(t)
		e.account("plan@example.com", store.PlanPro)
		session := &http.Cookie{Name: "auth_session", Value: e.login("plan@example.com")}
		page := e.browse("GET", "/dashboard", nil, session).want(200)
		page.has("Ask your administrator")
		if strings.Contains(string(page.body), "Upgrade to") {
			t.Fatal("an upgrade button without a payment provider")
		}
		res := e.browse("POST", "/switch_tier", url.Values{"plan": {"enterprise"}}, session).want(503)
		res.has(`<div class="alert error" role="alert">No payment provider is configured`).has(`id="plan"`)
		if got := e.browse("POST", "/switch_tier", url.Values{"plan": {"starter"}, "confirm": {"true"}}, session).want(303).location(); got != "/dashboard?notice=plan_starter" {
			t.Fatalf("downgrade goes to %s", got)
		}
		e.browse("POST", "/switch_tier", url.Values{"plan": {"gold"}}, session).want(400).has(`Field &#34;plan&#34; must be`)
		if got := e.browse("POST", "/switch_tier", url.Values{"plan": {"pro"}}).want(303).location(); got != "/login?next=%2Fdashboard" {
			t.Fatalf("without a session: %s", got)
		}
	})

	t.Run("with checkout", func(t *testing.T) {
		checkout, err := server.NewTemplateCheckout("https://pay.example:8443/buy?product={product_id}&ref={ref}")
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, func(d *server.Deps) { d.Checkout = checkout })
		e.account("buyer@example.com", store.PlanStarter)
		session := &http.Cookie{Name: "auth_session", Value: e.login("buyer@example.com")}
		page := e.browse("GET", "/dashboard", nil, session).want(200)
		if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://pay.example:8443;") {
			t.Fatalf("CSP %q does not let the plan form reach checkout", csp)
		}
		page.has("Not on sale yet")
		e.browse("POST", "/switch_tier", url.Values{"plan": {"pro"}}, session).want(400).has("There is no product for the pro plan yet")

		if _, err := e.store.CreateProduct(t.Context(), store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
			t.Fatal(err)
		}
		e.browse("GET", "/dashboard", nil, session).want(200).has("9.00 EUR a month").has("Upgrade to pro")
		res := e.browse("POST", "/switch_tier", url.Values{"plan": {"pro"}}, session).want(303)
		if got := res.location(); !strings.HasPrefix(got, "https://pay.example:8443/buy?product=") {
			t.Fatalf("upgrade goes to %s", got)
		}
	})
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

// TestNoFloatNoiseOnPages: numbers people read are rounded.
func TestNoFloatNoiseOnPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("noise@example.com", store.PlanPro)
	session := &http.Cookie{Name: "auth_session", Value: e.login("noise@example.com")}
	for _, form := range []struct {
		path string
		form url.Values
	}{
		{"/hash_identifier", url.Values{"hash": {"5f4dcc3b5aa765d61d8327deb882cf99"}}},
		{"/hash_identifier", url.Values{"hash": {"$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"}}},
		{"/ip_info", url.Values{"ip_string": {"81.2.69.160"}}},
		{"/entropy", url.Values{"password": {"Tr0ub4dor&3"}}},
	} {
		page := html.UnescapeString(string(e.browse("POST", form.path, form.form, session).want(200).body))
		if noise := regexp.MustCompile(`\d\.\d{5,}`).FindString(page); noise != "" {
			t.Errorf("%s shows %s", form.path, noise)
		}
	}
}
