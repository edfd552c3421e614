package server_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

// TestNewPanelsWorkWithoutJavaScript: the tools page's forms of the new
// utilities and of the new parameters post as a browser without JavaScript
// does (a checkbox and the hidden false after it; empty number boxes) and
// get their answer in their panel; each call counts once.
func TestNewPanelsWorkWithoutJavaScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("bench@example.com", store.PlanPro)
	session := e.sessionCookie("bench@example.com")
	const secret = "a shared secret of at least 32 bytes"
	token := signedJWT(t, map[string]any{"alg": "HS256"}, map[string]any{"sub": "ann", "exp": time.Now().Add(time.Hour).Unix()}, hs256(secret))
	noCosts := url.Values{"cost": {""}, "memory": {""}, "time": {""}, "parallelism": {""}, "n": {""}, "r": {""}, "p": {""}}
	withCosts := func(form url.Values) url.Values {
		for k, v := range noCosts {
			if !form.Has(k) {
				form[k] = v
			}
		}
		return form
	}
	for _, tc := range []struct {
		name  string
		path  string
		form  url.Values
		panel string
		want  []*regexp.Regexp // in the panel, as the page shows it
	}{
		{"a password of digits without look-alikes", "/generate_password",
			url.Values{"length": {"12"}, "lower": {"false"}, "upper": {"false"}, "digits": {"true", "false"}, "symbols": {"false"}, "no_look_alikes": {"true"}},
			"tool-passgen", []*regexp.Regexp{regexp.MustCompile(`id="passgen-out">[2-9]{12}<`), regexp.MustCompile(`>36 bits of entropy<`)}},
		{"a passphrase", "/generate_password",
			url.Values{"mode": {"passphrase"}, "words": {"4"}, "separator": {"_"}, "case": {"upper"}},
			"tool-passgen", []*regexp.Regexp{regexp.MustCompile(`id="passgen-out">[A-Z-]+(_[A-Z-]+){3}<`), regexp.MustCompile(`51.7 bits of entropy · Words from EFF`), regexp.MustCompile(`<option value="upper" selected>`)}},
		{"a hash verified", "/hash_verify", url.Values{"password": {"abc"}, "hash": {"900150983cd24fb0d6963f7d28e17f72"}},
			"tool-hashverify", []*regexp.Regexp{regexp.MustCompile(`id="hashverify-out">Match: .*\(md5, hex\)`), regexp.MustCompile(`md5, ntlm`)}},
		{"a hash not verified", "/hash_verify", url.Values{"password": {"abd"}, "hash": {"$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1"}},
			"tool-hashverify", []*regexp.Regexp{regexp.MustCompile(`id="hashverify-out">No match: .*md5_crypt`)}},
		{"a JWT verified", "/jwt_verify", url.Values{"token": {token}, "key": {secret}},
			"tool-jwtverify", []*regexp.Regexp{regexp.MustCompile(`id="jwtverify-out"><strong>Valid.</strong>`), regexp.MustCompile(`(?s)id="jwtverify-payload">\{\n  &#34;.*&#34;sub&#34;: &#34;ann&#34;`)}},
		{"a JWT with a wrong key", "/jwt_verify", url.Values{"token": {token}, "key": {"wrong"}},
			"tool-jwtverify", []*regexp.Regexp{regexp.MustCompile(`<strong>Not valid</strong> \(<code>bad_signature</code>\)`)}},
		{"a random key", "/generate_random_key", url.Values{"length": {"16"}, "format": {"base64url"}},
			"tool-randomkey", []*regexp.Regexp{regexp.MustCompile(`id="randomkey-out">[A-Za-z0-9_-]{22}<`), regexp.MustCompile(`128 bits, base64url`), regexp.MustCompile(`<option value="base64url" selected>`)}},
		{"a bcrypt hash of cost 5", "/hash_generator", withCosts(url.Values{"algorithm": {"bcrypt"}, "plaintext": {"x"}, "cost": {"5"}}),
			"tool-hashgen", []*regexp.Regexp{regexp.MustCompile(`id="hashgen-out">\$2b\$05\$`), regexp.MustCompile(`<details open>`)}},
		{"a digest with the cost boxes empty", "/hash_generator", withCosts(url.Values{"algorithm": {"md5"}, "plaintext": {"abc"}}),
			"tool-hashgen", []*regexp.Regexp{regexp.MustCompile(`id="hashgen-out">900150983cd24fb0d6963f7d28e17f72<`)}},
		{"binary base64", "/base64", url.Values{"text": {"/wD+"}, "option": {"decode"}, "output": {""}},
			"tool-base64", []*regexp.Regexp{regexp.MustCompile(`The decoded bytes, as hex:`), regexp.MustCompile(`id="base64-out">ff00fe<`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			before := e.usage(id)
			panel := panelOf(t, e.browse("POST", tc.path, tc.form, session).want(http.StatusOK).body, tc.panel)
			for _, want := range tc.want {
				if !want.MatchString(panel) {
					t.Errorf("panel %s does not match %s:\n%s", tc.panel, want, panel)
				}
			}
			if strings.Contains(panel, `role="alert"`) {
				t.Errorf("panel %s shows an error:\n%s", tc.panel, panel)
			}
			if got := e.usage(id); got != before+1 {
				t.Errorf("usage went from %d to %d, want one call", before, got)
			}
		})
	}

	t.Run("a cost the algorithm does not take", func(t *testing.T) {
		e := e.in(t)
		panel := panelOf(t, e.browse("POST", "/hash_generator", withCosts(url.Values{"algorithm": {"sha256"}, "plaintext": {"x"}, "cost": {"12"}}), session).want(400).body, "tool-hashgen")
		if !strings.Contains(html.UnescapeString(panel), `does not take the parameter "cost"`) {
			t.Errorf("panel:\n%s", panel)
		}
	})
}

// TestToolsPageCreditsAndPointsOn: the page credits the passphrases' word
// list, and the JWT decoder, which never verifies, points to JWT verify.
func TestToolsPageCreditsAndPointsOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("bench@example.com", store.PlanPro)
	page := e.browse("GET", "/tools", nil, e.sessionCookie("bench@example.com")).want(200).body
	if passgen := panelOf(t, page, "tool-passgen"); !strings.Contains(passgen, `<a href="https://www.eff.org/dice">EFF's large word list</a> (Electronic Frontier Foundation, CC BY 3.0 US)`) {
		t.Errorf("no credit of the word list:\n%s", passgen)
	}
	if jwt := panelOf(t, page, "tool-jwt"); !strings.Contains(jwt, `<a href="#tool-jwtverify">JWT verify</a> checks it`) {
		t.Errorf("the JWT decoder does not point to JWT verify:\n%s", jwt)
	}
}

// TestLookupPanelSaysTheServersBatch: the lookup form names the batch this
// server takes (serve -hash-lookup-batch), not the default.
func TestLookupPanelSaysTheServersBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) { d.HashLookupBatch = 3 })
	e.account("batch@example.com", store.PlanPro)
	page := e.browse("GET", "/tools", nil, e.sessionCookie("batch@example.com")).want(200).body
	if lookup := panelOf(t, page, "tool-lookup"); !strings.Contains(lookup, `<span class="hint">up to 3 MD5, NTLM`) {
		t.Errorf("the lookup form does not say the server's batch of 3:\n%s", lookup)
	}
}
