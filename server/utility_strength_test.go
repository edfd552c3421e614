package server_test

import (
	"strings"
	"testing"

	"secutil/store"
)

func TestPasswordCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("annabel@example.com", store.PlanPro)
	weak := e.post("/api/v1/password_check", map[string]string{"password": "password1"}, "X-API-Key", key).want(200).json()
	if weak["score"] != float64(0) || weak["label"] != "very weak" || len(weak["feedback"].([]any)) == 0 {
		t.Fatalf("password1: %v", weak)
	}
	strong := e.post("/api/password_check", map[string]string{"password": "correct-horse-battery-staple-91!"}, "X-API-Key", key).want(200).json()
	if strong["score"] != float64(4) || strong["label"] != "very strong" || strong["length"] != float64(32) ||
		strong["charset_size"] != float64(69) || strong["entropy"] == nil || strong["estimated_crack_time"] == "" {
		t.Fatalf("strong: %v", strong)
	}
	// The caller's email local part is a word an attacker tries first.
	mine := e.post("/api/password_check", map[string]string{"password": "annabel1987"}, "X-API-Key", key).want(200).json()
	other := e.key("zed@example.com", store.PlanPro)
	theirs := e.post("/api/password_check", map[string]string{"password": "annabel1987"}, "X-API-Key", other).want(200).json()
	if mine["score"].(float64) > theirs["score"].(float64) {
		t.Fatalf("own email did not lower the score: %v vs %v", mine["score"], theirs["score"])
	}
	e.post("/api/password_check", map[string]string{"password": ""}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/password_check", map[string]string{"password": strings.Repeat("é", 257)}, "X-API-Key", key).wantError(400, "invalid_request")
	e.post("/api/password_check", map[string]string{"password": strings.Repeat("é", 256)}, "X-API-Key", key).want(200)
	e.post("/api/password_check", map[string]string{"password": "x"}).wantError(401, "unauthorized")
}

func TestPasswordCheckStarterCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	e.fill(a.ID, store.StarterCap)
	e.post("/api/password_check", map[string]string{"password": "x"}, "X-API-Key", key).wantError(429, "plan_limit_reached")
	e.post("/api/hash_generator", map[string]string{"algorithm": "md5", "plaintext": "x"}, "X-API-Key", key).wantError(429, "plan_limit_reached")
}

func TestEntropyAndCommonPassword(t *testing.T) {
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
	for pw, want := range map[string]bool{"password": true, "PASSWORD": true, "letmein": true, "violet tram ladder cinema": false} {
		if m := e.post("/api/common_pwd", map[string]string{"password": pw}, "X-API-Key", key).want(200).json(); m["is_common"] != want {
			t.Errorf("common_pwd(%q) = %v", pw, m["is_common"])
		}
	}
	e.post("/api/entropy", map[string]string{}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/common_pwd", map[string]string{"password": "x"}).wantError(401, "unauthorized")
	e.post("/api/entropy", map[string]string{"password": "x"}).wantError(401, "unauthorized")
	// Root-level web variants.
	session := e.login("ann@example.com")
	e.post("/common_pwd", map[string]string{"password": "password"}, "Cookie", session).want(200)
	e.post("/password_check", map[string]string{"password": "password"}, "Cookie", session).want(200)
}
