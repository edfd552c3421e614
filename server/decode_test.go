package server_test

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

// TestBodyCutShortIsABadRequest: a client that sends less than its
// Content-Length and stops used to get a 500 and an ERROR line in the log.
func TestBodyCutShortIsABadRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling, withAdminToken)
	key := e.key("ann@example.com", store.PlanPro)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	for _, path := range []string{"/api/v1/base64", "/login", "/billing/payments/webhook", "/boss/accounts/list"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		req := "POST " + path + " HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() + "\r\nContent-Type: application/json\r\n" +
			"X-API-Key: " + key + "\r\nAuthorization: Bearer " + adminToken + "\r\nContent-Length: 100\r\n\r\n" + `{"text":"abc","option":"enc`
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		conn.(*net.TCPConn).CloseWrite()
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if res.StatusCode >= 500 {
			t.Errorf("%s: %d for a body cut short", path, res.StatusCode)
		}
	}
	if strings.Contains(e.logs.String(), "level=ERROR") {
		t.Fatalf("a body cut short was logged as an error:\n%s", e.logs)
	}
}

// TestFieldErrorsNameTheField: a missing field and a field of the wrong
// type each have one code on every route, and the message names the field
// as the client wrote it (not the Go name of an embedded struct).
func TestFieldErrorsNameTheField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, tc := range []struct {
		path, body, code, field string
	}{
		{"/api/get_api_key", `{"email": 1, "password": "x"}`, "invalid_field", `"email"`},
		{"/api/get_api_key", `{"email": "ann@example.com", "password": null}`, "missing_field", `"password"`},
		{"/api/hash_generator", `{"algorithm": "md5"}`, "missing_field", `"plaintext"`},
		{"/api/base64", `{"option": "encode"}`, "missing_field", `"text"`},
		{"/api/json_format", `{}`, "missing_field", `"text"`},
		{"/api/secure_encrypt", `{"text": "x"}`, "missing_field", `"password"`},
		{"/api/jwt_decoder", `{"token": " "}`, "missing_field", `"token"`},
		{"/api/hash_lookup", `{"hashes": null}`, "missing_field", `"hashes"`},
		{"/api/suggestion", `{}`, "missing_field", `"message"`},
		{"/api/entropy", `{"password": ["x"]}`, "invalid_field", `"password"`},
		{"/api/ip_info", `{"ip_string": true}`, "invalid_field", `"ip_string"`},
		{"/forgot-password/verify", `{"email": "ann@example.com", "code": "1", "revoke_api_keys": "maybe"}`, "invalid_field", `"revoke_api_keys"`},
	} {
		msg := e.post(tc.path, tc.body, "X-API-Key", key).wantError(400, tc.code)["error"].(string)
		if !strings.Contains(msg, tc.field) || strings.Contains(msg, "Request") {
			t.Errorf("%s %s: %q does not name %s as sent", tc.path, tc.body, msg, tc.field)
		}
	}
}

func TestBodyLimitAndContentType(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := `{"email":"` + strings.Repeat("a", 2<<20) + `"}`
	e.post("/api/get_api_key", big).wantError(413, "request_too_large")
	e.post("/api/get_api_key", `{}`, "Content-Type", "text/xml").wantError(415, "unsupported_media_type")
	// curl -d labels JSON as a form: it is still read as JSON.
	e.account("ann@example.com", store.PlanStarter)
	e.post("/api/get_api_key", `{"email":"ann@example.com","password":"`+testPassword+`"}`,
		"Content-Type", "application/x-www-form-urlencoded").want(200)
}
