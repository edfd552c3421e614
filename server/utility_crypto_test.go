package server_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"secutil/store"
	"secutil/tools/pbe"
)

func TestSecureEncryptDecrypt(t *testing.T) {
	t.Parallel()
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
	// Flip one bit of the ciphertext (not of the base64 text, which could
	// make it malformed instead of tampered).
	raw, err := base64.RawURLEncoding.DecodeString(env)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-20] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	e.post("/api/secure_decrypt", map[string]string{"text": tampered, "password": "pw1"}, "X-API-Key", key).wantError(400, "decryption_failed")
	for _, bad := range []map[string]string{
		{"text": "not base64 !!", "password": "pw1"},
		{"text": env[:20], "password": "pw1"},
	} {
		e.post("/api/secure_decrypt", bad, "X-API-Key", key).wantError(400, "invalid_input")
	}
	for field, bad := range map[string]map[string]string{"password": {"text": env}, "text": {"password": "pw1"}} {
		msg := e.post("/api/secure_decrypt", bad, "X-API-Key", key).wantError(400, "missing_field")["error"].(string)
		if !strings.Contains(msg, `"`+field+`"`) {
			t.Errorf("%v: %q does not name %s", bad, msg, field)
		}
	}
	e.post("/api/secure_encrypt", map[string]string{"text": strings.Repeat("x", 70_000), "password": "p"}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/secure_encrypt", map[string]string{"text": "x", "password": "p"}).wantError(401, "unauthorized")
}

// TestDecryptCostsNoMoreThanEncrypt: an envelope could name costs far
// above what the server writes, and a failed decrypt was free. Now costs
// above the server's own are refused before any key derivation, and a
// decrypt that ran one counts whether or not the password was right.
func TestDecryptCostsNoMoreThanEncrypt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	costly := pbe.Params{MemoryKiB: cheapKDF.MemoryKiB * 2, Time: cheapKDF.Time, Parallelism: cheapKDF.Parallelism}
	foreign, err := pbe.NewEngine(1, costly).Encrypt(t.Context(), "secret", "pw")
	if err != nil {
		t.Fatal(err)
	}
	res := e.post("/api/secure_decrypt", map[string]string{"text": foreign, "password": "pw"}, "X-API-Key", key)
	if msg := res.wantError(400, "invalid_input")["error"].(string); !contains(msg, "exceed this server's own") {
		t.Fatalf("message %q does not name the bound", msg)
	}
	if got := e.usage(a.ID); got != 0 {
		t.Fatalf("a refused envelope counted: usage %d", got)
	}
	env := e.post("/api/secure_encrypt", map[string]string{"text": "secret", "password": "pw"}, "X-API-Key", key).want(200).json()["result"].(string)
	e.post("/api/secure_decrypt", map[string]string{"text": env, "password": "wrong"}, "X-API-Key", key).wantError(400, "decryption_failed")
	if got := e.usage(a.ID); got != 2 {
		t.Fatalf("usage %d after an encrypt and a wrong-password decrypt, want 2", got)
	}
	// At the cap, a decrypt is refused before the key derivation.
	starter := e.key("bob@example.com", store.PlanStarter)
	bob, _ := e.store.AccountByEmail(t.Context(), "bob@example.com")
	e.fill(bob.ID, store.StarterCap)
	e.post("/api/secure_decrypt", map[string]string{"text": env, "password": "wrong"}, "X-API-Key", starter).wantError(429, "plan_limit_reached")
}
