package server_test

import (
	"strings"
	"testing"

	"secutil/store"
)

func TestSecureEncryptDecrypt(t *testing.T) {
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	secret := "meet at the old mill at 9 — ünïcödé ok"
	env := e.post("/api/v1/secure_encrypt", map[string]string{"text": secret, "password": "pw1"}, "X-API-Key", key).want(200).json()["result"].(string)
	if strings.Contains(env, "meet") {
		t.Fatal("envelope contains the plaintext")
	}
	got := e.post("/api/secure_decrypt", map[string]string{"text": env, "password": "pw1"}, "X-API-Key", key).want(200).json()
	if got["result"] != secret {
		t.Fatalf("round trip gave %v", got)
	}
	e.post("/api/secure_decrypt", map[string]string{"text": env, "password": "pw2"}, "X-API-Key", key).wantError(400, "decryption_failed")
	tampered := []byte(env)
	tampered[len(tampered)-3] ^= 1
	if tampered[len(tampered)-3] == '-' || tampered[len(tampered)-3] == '_' {
		tampered[len(tampered)-3] = 'A'
	}
	e.post("/api/secure_decrypt", map[string]string{"text": string(tampered), "password": "pw1"}, "X-API-Key", key).wantError(400, "decryption_failed")
	for _, bad := range []map[string]string{
		{"text": "not base64 !!", "password": "pw1"},
		{"text": env[:20], "password": "pw1"},
		{"text": env},
		{"password": "pw1"},
	} {
		e.post("/api/secure_decrypt", bad, "X-API-Key", key).wantError(400, "invalid_input")
	}
	e.post("/api/secure_encrypt", map[string]string{"text": strings.Repeat("x", 70_000), "password": "p"}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/secure_encrypt", map[string]string{"text": "x", "password": "p"}).wantError(401, "unauthorized")
}
