package server_test

import (
	"strings"
	"testing"

	"secutil/store"
)

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

// TestJWTDecoderAnswersObjectsAndWarnings: besides answer and error, as
// they were, header and payload are JSON objects a client reads without
// parsing answer, and the warnings are an array, empty when none.
func TestJWTDecoderAnswersObjectsAndWarnings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	m := e.post("/api/v1/jwt_decoder", map[string]string{"token": "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIiwiZXhwIjoxfQ."}, "X-API-Key", key).want(200).json()
	header, _ := m["header"].(map[string]any)
	payload, _ := m["payload"].(map[string]any)
	warnings := anyStrings(m["warnings"])
	if header["alg"] != "none" || payload["sub"] != "1" || payload["exp"] != 1.0 || len(warnings) != 2 {
		t.Fatalf("jwt_decoder = %v", m)
	}
	if m["error"] != strings.Join(warnings, "; ") || !strings.Contains(m["answer"].(string), `"sub": "1"`) {
		t.Errorf("answer and error changed: %v", m)
	}
	m = e.post("/api/v1/jwt_decoder", map[string]string{"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}, "X-API-Key", key).want(200).json()
	if w, ok := m["warnings"].([]any); !ok || len(w) != 0 || m["error"] != nil || m["signature"] != "c2ln" {
		t.Errorf("a clean token: %v", m)
	}
}
