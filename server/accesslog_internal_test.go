package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestAccessLogOffKeepsFailuresAndSlowRequests: with AccessLogOff, a
// request that succeeded in good time writes no line, whichever way it
// would have been written; a 5xx or a slow one still does.
func TestAccessLogOffKeepsFailuresAndSlowRequests(t *testing.T) {
	t.Parallel()
	var direct, viaSlog writeRecorder
	s := &Server{Deps: Deps{AccessLog: &direct, AccessLogOff: true, LogFormat: "text", Logger: slog.New(slog.NewTextHandler(&viaSlog, nil))}}
	for _, c := range []struct {
		path   string
		status int
		took   time.Duration
	}{
		{"/api/v1/base64", http.StatusOK, time.Millisecond},
		{"/a%20b", http.StatusOK, time.Millisecond},
		{"/nothing", http.StatusNotFound, time.Millisecond},
		{"/api/v1/base64", http.StatusServiceUnavailable, time.Millisecond},
		{"/api/v1/hash_lookup", http.StatusOK, 2 * time.Second},
		{"/a%20b", http.StatusInternalServerError, time.Millisecond},
	} {
		s.accessLog(httptest.NewRequest(http.MethodPost, c.path, nil), c.status, time.Now(), c.took)
	}
	if len(direct) != 2 || !bytes.Contains(direct[0], []byte("path=/api/v1/base64 status=503")) || !bytes.Contains(direct[1], []byte("path=/api/v1/hash_lookup status=200 duration_ms=2000")) {
		t.Errorf("written directly: %q; want the 503 and the slow request", direct)
	}
	if len(viaSlog) != 1 || !bytes.Contains(viaSlog[0], []byte(`path="/a b" status=500`)) {
		t.Errorf("written through slog: %q; want the 500 alone", viaSlog)
	}
}
