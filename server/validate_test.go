package server_test

import (
	"strings"
	"testing"
)

// TestMisspeltFieldIsNamed: a request that misses a required field and
// carries a key that looks like it gets the key named in its 400, so the
// client sees its typo rather than a field it believes it sent. A key
// nothing like the missing field is not named, and unknown keys beside
// the required ones are ignored on the account routes (a utility refuses
// them: TestUnknownFieldsAreRefused).
func TestMisspeltFieldIsNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		body map[string]string
		want string
	}{
		{map[string]string{"email": "ann@example.com", "passwrd": "x"}, `field \"password\" is required; the request has \"passwrd\": did you mean \"password\"?`},
		{map[string]string{"e-mail": "ann@example.com", "password": "x"}, `field \"email\" is required; the request has \"e-mail\": did you mean \"email\"?`},
		{map[string]string{"email": "ann@example.com", "colour": "x"}, `field \"password\" is required"`},
	} {
		res := e.post("/api/v1/get_api_key", tc.body)
		res.wantError(400, "missing_field")
		if !strings.Contains(string(res.body), tc.want) {
			t.Errorf("%v: got %s, want it to hold %s", tc.body, res.body, tc.want)
		}
	}
	e.account("bea@example.com", "pro")
	e.post("/api/v1/get_api_key", map[string]string{"email": "bea@example.com", "password": testPassword, "extra": "ignored"}).want(200)
}
