package server_test

import (
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

// TestBase64DecodesBinary: bytes that are not UTF-8 were refused; now they
// are answered as hex, or as unpadded base64url when asked, and only
// output text refuses them.
func TestBase64DecodesBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, tc := range []struct {
		body           map[string]string
		answer, output string
	}{
		{map[string]string{"text": "/wD+", "option": "decode"}, "ff00fe", "hex"},
		{map[string]string{"text": "_wD-", "option": "decode", "output": "base64url"}, "_wD-", "base64url"},
		{map[string]string{"text": "aGk=", "option": "decode", "output": "hex"}, "6869", "hex"},
		{map[string]string{"text": "aGk=", "option": "decode"}, "hi", "text"},
	} {
		m := e.post("/api/v1/base64", tc.body, "X-API-Key", key).want(200).json()
		if m["answer"] != tc.answer || m["output"] != tc.output || m["error"] != nil {
			t.Errorf("%v: %v, want %q as %s", tc.body, m, tc.answer, tc.output)
		}
	}
	e.post("/api/v1/base64", map[string]string{"text": "/wD+", "option": "decode", "output": "text"}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/v1/base64", map[string]string{"text": "aGk=", "option": "decode", "output": "octal"}, "X-API-Key", key).wantError(400, "invalid_request")
	e.post("/api/v1/base64", map[string]string{"text": "hi", "option": "encode", "output": "hex"}, "X-API-Key", key).wantError(400, "invalid_request")
	if m := e.post("/api/v1/base64", map[string]string{"text": "hi", "option": "encode"}, "X-API-Key", key).want(200).json(); m["output"] != nil {
		t.Errorf("an encoding names an output: %v", m)
	}
}
