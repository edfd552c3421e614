package server_test

import (
	"net/url"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// TestUnknownFieldsAreRefused: every utility refuses a JSON key that is
// none of its fields with a 400 that names it (the schemas have always said
// additionalProperties: false, and such keys were silently ignored), and
// counts nothing.
func TestUnknownFieldsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	for path := range server.UtilityPanels() {
		for _, scope := range []string{"/api", "/api/v1", ""} {
			msg := e.post(scope+path, `{"zz_surprise": 1}`, "X-API-Key", key).wantError(400, "unknown_field")["error"].(string)
			if !strings.Contains(msg, `"zz_surprise"`) {
				t.Errorf("%s%s: %q does not name the field", scope, path, msg)
			}
		}
	}
	// Beside valid fields too, escaped, or in another case.
	e.post("/api/v1/base64", map[string]string{"text": "x", "option": "encode", "extra": "1"}, "X-API-Key", key).wantError(400, "unknown_field")
	e.post("/api/v1/base64", `{"text": "x", "option": "encode", "\u0065xtra": 1}`, "X-API-Key", key).wantError(400, "unknown_field")
	e.post("/api/v1/base64", `{"te\u0078t": "x", "option": "encode"}`, "X-API-Key", key).want(200)
	if msg := e.post("/api/v1/base64", `{"TEXT": "x", "option": "encode"}`, "X-API-Key", key).wantError(400, "unknown_field")["error"].(string); !strings.Contains(msg, `did you mean "text"?`) {
		t.Errorf("another case: %q", msg)
	}
	if used := e.usage(a.ID); used != 1 {
		t.Errorf("usage %d, want the one call that succeeded", used)
	}
}

// TestNaturalFieldNamesGetADidYouMean: the names people reach for first
// are answered with the field they meant, as misspellings are.
func TestNaturalFieldNamesGetADidYouMean(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, tc := range []struct {
		path, body, meant string
	}{
		{"/ip_info", `{"ip": "8.8.8.8"}`, "ip_string"},
		{"/hash_lookup", `{"hash": "5f4dcc3b5aa765d61d8327deb882cf99"}`, "hashes"},
		{"/jwt_decoder", `{"jwt": "a.b.c"}`, "token"},
		{"/jwt_verify", `{"jwt": "a.b.c", "key": "k"}`, "token"},
		{"/json_format", `{"json": "{}"}`, "text"},
		{"/json_minify", `{"json": "{}"}`, "text"},
		{"/hash_generator", `{"algorithm": "md5", "text": "x"}`, "plaintext"},
		{"/base64", `{"text": "x", "opton": "encode"}`, "option"}, // a misspelling
		{"/generate_random_key", `{"bytes": 16}`, "length"},
		{"/hash_verify", `{"password": "x", "digest": "00"}`, "hash"},
	} {
		msg := e.post("/api/v1"+tc.path, tc.body, "X-API-Key", key).wantError(400, "unknown_field")["error"].(string)
		if !strings.Contains(msg, `did you mean "`+tc.meant+`"?`) {
			t.Errorf("%s %s: %q, want did you mean %q", tc.path, tc.body, msg, tc.meant)
		}
	}
	// Nothing near: the answer lists the fields.
	msg := e.post("/api/v1/base64", `{"colour": "x"}`, "X-API-Key", key).wantError(400, "unknown_field")["error"].(string)
	if !strings.Contains(msg, `"text", "option" and "output"`) {
		t.Errorf("%q does not list the fields", msg)
	}
}

// TestFormsStillIgnoreOtherFields: a browser's form sends what its page
// holds (a button's name, a field of another panel); the tools page keeps
// answering such posts, as a form the API was posted with.
func TestFormsStillIgnoreOtherFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	session := e.sessionCookie("ann@example.com")
	page := e.browse("POST", "/base64", url.Values{"text": {"hi"}, "option": {"encode"}, "submit": {"Convert"}, "csrf_token": {"x"}}, session).want(200).body
	if !strings.Contains(panelOf(t, page, "tool-base64"), ">aGk=<") {
		t.Fatalf("the form with extra fields got no answer:\n%s", panelOf(t, page, "tool-base64"))
	}
	e.post("/api/v1/base64", "text=hi&option=encode&submit=Convert", "X-API-Key", key, "Content-Type", "application/x-www-form-urlencoded").want(200)
}
