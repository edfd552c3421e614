package server_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestNoSecretInLogsOrDatabase drives every credential path, then searches
// the logs and the raw database file for the secrets that went through.
func TestNoSecretInLogsOrDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const regPassword = "unusual orchid harbour lantern"
	const newPassword = "different quiet meadow bicycle"
	e.post("/register", map[string]string{"email": "sec@example.com", "password": regPassword}).want(200)
	e.post("/register/verify", map[string]string{"email": "sec@example.com", "code": e.mail.lastCode(t, "sec@example.com"), "password": regPassword}).want(200)
	e.post("/login", map[string]string{"email": "sec@example.com", "password": "wrong password attempt"}).want(401)
	res := e.post("/login", map[string]string{"email": "sec@example.com", "password": regPassword}).want(200)
	var session string
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == "auth_session" {
			session = c.Value
		}
	}
	key := e.post("/api/get_api_key", map[string]string{"email": "sec@example.com", "password": regPassword}).want(200).json()["api_key"].(string)
	rotated := e.post("/api/new_api_key", nil, "X-API-Key", key).want(200).json()["api_key"].(string)
	regenerated := e.post("/api/regenerate", nil, "Cookie", session).want(200).json()["api_key"].(string)
	e.meteredCall(regenerated).want(200)
	e.post("/forgot-password", map[string]string{"email": "sec@example.com"}).want(200)
	e.post("/forgot-password/verify", map[string]string{"email": "sec@example.com", "code": e.mail.resetCode(t, "sec@example.com"), "new_password": newPassword}).want(200)
	e.store.Close()

	db, err := os.ReadFile(e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(e.dbPath + "-wal")
	logs := e.logs.String()
	for _, secret := range []string{regPassword, newPassword, "wrong password attempt", session, key, rotated, regenerated} {
		if strings.Contains(logs, secret) {
			t.Errorf("secret %q appears in the logs", secret)
		}
		if bytes.Contains(db, []byte(secret)) || bytes.Contains(wal, []byte(secret)) {
			t.Errorf("secret %q appears in the database file", secret)
		}
	}
}
