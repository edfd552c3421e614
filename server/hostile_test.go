package server_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/pbe"
)

// bodyless routes take no request body; whatever is sent is ignored.
var bodyless = map[string]bool{"/new_api_key": true, "/regenerate": true, "/user_info": true}

// bodyOptional routes answer no body with their defaults; any other body
// is read as every route's.
var bodyOptional = map[string]bool{"/generate_random_key": true, "/generate_password": true}

// credentialRoutes change keys by design; they are swept for status only.
var credentialRoutes = map[string]bool{"/get_api_key": true, "/new_api_key": true, "/regenerate": true}

// costlyEnvelope is a well-formed envelope naming argon2id costs of 4 GiB
// and 10 passes, far above what any secutil writes.
func costlyEnvelope() string {
	raw := []byte{pbe.Version1, pbe.KDFArgon2id}
	raw = binary.BigEndian.AppendUint32(raw, 4<<20) // KiB
	raw = binary.BigEndian.AppendUint32(raw, 10)
	raw = append(raw, 4)
	raw = append(raw, make([]byte, pbe.SaltSize+pbe.NonceSize+pbe.TagSize)...)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// cutShort is a body whose client stopped before its Content-Length.
type cutShort struct{ io.Reader }

func (c cutShort) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// TestHostileInputSweep sends every API route, under both scopes, bodies a
// hostile or careless client sends, through a trusted proxy that forwards
// garbage, and requires a clear JSON answer: a 4xx with no usage counted
// (or a 200 where the route ignores bodies), never a 5xx, never an answer
// over 1 MiB and never a hang.
func TestHostileInputSweep(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		d.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
		d.Limits = &server.Limits{PerIP: server.Rate{Burst: 1 << 20, Per: time.Hour}, PerClientAccount: server.Rate{Burst: 1 << 20, Per: time.Hour},
			PerAccount: server.Rate{Burst: 1 << 20, Per: time.Hour}, PublicHash: server.Rate{Burst: 1 << 20, Per: time.Hour}}
	})
	key := e.key("pro@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(context.Background(), "pro@example.com")
	long := strings.Repeat("A", 100_000)
	brackets := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	deepToken := "e30." + base64.RawURLEncoding.EncodeToString([]byte(`{"a":`+brackets+`}`)) + "."
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
		cutShortBody:       `{"text":"abc","option":"encode","password":"pw","hashes":"` + md5Password,
	}
	// Bodies valid in form but past a bound of the routes they aim at (the
	// findings of the hardening issue): those routes must refuse them with
	// the code given; every other route must still answer without a 5xx,
	// in bounded size and time.
	aimed := map[string]struct {
		body  string
		codes map[string]string // path → error code
	}{
		"deep JSON": {`{"text":"` + brackets + `"}`,
			map[string]string{"/json_format": "too_deeply_nested", "/json_minify": "too_deeply_nested"}},
		"deep token": {`{"token":"` + deepToken + `"}`,
			map[string]string{"/jwt_decoder": "too_deeply_nested"}},
		"wide JSON": {`{"text":"` + strings.Repeat("[", 500) + strings.Repeat("1,", 20_000) + "1" + strings.Repeat("]", 500) + `"}`,
			map[string]string{"/json_format": "output_too_large"}},
		"costly envelope": {`{"text":"` + costlyEnvelope() + `","password":"pw"}`,
			map[string]string{"/secure_decrypt": "invalid_input"}},
		"over-long email": {`{"email":"` + strings.Repeat("a", 300) + `@example.com","password":"` + testPassword + `"}`,
			map[string]string{"/get_api_key": "invalid_request"}},
	}
	for _, path := range server.APIPaths() {
		for _, scope := range []string{"/api", "/api/v1"} {
			for name, body := range bodies {
				before := e.usage(a.ID)
				var rd io.Reader = strings.NewReader(body)
				if name == cutShortBody {
					rd = cutShort{rd}
				}
				res := sendWithin(t, e, scope+path, rd, key)
				if res.status >= 500 {
					t.Errorf("%s%s with %s: %d %.200s", scope, path, name, res.status, res.body)
					continue
				}
				if len(res.body) > 1<<20 {
					t.Errorf("%s%s with %s: a %d-byte answer", scope, path, name, len(res.body))
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
				if bodyless[path] || bodyOptional[path] && name == "no body" {
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
	for _, path := range server.APIPaths() {
		for name, tc := range aimed {
			before := e.usage(a.ID)
			res := sendWithin(t, e, "/api"+path, strings.NewReader(tc.body), key)
			if res.status >= 500 || len(res.body) > 1<<20 {
				t.Errorf("/api%s with %s: %d, %d bytes", path, name, res.status, len(res.body))
				continue
			}
			if path == "/new_api_key" && res.status == 200 {
				key = res.json()["api_key"].(string)
			}
			code, isAimed := tc.codes[path]
			if !isAimed {
				continue
			}
			if res.status != http.StatusBadRequest || !strings.Contains(string(res.body), `"code":"`+code+`"`) {
				t.Errorf("/api%s with %s: %d %.200s, want 400 %s", path, name, res.status, res.body, code)
			}
			if after := e.usage(a.ID); after != before {
				t.Errorf("/api%s with %s: usage went from %d to %d on a refused call", path, name, before, after)
			}
		}
	}

}

// cutShortBody names the sweep's body that ends before its Content-Length.
const cutShortBody = "cut short"

func sendWithin(t *testing.T, e *env, path string, body io.Reader, key string) response {
	t.Helper()
	done := make(chan response, 1)
	go func() {
		req := httptest.NewRequest(http.MethodPost, path, body)
		req.Header.Set("X-API-Key", key)
		req.Header.Set("X-Forwarded-For", "garbage, , 999.1.1.1, [::1]:80, 2001:db8::1%eth0")
		req.Header.Set("X-Forwarded-Proto", "https, gopher")
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
