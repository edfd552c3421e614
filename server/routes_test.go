package server_test

import "testing"

func TestEveryAPIRouteUnderBothScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/get_api_key", "/new_api_key", "/regenerate", "/user_info", "/suggestion"} {
		for _, scope := range []string{"/api", "/api/v1"} {
			if res := e.post(scope+path, `{}`); res.status == 404 || res.status == 405 {
				t.Errorf("POST %s%s: %d", scope, path, res.status)
			}
		}
	}
}
