package server_test

import (
	"testing"

	"secutil/store"
)

func TestCommonPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for pw, want := range map[string]bool{"password": true, "PASSWORD": true, "letmein": true, "violet tram ladder cinema": false} {
		if m := e.post("/api/common_pwd", map[string]string{"password": pw}, "X-API-Key", key).want(200).json(); m["is_common"] != want {
			t.Errorf("common_pwd(%q) = %v", pw, m["is_common"])
		}
	}
	e.post("/api/common_pwd", map[string]string{"password": "x"}).wantError(401, "unauthorized")
	// At the root, for the utilities page, a session works as a key.
	session := e.login("ann@example.com")
	e.post("/common_pwd", map[string]string{"password": "password"}, "Cookie", session).want(200)
}
