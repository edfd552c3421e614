package server_test

import (
	"testing"

	"secutil/store"
)

func TestHashIdentifierRoute(t *testing.T) {
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	m := e.post("/api/v1/hash_identifier", map[string]string{"hash": md5Password}, "X-API-Key", key).want(200).json()
	if m["estimate"] != "MD5" {
		t.Fatalf("32 hex: %v", m["estimate"])
	}
	cands := m["candidates"].([]any)
	if len(cands) < 3 || cands[0].(map[string]any)["hashcat_mode"] != float64(0) || cands[1].(map[string]any)["name"] != "NTLM" {
		t.Fatalf("candidates %v", cands)
	}
	m = e.post("/api/hash_identifier", map[string]string{"hash": "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"}, "X-API-Key", key).want(200).json()
	if c := m["candidates"].([]any)[0].(map[string]any); c["hashcat_mode"] != float64(3200) {
		t.Fatalf("bcrypt: %v", m)
	}
	if m := e.post("/api/hash_identifier", map[string]string{"hash": "not a hash at all!"}, "X-API-Key", key).want(200).json(); m["estimate"] != "not a hash" || m["note"] != "text with spaces" {
		t.Fatalf("no match: %v", m)
	}
	e.post("/api/hash_identifier", map[string]string{}, "X-API-Key", key).wantError(400, "invalid_request")
	e.post("/api/hash_identifier", map[string]string{"hash": md5Password}).wantError(401, "unauthorized")
}
