package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"secutil/store"
	"secutil/tools/pbe"
)

func TestConcurrentMeteredCallsCountExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("pro@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(context.Background(), "pro@example.com")
	var wg sync.WaitGroup
	errs := make(chan string, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := e.meteredCall(key); res.status != http.StatusOK {
				errs <- fmt.Sprintf("status %d: %s", res.status, res.body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, want := e.usage(a.ID), 200; got != want {
		t.Fatalf("api_usage after 200 concurrent calls: got %v, want %v", got, want)
	}
	m := e.post("/api/user_info", nil, "X-API-Key", key).want(200).json()
	if m["api_usage"] != float64(200) {
		t.Fatalf("user_info api_usage = %v", m["api_usage"])
	}
}

func TestStarterCapAnswers429AndDoesNotCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	a, _ := e.store.AccountByEmail(context.Background(), "ann@example.com")
	e.fill(a.ID, store.StarterCap-1)

	res := e.meteredCall(key).want(200)
	if got := res.header.Get("RateLimit-Limit"); got != "100" {
		t.Fatalf("RateLimit-Limit = %q", got)
	}
	if got := res.header.Get("RateLimit-Remaining"); got != "0" {
		t.Fatalf("RateLimit-Remaining = %q", got)
	}
	if secs, err := strconv.Atoi(res.header.Get("RateLimit-Reset")); err != nil || secs <= 0 || secs > 31*24*3600 {
		t.Fatalf("RateLimit-Reset = %q, want the seconds until the month ends", res.header.Get("RateLimit-Reset"))
	}
	res = e.meteredCall(key)
	res.wantError(429, "plan_limit_reached")
	if secs, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || secs <= 0 {
		t.Fatalf("Retry-After = %q", res.header.Get("Retry-After"))
	}
	if got := e.usage(a.ID); got != store.StarterCap {
		t.Fatalf("usage after a refused call: got %d, want %d", got, store.StarterCap)
	}
	// Account routes are not metered and still work at the cap.
	e.post("/api/user_info", nil, "X-API-Key", key).want(200)
}

func TestConcurrentCallsNeverOvershootTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	a, _ := e.store.AccountByEmail(context.Background(), "ann@example.com")
	e.fill(a.ID, 90)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := e.meteredCall(key)
			mu.Lock()
			statuses[res.status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[200] != 10 || statuses[429] != 30 {
		t.Fatalf("statuses %v, want 10×200 and 30×429", statuses)
	}
	if got := e.usage(a.ID); got != 100 {
		t.Fatalf("usage %d, want 100", got)
	}
	sg, _ := e.store.Suggestions(context.Background(), 1000, 0)
	if len(sg) != 10 {
		t.Fatalf("%d suggestions stored, want 10: a refused call must not store one", len(sg))
	}
}

func TestBadInputIsNotCounted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	a, _ := e.store.AccountByEmail(context.Background(), "ann@example.com")
	e.post("/api/suggestion", `{"message": "   "}`, "X-API-Key", key).wantError(400, "invalid_message_length")
	e.post("/api/suggestion", `{"message": 5}`, "X-API-Key", key).wantError(400, "invalid_field")
	if got := e.usage(a.ID); got != 0 {
		t.Fatalf("usage after bad input: %d, want 0", got)
	}
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
