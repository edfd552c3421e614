package server_test

import (
	"encoding/base64"
	"html"
	"net/url"
	"regexp"
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

// TestEncryptWarnsOfAWeakPassword: the tools page encrypts with any
// password, as the API does, but says so when the password is easy to
// guess (below strong), and says by the field that it will.
func TestEncryptWarnsOfAWeakPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanPro)
	session := e.sessionCookie("ann@example.com")
	encrypt := func(password string) string {
		return html.UnescapeString(panelOf(t, e.browse("POST", "/secure_encrypt", url.Values{"text": {"attack at dawn"}, "password": {password}}, session).want(200).body, "tool-crypto"))
	}
	weak := encrypt("a")
	if !strings.Contains(weak, `<p class="alert warning" role="status" id="crypto-weak">Encrypted with a very weak password (score 0 of 4): it can be guessed in less than a second, so anyone who gets this text can open it.`) ||
		!strings.Contains(weak, `id="crypto-out"`) {
		t.Errorf("a one-character password:\n%s", weak)
	}
	if strong := encrypt("quiet harbour lantern orchid"); strings.Contains(strong, "crypto-weak") {
		t.Errorf("a strong passphrase is warned about:\n%s", strong)
	}
	envelope := regexp.MustCompile(`id="crypto-out">([A-Za-z0-9_-]+)<`).FindStringSubmatch(weak)
	if envelope == nil {
		t.Fatal("no envelope")
	}
	opened := html.UnescapeString(panelOf(t, e.browse("POST", "/secure_decrypt", url.Values{"text": {envelope[1]}, "password": {"a"}}, session).want(200).body, "tool-crypto"))
	if !strings.Contains(opened, `id="crypto-out">attack at dawn<`) || strings.Contains(opened, "crypto-weak") {
		t.Errorf("decrypting warns, or fails:\n%s", opened)
	}
	if !strings.Contains(panelOf(t, e.browse("GET", "/tools", nil, session).want(200).body, "tool-crypto"), "the page warns below strong") {
		t.Error("the password field does not say the page warns")
	}
}
