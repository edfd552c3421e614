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
