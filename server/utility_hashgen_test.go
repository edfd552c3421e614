package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/pbe"
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

// oneSlot gives the server an engine with one key-derivation slot, and
// returns it so a test can hold the slot.
func oneSlot(engine **pbe.Engine) func(*server.Deps) {
	return func(d *server.Deps) {
		*engine = pbe.NewEngine(1, cheapKDF)
		d.Crypto = *engine
	}
}

// holdSlot takes the engine's only slot until the returned func is called.
func holdSlot(t *testing.T, engine *pbe.Engine) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go engine.WithSlot(context.Background(), func() { close(held); <-done })
	<-held
	return sync.OnceFunc(func() { close(done) })
}

// TestSlowHashesShareTheKDFSlots: scrypt, argon2id and bcrypt ran with no
// concurrency limit (200 parallel calls reached 6.5 GiB). They now wait
// for the key-derivation slots /secure_encrypt uses, and so do the slow
// schemes of /hash_verify.
func TestSlowHashesShareTheKDFSlots(t *testing.T) {
	t.Parallel()
	var engine *pbe.Engine
	e := newEnv(t, oneSlot(&engine))
	key := e.key("pro@example.com", store.PlanPro)
	release := holdSlot(t, engine)
	defer release()
	answers := make(chan response, 5)
	for _, algorithm := range []string{"scrypt", "argon2id", "bcrypt"} {
		go func() {
			answers <- e.post("/api/hash_generator", map[string]string{"algorithm": algorithm, "plaintext": "pw"}, "X-API-Key", key)
		}()
	}
	for _, hash := range []string{
		"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
		"$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
	} {
		go func() {
			answers <- e.post("/api/hash_verify", map[string]string{"password": "pw", "hash": hash}, "X-API-Key", key)
		}()
	}
	// A fast digest does not wait, made or verified.
	e.post("/api/hash_generator", map[string]string{"algorithm": "sha256", "plaintext": "pw"}, "X-API-Key", key).want(200)
	e.post("/api/hash_verify", map[string]string{"password": "abc", "hash": "900150983cd24fb0d6963f7d28e17f72"}, "X-API-Key", key).want(200)
	answeredOnlyAfterRelease(t, answers, release, 5)
}

// TestHashGeneratorHonoursCosts: {"algorithm":"bcrypt","cost":12} answered
// $2b$10$, the cost ignored; now each password hash takes its costs, within
// the bounds, and refuses one out of them or of another algorithm.
func TestHashGeneratorHonoursCosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, tc := range []struct {
		body   map[string]any
		prefix string
	}{
		{map[string]any{"algorithm": "bcrypt", "plaintext": "x", "cost": 5}, "$2b$05$"},
		{map[string]any{"algorithm": "argon2id", "plaintext": "x", "memory": 2048, "time": 3, "parallelism": 2}, "$argon2id$v=19$m=2048,t=3,p=2$"},
		{map[string]any{"algorithm": "argon2id", "plaintext": "x", "time": 1}, "$argon2id$v=19$m=19456,t=1,p=1$"},
		{map[string]any{"algorithm": "scrypt", "plaintext": "x", "n": 1024, "r": 4, "p": 2}, "$scrypt$ln=10,r=4,p=2$"},
	} {
		m := e.post("/api/v1/hash_generator", tc.body, "X-API-Key", key).want(200).json()
		if !strings.HasPrefix(m["hash"].(string), tc.prefix) {
			t.Errorf("%v: %v, want %s…", tc.body, m["hash"], tc.prefix)
		}
	}
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"algorithm": "bcrypt", "plaintext": "x", "cost": 15}, "cost"},
		{map[string]any{"algorithm": "bcrypt", "plaintext": "x", "cost": 3}, "cost"},
		{map[string]any{"algorithm": "argon2id", "plaintext": "x", "memory": 1 << 20}, "memory"},
		{map[string]any{"algorithm": "scrypt", "plaintext": "x", "n": 1000}, "power of two"},
		{map[string]any{"algorithm": "sha256", "plaintext": "x", "cost": 12}, `"cost"`},
		{map[string]any{"algorithm": "bcrypt", "plaintext": "x", "memory": 1024}, `"memory"`},
	} {
		msg := e.post("/api/v1/hash_generator", tc.body, "X-API-Key", key).wantError(400, "invalid_input")["error"].(string)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q does not say %s", tc.body, msg, tc.want)
		}
	}
}
