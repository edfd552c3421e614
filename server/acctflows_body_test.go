package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// countingReader counts the bytes a handler read of a body.
type countingReader struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// TestAccountBodiesAreSmall: a 1 MiB body on an account route is a 413
// after at most its 8 KiB limit was read, with or without a
// Content-Length; a normal login still fits.
func TestAccountBodiesAreSmall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := `{"email":"a@example.com","password":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, path := range []string{"/login", "/register", "/setup", "/register/verify", "/forgot-password", "/forgot-password/verify", "/api/v1/get_api_key"} {
		for _, chunked := range []bool{false, true} {
			body := &countingReader{r: strings.NewReader(big)}
			req := httptest.NewRequest(http.MethodPost, path, body)
			req.Header.Set("Content-Type", "application/json")
			if chunked {
				req.ContentLength = -1
			}
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			res := response{t: t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			if msg := res.wantError(413, "request_too_large")["error"].(string); !strings.Contains(msg, "8192 bytes") {
				t.Errorf("%s: %q", path, msg)
			}
			if read := body.read.Load(); read > 16<<10 {
				t.Errorf("%s (chunked %v): read %d bytes of a 1 MiB body", path, chunked, read)
			}
		}
	}
	e.account("small@example.com", "starter")
	e.login("small@example.com")
}
