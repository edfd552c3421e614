package server_test

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"secutil/store"
)

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

// TestGenerateRandomKeyTakesLengthAndFormat: {"length":16} answered 64 hex
// digits, the length ignored; now length and format are honoured, or
// refused out of bounds.
func TestGenerateRandomKeyTakesLengthAndFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, tc := range []struct {
		body    map[string]any
		pattern string
		bits    float64
	}{
		{map[string]any{"length": 16}, `^[0-9a-f]{32}$`, 128},
		{map[string]any{}, `^[0-9a-f]{64}$`, 256},
		{map[string]any{"format": "base64"}, `^[A-Za-z0-9+/]{43}=$`, 256},
		{map[string]any{"length": 64, "format": "base64url"}, `^[A-Za-z0-9_-]{86}$`, 512},
		{map[string]any{"format": "ALPHANUMERIC"}, `^[A-Za-z0-9]{43}$`, 256},
	} {
		m := e.post("/api/v1/generate_random_key", tc.body, "X-API-Key", key).want(200).json()
		if !regexp.MustCompile(tc.pattern).MatchString(m["random_key"].(string)) || m["bits"] != tc.bits {
			t.Errorf("%v: %v, want %s", tc.body, m, tc.pattern)
		}
	}
	m := e.post("/api/v1/generate_random_key", map[string]any{"length": 20, "format": "base64url"}, "X-API-Key", key).want(200).json()
	if raw, err := base64.RawURLEncoding.DecodeString(m["random_key"].(string)); err != nil || len(raw) != 20 || m["format"] != "base64url" {
		t.Errorf("20 bytes as base64url: %v (%v)", m, err)
	}
	for body, want := range map[string]string{`{"length": 8}`: "length", `{"length": 2048}`: "length", `{"format": "base32"}`: "format"} {
		if msg := e.post("/api/v1/generate_random_key", body, "X-API-Key", key).wantError(400, "invalid_request")["error"].(string); !strings.Contains(msg, want) {
			t.Errorf("%s: %q does not name %s", body, msg, want)
		}
	}
}
