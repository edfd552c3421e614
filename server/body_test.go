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
