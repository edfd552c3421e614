package server_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/pbe"
)

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
// for the key-derivation slots /secure_encrypt uses.
func TestSlowHashesShareTheKDFSlots(t *testing.T) {
	t.Parallel()
	var engine *pbe.Engine
	e := newEnv(t, oneSlot(&engine))
	key := e.key("pro@example.com", store.PlanPro)
	release := holdSlot(t, engine)
	defer release()
	answers := make(chan response, 3)
	for _, algorithm := range []string{"scrypt", "argon2id", "bcrypt"} {
		go func() {
			answers <- e.post("/api/hash_generator", map[string]string{"algorithm": algorithm, "plaintext": "pw"}, "X-API-Key", key)
		}()
	}
	// A fast digest does not wait.
	e.post("/api/hash_generator", map[string]string{"algorithm": "sha256", "plaintext": "pw"}, "X-API-Key", key).want(200)
	answeredOnlyAfterRelease(t, answers, release, 3)
}

// answeredOnlyAfterRelease checks that no call answers while the slot is
// held, then releases it and waits for n answers of 200.
func answeredOnlyAfterRelease(t *testing.T, answers <-chan response, release func(), n int) {
	t.Helper()
	select {
	case res := <-answers:
		t.Fatalf("a call was answered while the only slot was held: %d %s", res.status, res.body)
	case <-time.After(500 * time.Millisecond):
	}
	release()
	for range n {
		(<-answers).want(200)
	}
}

// TestCappedAccountNeverWorksPastItsCalls: the cap was checked before the
// work but charged after it, so 100 of 200 parallel calls from a starter
// account were refused only after computing. Now a call reserves one of
// the calls left before it works: with 5 left, 20 parallel slow calls get
// 15 refusals at once, and only 5 ever wait for the work.
func TestCappedAccountNeverWorksPastItsCalls(t *testing.T) {
	t.Parallel()
	var engine *pbe.Engine
	e := newEnv(t, oneSlot(&engine))
	key := e.key("ann@example.com", store.PlanStarter)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	e.fill(a.ID, store.StarterCap-5)
	release := holdSlot(t, engine)
	defer release()

	answers := make(chan response, 20)
	for i := range 20 {
		go func() {
			body := map[string]string{"algorithm": "scrypt", "plaintext": "pw"}
			path := "/api/hash_generator"
			if i%2 == 1 {
				path, body = "/api/secure_encrypt", map[string]string{"text": "x", "password": "pw"}
			}
			answers <- e.post(path, body, "X-API-Key", key)
		}()
	}
	for range 15 {
		select {
		case res := <-answers:
			res.wantError(http.StatusTooManyRequests, "plan_limit_reached")
		case <-time.After(10 * time.Second):
			t.Fatal("calls past the cap waited for work instead of being refused at once")
		}
	}
	answeredOnlyAfterRelease(t, answers, release, 5)
	if got := e.usage(a.ID); got != store.StarterCap {
		t.Fatalf("usage %d, want the cap %d", got, store.StarterCap)
	}
	// A failed call gives its reservation back.
	b := e.key("bob@example.com", store.PlanStarter)
	bob, _ := e.store.AccountByEmail(t.Context(), "bob@example.com")
	e.fill(bob.ID, store.StarterCap-1)
	e.post("/api/hash_generator", map[string]string{"algorithm": "whirlpool", "plaintext": "pw"}, "X-API-Key", b).wantError(400, "unknown_algorithm")
	e.post("/api/hash_generator", map[string]string{"algorithm": "md5", "plaintext": "pw"}, "X-API-Key", b).want(200)
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
