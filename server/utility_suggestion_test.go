package server_test

import (
	"context"
	"strings"
	"testing"

	"secutil/store"
)

func TestSuggestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	// JSON, as every route answers (it was text/plain); a client asking
	// for text gets the same.
	for _, accept := range []string{"*/*", "text/plain"} {
		res := e.post("/api/suggestion", map[string]any{"message": "  dark mode  ", "email": "ann@example.com"}, "X-API-Key", key, "Accept", accept).want(200)
		if ct := res.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Fatalf("Accept %s: Content-Type %q", accept, ct)
		}
		if m := res.json(); m["received"] != true || !strings.Contains(m["message"].(string), "Thank you") {
			t.Fatalf("Accept %s: answer %v", accept, m)
		}
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
	if len(sg) != 4 || sg[3].Message != "dark mode" || sg[3].Email != "ann@example.com" {
		t.Fatalf("stored suggestions %+v", sg)
	}
}
