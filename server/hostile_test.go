package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

// bodyless routes take no request body; whatever is sent is ignored.
var bodyless = map[string]bool{"/new_api_key": true, "/regenerate": true, "/user_info": true, "/generate_random_key": true}

// credentialRoutes change keys by design; they are swept for status only.
var credentialRoutes = map[string]bool{"/get_api_key": true, "/new_api_key": true, "/regenerate": true}

// TestHostileInputSweep sends every API route, under both scopes, bodies a
// hostile or careless client sends, and requires a clear JSON answer: a 4xx
// with no usage counted (or a 200 where the route ignores bodies), never a
// 5xx and never a hang.
func TestHostileInputSweep(t *testing.T) {
	e := newEnv(t)
	key := e.key("pro@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(context.Background(), "pro@example.com")
	long := strings.Repeat("A", 100_000)
	bodies := map[string]string{
		"no body":          "",
		"null":             "null",
		"array":            "[1,2,3]",
		"string":           `"text"`,
		"number":           "42",
		"wrong types":      `{"password":5,"text":true,"hashes":[1],"algorithm":{},"hash":1.5,"token":null,"ip_string":7,"option":[],"message":false,"email":3,"plaintext":{}}`,
		"invalid utf-8":    "{\"password\":\"\xff\xfe\",\"text\":\"\xc3\x28\",\"message\":\"\xed\xa0\x80\"}",
		"long strings":     `{"password":"` + long + `","text":"` + long + `","hashes":"` + long + `","algorithm":"` + long + `","hash":"` + long + `","token":"` + long + `","ip_string":"` + long + `","option":"` + long + `","message":"` + long + `","plaintext":"` + long + `","email":"` + long + `"}`,
		"unknown only":     `{"surprise":1}`,
		"deeply nested":    strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000),
		"truncated":        `{"password":"abc`,
		"trailing garbage": `{"password":"abc"} {}`,
		"10 MB":            `{"text":"` + strings.Repeat("x", 10<<20) + `"}`,
	}
	for _, path := range server.APIPaths() {
		for _, scope := range []string{"/api", "/api/v1"} {
			for name, body := range bodies {
				before := e.usage(a.ID)
				res := sendWithin(t, e, scope+path, body, key)
				if res.status >= 500 {
					t.Errorf("%s%s with %s: %d %s", scope, path, name, res.status, res.body)
					continue
				}
				if ct := res.header.Get("Content-Type"); res.status != 200 && !strings.HasPrefix(ct, "application/json") {
					t.Errorf("%s%s with %s: %d with Content-Type %q", scope, path, name, res.status, ct)
				}
				if credentialRoutes[path] {
					if path == "/new_api_key" && res.status == 200 {
						key = res.json()["api_key"].(string)
					}
					continue
				}
				if bodyless[path] {
					continue
				}
				if res.status < 400 {
					t.Errorf("%s%s with %s: %d, want a 4xx: %.200s", scope, path, name, res.status, res.body)
				}
				if after := e.usage(a.ID); after != before {
					t.Errorf("%s%s with %s: usage went from %d to %d on a refused call", scope, path, name, before, after)
				}
			}
		}
	}
}

func sendWithin(t *testing.T, e *env, path, body, key string) response {
	t.Helper()
	done := make(chan response, 1)
	go func() {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		done <- response{t: t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	}()
	select {
	case res := <-done:
		return res
	case <-time.After(10 * time.Second):
		t.Fatalf("%s hung", path)
		return response{}
	}
}
