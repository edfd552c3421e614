package server_test

import (
	"context"
	"testing"

	"secutil/store"
)

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
