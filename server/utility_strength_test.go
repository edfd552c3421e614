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
	// At the root, for the utilities page, a session works as a key.
	e.post("/password_check", map[string]string{"password": "password"}, "Cookie", e.login("annabel@example.com")).want(200)
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

func TestPasswordCheckReportsBreaches(t *testing.T) {
	t.Parallel()
	t.Run("without a breach file, breached is null", func(t *testing.T) {
		e := newEnv(t)
		key := e.key("ann@example.com", store.PlanPro)
		m := e.post("/api/v1/password_check", map[string]string{"password": breachedPassphrase}, "X-API-Key", key).want(200).json()
		if v, ok := m["breached"]; !ok || v != nil || m["score"] != float64(4) {
			t.Fatalf("%v", m)
		}
	})
	t.Run("with one, the count; a breached password scores 0", func(t *testing.T) {
		e := newEnv(t, withBreachFile(t))
		key := e.key("ann@example.com", store.PlanPro)
		m := e.post("/api/v1/password_check", map[string]string{"password": breachedPassphrase}, "X-API-Key", key).want(200).json()
		feedback, _ := m["feedback"].([]any)
		if m["breached"] != float64(12) || m["score"] != float64(0) || m["label"] != "very weak" ||
			len(feedback) == 0 || !strings.Contains(feedback[0].(string), "appeared 12 times in data breaches") ||
			m["estimated_crack_time"] != "less than a second" {
			t.Fatalf("%v", m)
		}
		m = e.post("/password_check", map[string]string{"password": "amber glacier pocket violin"}, "X-API-Key", key).want(200).json()
		if m["breached"] != float64(0) || m["score"] != float64(4) {
			t.Fatalf("%v", m)
		}
	})
}
