package server_test

import (
	"strings"
	"testing"

	"secutil/store"
)

func TestHashGeneratorRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	m := e.post("/api/v1/hash_generator", map[string]string{"algorithm": "SHA-256", "plaintext": "abc"}, "X-API-Key", key).want(200).json()
	if m["algorithm"] != "sha256" || m["hash"] != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("%v", m)
	}
	m = e.post("/api/hash_generator", map[string]string{"algorithm": "bcrypt", "plaintext": "abc"}, "X-API-Key", key).want(200).json()
	if !strings.HasPrefix(m["hash"].(string), "$2b$10$") {
		t.Fatalf("%v", m)
	}
	e.post("/api/hash_generator", map[string]string{"algorithm": "md5", "plaintext": ""}, "X-API-Key", key).want(200) // empty plaintext hashes too
	e.post("/api/hash_generator", map[string]string{"algorithm": "md5"}, "X-API-Key", key).wantError(400, "missing_field")
	msg := e.post("/api/hash_generator", map[string]string{"algorithm": "rot13", "plaintext": "x"}, "X-API-Key", key).wantError(400, "unknown_algorithm")["error"].(string)
	if !strings.Contains(msg, "blake2b_512") {
		t.Fatalf("error %q does not list the allowed values", msg)
	}
	e.post("/api/hash_generator", map[string]string{"algorithm": "bcrypt", "plaintext": strings.Repeat("x", 80)}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/hash_generator", map[string]string{"algorithm": "md5", "plaintext": "x"}).wantError(401, "unauthorized")
	// The root-level web variant takes the session and counts.
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	before := e.usage(a.ID)
	e.post("/hash_generator", map[string]string{"algorithm": "md5", "plaintext": "x"}, "Cookie", e.login("ann@example.com")).want(200)
	if e.usage(a.ID) != before+1 {
		t.Fatal("root-level call not counted")
	}
}
