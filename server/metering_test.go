package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"secutil/store"
)

// meteredCall is a cheap metered utility call used to exercise counting.
func (e *env) meteredCall(key string) response {
	e.t.Helper()
	return e.post("/api/v1/suggestion", map[string]string{"message": "more tools please"}, "X-API-Key", key)
}

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

func TestSuggestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	res := e.post("/api/suggestion", map[string]any{"message": "  dark mode  ", "email": "ann@example.com"}, "X-API-Key", key).want(200)
	if ct := res.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	e.post("/api/suggestion", map[string]any{"message": "x", "email": nil}, "X-API-Key", key).want(200)
	e.post("/api/suggestion", map[string]any{"message": "x", "email": "not-an-email"}, "X-API-Key", key).wantError(400, "invalid_request")
	long := make([]byte, 5001)
	for i := range long {
		long[i] = 'a'
	}
	e.post("/api/suggestion", map[string]any{"message": string(long)}, "X-API-Key", key).wantError(400, "invalid_message_length")
	e.post("/api/suggestion", map[string]any{"message": string(long[:5000])}, "X-API-Key", key).want(200)
	sg, _ := e.store.Suggestions(context.Background(), 10, 0)
	if len(sg) != 3 || sg[2].Message != "dark mode" || sg[2].Email != "ann@example.com" {
		t.Fatalf("stored suggestions %+v", sg)
	}
}
