package server_test

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"reflect"
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
// the input kept, on an HTML page: never JSON. Each call counts once, or
// once per hash of a batch (the meter counts items).
func TestUtilitiesWorkWithoutJavaScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("bench@example.com", store.PlanPro)
	session := e.sessionCookie("bench@example.com")
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
			items := max(len(strings.Fields(tc.form.Get("hash")+"\n"+tc.form.Get("hashes"))), 1)
			if got := e.usage(id); got != before+items {
				t.Errorf("usage went from %d to %d, want %d items", before, got, items)
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
	session := e.sessionCookie("bench@example.com")
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
		if !strings.Contains(panel, "Your plan&#39;s limit of 100 items") {
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
	session := e.sessionCookie("panels@example.com")
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
	session := e.sessionCookie("typist@example.com")
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
	session := e.sessionCookie("csv@example.com")
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
	user := e.sessionCookie("user@example.com")
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
	session := e.sessionCookie("count@example.com")
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

// TestNoFloatNoiseOnPages: numbers people read are rounded.
func TestNoFloatNoiseOnPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("noise@example.com", store.PlanPro)
	session := e.sessionCookie("noise@example.com")
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

// TestStrengthPreviewAnswersLessThanCheck: the free preview answers the
// score and its label, nothing else (the metered call has the feedback,
// the crack time and the breach count), so an account at its cap gets no
// full answers through it.
func TestStrengthPreviewAnswersLessThanCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBreachFile(t))
	id := e.account("capped@example.com", store.PlanStarter)
	e.fill(id, store.StarterCap)
	session := e.login("capped@example.com")
	const password = "password1234"
	e.post("/password_check", map[string]string{"password": password}, "Cookie", session).wantError(http.StatusTooManyRequests, "plan_limit_reached")
	got := e.post("/password_check/preview", map[string]string{"password": password}, "Cookie", session).want(200).json()
	want := map[string]any{"score": got["score"], "label": got["label"], "feedback": []any{}, "length": nil, "entropy": nil,
		"charset_size": nil, "estimated_crack_time": nil, "breached": nil}
	if _, ok := got["score"].(float64); !ok || got["label"] == "" || !reflect.DeepEqual(got, want) {
		t.Fatalf("the preview answers %v, want the score and label only", got)
	}
	panel := panelOf(t, e.browse("POST", "/password_check/preview", url.Values{"password": {password}},
		&http.Cookie{Name: "auth_session", Value: session}).want(200).body, "tool-strength")
	for _, full := range []string{"Time to guess", "Entropy", "Breaches", `class="feedback"`} {
		if strings.Contains(panel, full) {
			t.Errorf("the preview's panel shows %s:\n%s", full, panel)
		}
	}
	if !strings.Contains(panel, `id="strength-preview"`) || !strings.Contains(panel, "the breach count") {
		t.Errorf("the preview's panel does not say what Check adds:\n%s", panel)
	}
}
