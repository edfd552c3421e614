package server_test

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"secutil/store"
)

func TestBase64Route(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, tc := range []struct {
		body   map[string]string
		answer string
	}{
		{map[string]string{"text": "foobar", "option": "encode"}, "Zm9vYmFy"},
		{map[string]string{"text": "Zm9vYmFy", "option": "decode"}, "foobar"},
		{map[string]string{"text": "Zm9vYmE", "option": "DECODE"}, "fooba"},
		{map[string]string{"text": "", "option": "encode"}, ""},
	} {
		m := e.post("/api/v1/base64", tc.body, "X-API-Key", key).want(200).json()
		if m["answer"] != tc.answer {
			t.Errorf("%v: answer %v, want %q", tc.body, m["answer"], tc.answer)
		}
		if v, ok := m["error"]; !ok || v != nil {
			t.Errorf("%v: error field %v, want null", tc.body, v)
		}
	}
	e.post("/api/base64", map[string]string{"text": "%%%", "option": "decode"}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/base64", map[string]string{"text": "x", "option": "rot13"}, "X-API-Key", key).wantError(400, "invalid_request")
	e.post("/api/base64", map[string]string{"text": "x"}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/base64", map[string]string{"option": "encode"}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/base64", map[string]string{"text": "x", "option": "encode"}).wantError(401, "unauthorized")
}

func TestGenerateRandomKeyRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a := e.post("/api/generate_random_key", nil, "X-API-Key", key).want(200).json()["random_key"].(string)
	b := e.post("/api/v1/generate_random_key", nil, "X-API-Key", key).want(200).json()["random_key"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a) || a == b {
		t.Fatalf("keys %q %q", a, b)
	}
	e.post("/api/generate_random_key", nil).wantError(401, "unauthorized")
}

func TestJWTDecoderRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	// {"alg":"none"}.{"sub":"1","exp":1} — unsigned and expired: a 200 with warnings.
	m := e.post("/api/jwt_decoder", map[string]string{"token": "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIiwiZXhwIjoxfQ."}, "X-API-Key", key).want(200).json()
	if !strings.Contains(m["answer"].(string), `"sub": "1"`) || !strings.Contains(m["error"].(string), "expired") || !strings.Contains(m["error"].(string), `"none"`) {
		t.Fatalf("jwt_decoder = %v", m)
	}
	m = e.post("/api/jwt_decoder", map[string]string{"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}, "X-API-Key", key).want(200).json()
	if v, has := m["error"]; !has || v != nil {
		t.Fatalf("a clean token got an inline error: %v", m)
	}
	e.post("/api/jwt_decoder", map[string]string{"token": "not.a.jwt!"}, "X-API-Key", key).wantError(400, "invalid_jwt")
	e.post("/api/jwt_decoder", map[string]string{"token": "only.two"}, "X-API-Key", key).wantError(400, "invalid_jwt")
	e.post("/api/jwt_decoder", map[string]string{}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/jwt_decoder", map[string]string{"token": "a.b.c"}).wantError(401, "unauthorized")
}

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
