package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/server"
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

// loopbackClient is an HTTP client whose connections come from ip, an
// address of 127.0.0.0/8 (Linux answers on all of it): a client of its
// own to the server's per-client bounds.
func loopbackClient(ip string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext}}
}

// slowBody starts a POST to path from ip that declares a body of declared
// bytes, sends sent of them at once and then one byte every trickle until
// the server answers; the answer's status, or 0 when none came in 10 s,
// arrives on the channel.
func slowBody(t *testing.T, srv *httptest.Server, ip, path, key string, declared int, sent string, trickle time.Duration) <-chan int {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	conn, err := dialer.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	head := "POST " + path + " HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() + "\r\nContent-Type: application/json\r\n" +
		"X-API-Key: " + key + "\r\nContent-Length: " + strconv.Itoa(declared) + "\r\n\r\n"
	if _, err := conn.Write([]byte(head + sent)); err != nil {
		t.Fatal(err)
	}
	answered := make(chan struct{})
	go func() {
		for {
			select {
			case <-answered:
				return
			case <-time.After(trickle):
				if _, err := conn.Write([]byte("A")); err != nil {
					return
				}
			}
		}
	}()
	status := make(chan int, 1)
	go func() {
		defer close(answered)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			status <- 0
			return
		}
		res.Body.Close()
		status <- res.StatusCode
	}()
	return status
}

// TestSlowBodiesDoNotStarveOthers is the attack of a free account on the
// budget of body bytes: 66 connections from one address declare bodies
// of 1 MiB to /api/v1/base64 and send a byte every half second. Another
// client's login, registration and utility call go through meanwhile,
// and each slow body is cut with a 400 that says why soon after its grace
// of 2 seconds, uncounted.
func TestSlowBodiesDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	attackerKey := e.key("free@example.com", store.PlanStarter)
	victimKey := e.key("ann@example.com", store.PlanPro)
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close) // after the slow bodies' connections are closed
	start := time.Now()
	var attacks []<-chan int
	for range 66 {
		attacks = append(attacks, slowBody(t, srv, "127.0.0.2", "/api/v1/base64", attackerKey, 1<<20, `{"text":"`, 500*time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond) // every slow body is being read
	victim := loopbackClient("127.0.0.3")
	for _, call := range []struct {
		path, key, body string
		want            int
	}{
		{"/login", "", `{"email":"ann@example.com","password":"` + testPassword + `"}`, 200},
		{"/register", "", `{"email":"bob@example.com","password":"` + testPassword + `"}`, 200},
		{"/api/v1/base64", victimKey, `{"text":"hi","option":"encode"}`, 200},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+call.path, strings.NewReader(call.body))
		req.Header.Set("Content-Type", "application/json")
		if call.key != "" {
			req.Header.Set("X-API-Key", call.key)
		}
		res, err := victim.Do(req)
		if err != nil {
			t.Fatalf("%s during the attack: %v", call.path, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != call.want {
			t.Errorf("%s during the attack: %d %s, want %d", call.path, res.StatusCode, body, call.want)
		}
	}
	for i, attack := range attacks {
		if status := <-attack; status != http.StatusBadRequest {
			t.Fatalf("slow body %d: status %d after %v, want 400 soon after the grace", i, status, time.Since(start).Round(time.Millisecond))
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the slow bodies were cut after %v, want soon after their 2 s grace", took)
	}
	if used := e.usage(e.accountOf("free@example.com").ID); used != 0 {
		t.Errorf("the attacker's account was charged %d calls", used)
	}
}

// TestFormBodyCutShortIsABadRequest: a form of the dashboard or the
// Account page whose body ends before its Content-Length is the client's
// error, 400, from a browser as from a script; it used to be 503 "busy",
// because the page shown with the error was read from the database after
// the client had hung up.
func TestFormBodyCutShortIsABadRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("ann@example.com", store.PlanPro)
	session := e.login("ann@example.com")
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	for _, path := range []string{"/dashboard/keys", "/dashboard/keys/rotate", "/dashboard/keys/revoke", "/account/password", "/account/delete", "/switch_tier"} {
		for _, accept := range []string{"text/html", "application/json"} {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			req := "POST " + path + " HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() + "\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
				"Accept: " + accept + "\r\nCookie: auth_session=" + session + "\r\nContent-Length: 100\r\n\r\nname=ci"
			if _, err := conn.Write([]byte(req)); err != nil {
				t.Fatal(err)
			}
			conn.(*net.TCPConn).CloseWrite()
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("%s (%s): %v", path, accept, err)
			}
			body, _ := io.ReadAll(res.Body)
			conn.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("%s (%s): %d %.200s for a body cut short, want 400", path, accept, res.StatusCode, body)
			}
		}
	}
}

// TestOneClientHoldsAShareOfTheBodies: bodies that arrive fast and then
// stall (the pace does not cut them within their grace) hold their bytes;
// one account's, from two addresses, hold at most its share of the budget
// and the rest are refused 503 busy, so another client's body still fits.
func TestOneClientHoldsAShareOfTheBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		d.Bodies = server.BodyLimits{Budget: 256 << 10, Share: 64 << 10, Grace: time.Minute}
	})
	attackerKey := e.key("free@example.com", store.PlanStarter)
	victimKey := e.key("ann@example.com", store.PlanPro)
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close) // after the stalled bodies' connections are closed
	sent := `{"text":"` + strings.Repeat("a", 30<<10)
	var attacks []<-chan int
	for i := range 8 {
		ip := []string{"127.0.0.2", "127.0.0.4"}[i%2]
		attacks = append(attacks, slowBody(t, srv, ip, "/api/v1/base64", attackerKey, 60<<10, sent, time.Minute))
	}
	busy := 0
	time.Sleep(2 * time.Second) // for the answers to the bodies past the share
	for _, attack := range attacks {
		select {
		case status := <-attack:
			if status != http.StatusServiceUnavailable {
				t.Errorf("a stalled body answered %d, want 503 busy or no answer yet", status)
			}
			busy++
		default:
		}
	}
	if busy < 6 {
		t.Errorf("%d of 8 stalled bodies of 30 KiB refused, want at least 6: the account's share is 64 KiB", busy)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/base64", strings.NewReader(`{"text":"`+strings.Repeat("b", 50<<10)+`","option":"encode"}`))
	req.Header.Set("X-API-Key", victimKey)
	res, err := loopbackClient("127.0.0.3").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("another client's 50 KiB body: %d %.200s, want 200", res.StatusCode, body)
	}
}
