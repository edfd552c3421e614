package server_test

import (
	"encoding/base64"
	"html"
	"net/url"
	"strings"
	"testing"

	"secutil/store"
)

func TestJSONRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	m := e.post("/api/json_format", map[string]string{"text": `{"b":1,"a":"<x>"}`}, "X-API-Key", key).want(200).json()
	if m["result"] != "{\n  \"b\": 1,\n  \"a\": \"<x>\"\n}" {
		t.Fatalf("json_format = %q", m["result"])
	}
	m = e.post("/api/v1/json_minify", map[string]string{"text": "{ \"b\" : [1, 2] }"}, "X-API-Key", key).want(200).json()
	if m["result"] != `{"b":[1,2]}` {
		t.Fatalf("json_minify = %q", m["result"])
	}
	res := e.post("/api/json_format", map[string]string{"text": "{\n\"a\": tru}"}, "X-API-Key", key)
	if msg := res.wantError(400, "invalid_json")["error"].(string); !strings.Contains(msg, "line 2, column") {
		t.Fatalf("error %q has no position", msg)
	}
	e.post("/api/json_minify", map[string]string{"text": ""}, "X-API-Key", key).wantError(400, "invalid_json")
	e.post("/api/json_minify", map[string]string{"text": "{}"}).wantError(401, "unauthorized")
}

// TestJSONAndJWTWorkIsBounded: a 20 KB document of brackets used to answer
// 200 MB, and a 64 KB token 128 MB. Both are refused with a 400 naming the
// bound, and no answer is larger than the bound.
func TestJSONAndJWTWorkIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	brackets := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	wide := strings.Repeat("[", 500) + strings.Repeat("1,", 20_000) + "1" + strings.Repeat("]", 500)
	b64 := base64.RawURLEncoding.EncodeToString
	for _, tc := range []struct {
		path, field, value, code string
	}{
		{"/api/json_format", "text", brackets, "too_deeply_nested"},
		{"/api/json_minify", "text", brackets, "too_deeply_nested"},
		{"/api/json_format", "text", wide, "output_too_large"},
		{"/api/jwt_decoder", "token", "e30." + b64([]byte(`{"a":`+brackets[:9_000]+brackets[len(brackets)-9_000:]+`}`)) + ".", "too_deeply_nested"},
		{"/api/jwt_decoder", "token", "e30." + b64([]byte(`{"a":`+wide+`}`)) + ".", "output_too_large"},
	} {
		res := e.post(tc.path, map[string]string{tc.field: tc.value}, "X-API-Key", key)
		if res.status != 400 || len(res.body) > 1<<20 {
			t.Errorf("%s: %d with a %d-byte answer to %d bytes: %.200s", tc.path, res.status, len(res.body), len(tc.value), res.body)
			continue
		}
		res.wantError(400, tc.code)
	}
}

// TestJSONErrorsReadAsSentences: a bare word in JSON ("no" for "\"no\"")
// is explained in words with its line and column on the tools page, and
// in words in an API body, never in encoding/json's own text ("invalid
// character 'o' in literal null (expecting 'u')").
func TestJSONErrorsReadAsSentences(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	session := e.sessionCookie("ann@example.com")
	panel := html.UnescapeString(panelOf(t, e.browse("POST", "/json_format", url.Values{"text": {"{\"ok\": no}"}}, session).want(400).body, "tool-json"))
	if !strings.Contains(panel, "Invalid JSON at line 1, column 9: unexpected 'o' in what begins as null: the only words JSON knows are true, false and null, in lower case; text goes in double quotes.") {
		t.Errorf("the JSON tool's message:\n%s", panel)
	}
	msg := e.post("/api/v1/json_format", `{"text": no}`, "X-API-Key", key).wantError(400, "invalid_request")["error"].(string)
	if !strings.Contains(msg, "unexpected 'o' in what begins as null") {
		t.Errorf("a malformed body: %q", msg)
	}
	for _, said := range []string{panel, msg} {
		if strings.Contains(said, "invalid character") || strings.Contains(said, "in literal") {
			t.Errorf("encoding/json's text reaches the user: %q", said)
		}
	}
}

// TestToolsPageCountsTheTextNotItsFormEncoding: a form encodes a quote or
// a brace as three bytes, so a JSON paste well within the JSON tools'
// 512 KiB made a form body over 1 MiB, refused "larger than 1048576
// bytes". The page measures the text as typed, and a paste too large for
// the tool is refused in its terms, as the API's is.
func TestToolsPageCountsTheTextNotItsFormEncoding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	session := e.sessionCookie("ann@example.com")
	paste := func(size int) string {
		item := `{"k":"v","n":[1,2]},`
		return "[" + strings.Repeat(item, size/len(item)) + "0]"
	}
	fits := paste(480 << 10)
	if encoded := len(url.Values{"text": {fits}}.Encode()); encoded <= 1<<20 {
		t.Fatalf("the form encodes the paste in %d bytes: no more than a body holds", encoded)
	}
	res := e.browse("POST", "/json_minify", url.Values{"text": {fits}}, session).want(200)
	if out := html.UnescapeString(panelOf(t, res.body, "tool-json")); !strings.Contains(out, `<code id="json-out">[{"k":"v","n":[1,2]},{"k":"v"`) {
		t.Fatal("the minified JSON is not on the page")
	}

	large := paste(957 << 10)
	panel := html.UnescapeString(panelOf(t, e.browse("POST", "/json_format", url.Values{"text": {large}}, session).want(413).body, "tool-json"))
	if !strings.Contains(panel, "The text is 957 KiB; this tool takes at most 512 KiB.") || strings.Contains(panel, "1048576") {
		t.Errorf("the page refuses a 957 KiB paste with:\n%s", panel)
	}
	msg := e.post("/api/v1/json_format", map[string]string{"text": paste(600 << 10)}, "X-API-Key", key).wantError(400, "invalid_json")["error"].(string)
	if msg != `field "text" is 600 KiB; the JSON tools take at most 512 KiB` {
		t.Errorf("the API refuses a 600 KiB text with %q", msg)
	}
	huge := strings.Repeat(`"`, 1100<<10)
	panel = html.UnescapeString(panelOf(t, e.browse("POST", "/base64", url.Values{"text": {huge}, "option": {"encode"}}, session).want(413).body, "tool-base64"))
	if !strings.Contains(panel, "The text is larger than 1 MiB, more than any tool takes.") {
		t.Errorf("the page refuses a form over 3 MiB with:\n%s", panel)
	}
}
