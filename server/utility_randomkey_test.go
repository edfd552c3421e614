package server_test

import (
	"regexp"
	"testing"

	"secutil/store"
)

func TestGenerateRandomKeyRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a := e.post("/api/generate_random_key", nil, "X-API-Key", key).want(200).json()["random_key"].(string)
	b := e.post("/api/v1/generate_random_key", nil, "X-API-Key", key).want(200).json()["random_key"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a) || a == b {
		t.Fatalf("keys %q %q", a, b)
	}
	e.post("/api/generate_random_key", nil).wantError(401, "unauthorized")
}
