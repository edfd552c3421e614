package server_test

import (
	"testing"

	"secutil/store"
)

func TestEntropy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	m := e.post("/api/entropy", map[string]string{"password": "abc"}, "X-API-Key", key).want(200).json()
	// 3 × log2(26) = 14.10 bits.
	if m["entropy"] != 14.1 || m["estimate_brute_force"] != "less than a second" {
		t.Fatalf("entropy: %v", m)
	}
	if m := e.post("/api/v1/entropy", map[string]string{"password": "Tr0ub4dor&3xQ!vZ9pL"}, "X-API-Key", key).want(200).json(); m["estimate_brute_force"] != "centuries" {
		t.Fatalf("entropy: %v", m)
	}
	e.post("/api/entropy", map[string]string{}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/entropy", map[string]string{"password": "x"}).wantError(401, "unauthorized")
}
