package server_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"secutil/store"
)

// batchRoute is a utility that takes a batch, and a body of n items for it.
type batchRoute struct {
	path string
	body func(n int) any
}

// hexes is n distinct hex strings of width digits.
func hexes(n, width int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%0*x", width, i+1)
	}
	return out
}

// batchRoutes are the batch utilities. The tokens they do not count are
// in their bodies too: a token hash_lookup skips and a line the audit
// refuses.
var batchRoutes = []batchRoute{
	{"/api/v1/hash_identifier", func(n int) any { return map[string]any{"hashes": hexes(n, 32)} }},
	{"/api/v1/data_breach", func(n int) any { return map[string]any{"sha1": hexes(n, 40)} }},
	{"/api/v1/hash_lookup", func(n int) any { return map[string]any{"hashes": append(hexes(n, 32), "nothex")} }},
	{"/api/v1/password_audit", func(n int) any {
		lines := []string{"not a dump line"}
		for i, h := range hexes(n, 32) {
			lines = append(lines, fmt.Sprintf("user%d:%d:aad3b435b51404eeaad3b435b51404ee:%s:::", i, 1000+i, h))
		}
		return map[string]any{"dump": strings.Join(lines, "\n")}
	}},
}

// starterWithUsed is a starter account's key and id, with used items
// counted this month.
func (e *env) starterWithUsed(email string, used int) (string, int64) {
	e.t.Helper()
	key := e.key(email, store.PlanStarter)
	a, err := e.store.AccountByEmail(e.t.Context(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	e.fill(a.ID, used)
	return key, a.ID
}

// A batch of n items is charged n, and RateLimit-Remaining counts items.
func TestBatchIsChargedItsItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i, route := range batchRoutes {
		t.Run(route.path, func(t *testing.T) {
			e := e.in(t)
			key, id := e.starterWithUsed(fmt.Sprintf("batch%d@example.com", i), 10)
			res := e.post(route.path, route.body(7), "X-API-Key", key).want(http.StatusOK)
			if got := e.usage(id); got != 17 {
				t.Fatalf("usage %d after a batch of 7 items, want 17", got)
			}
			if got := res.header.Get("RateLimit-Remaining"); got != strconv.Itoa(store.StarterCap-17) {
				t.Fatalf("RateLimit-Remaining %q, want the %d items left", got, store.StarterCap-17)
			}
		})
	}
}

// A batch larger than what is left of the month is refused whole, with
// its items and the items left in the message, and nothing charged; the
// batch of what is left then passes.
func TestBatchLargerThanWhatIsLeftIsRefusedWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i, route := range batchRoutes {
		t.Run(route.path, func(t *testing.T) {
			e := e.in(t)
			key, id := e.starterWithUsed(fmt.Sprintf("whole%d@example.com", i), store.StarterCap-5)
			res := e.post(route.path, route.body(8), "X-API-Key", key)
			msg := res.wantError(http.StatusTooManyRequests, "plan_limit_reached")["error"].(string)
			if !strings.Contains(msg, "this batch has 8 items and 5 items are left") {
				t.Fatalf("message %q does not give the batch's items and those left", msg)
			}
			if got := res.header.Get("RateLimit-Remaining"); got != "5" {
				t.Fatalf("RateLimit-Remaining %q, want 5", got)
			}
			if res.header.Get("Retry-After") == "" {
				t.Fatal("no Retry-After")
			}
			if got := e.usage(id); got != store.StarterCap-5 {
				t.Fatalf("usage %d after a refused batch, want %d: nothing charged", got, store.StarterCap-5)
			}
			res = e.post(route.path, route.body(5), "X-API-Key", key).want(http.StatusOK)
			if got := e.usage(id); got != store.StarterCap || res.header.Get("RateLimit-Remaining") != "0" {
				t.Fatalf("usage %d, RateLimit-Remaining %q after the batch of the 5 left", got, res.header.Get("RateLimit-Remaining"))
			}
			e.post(route.path, route.body(1), "X-API-Key", key).wantError(http.StatusTooManyRequests, "plan_limit_reached")
		})
	}
}

// Batches racing for the last items of the month never pass the cap:
// each is charged its items whole or refused whole.
func TestRacingBatchesNeverPassTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key, id := e.starterWithUsed("race@example.com", store.StarterCap-10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	counted := 0
	for range 12 {
		wg.Go(func() {
			res := e.post("/api/v1/hash_identifier", batchRoutes[0].body(3), "X-API-Key", key)
			mu.Lock()
			defer mu.Unlock()
			switch res.status {
			case http.StatusOK:
				counted += 3
			case http.StatusTooManyRequests:
				if msg := res.json()["error"].(string); !strings.Contains(msg, "3 items") && !strings.Contains(msg, "used up") {
					t.Errorf("refusal %q", msg)
				}
			default:
				t.Errorf("status %d: %s", res.status, res.body)
			}
		})
	}
	wg.Wait()
	if got := e.usage(id); got != store.StarterCap-10+counted || counted > 10 {
		t.Fatalf("usage %d with %d items answered, want %d, at most the 10 left", got, counted, store.StarterCap-10+counted)
	}
}

// A call of one item is one item; the message of its refusal counts items.
func TestSingleCallRefusalCountsItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key, _ := e.starterWithUsed("one@example.com", store.StarterCap)
	msg := e.post("/api/v1/hash_identifier", map[string]any{"hash": hexes(1, 32)[0]}, "X-API-Key", key).
		wantError(http.StatusTooManyRequests, "plan_limit_reached")["error"].(string)
	if !strings.Contains(msg, "limit of 100 items this month is used up") {
		t.Fatalf("message %q", msg)
	}
}
