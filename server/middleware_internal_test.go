package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestAccessLogWritesWholeLines: with AccessLog set, each request is one
// Write of one whole line, and a path slog would quote goes through Logger.
func TestAccessLogWritesWholeLines(t *testing.T) {
	t.Parallel()
	var direct, viaSlog writeRecorder
	s := &Server{Deps: Deps{AccessLog: &direct, LogFormat: "text", Logger: slog.New(slog.NewTextHandler(&viaSlog, nil))}}
	for _, path := range []string{"/api/v1/base64", "/a%20b"} {
		s.accessLog(httptest.NewRequest(http.MethodPost, path, nil), http.StatusOK, time.Now(), 1500*time.Microsecond)
	}
	if len(direct) != 1 || bytes.Count(direct[0], []byte("\n")) != 1 || !bytes.HasSuffix(direct[0], []byte("\n")) ||
		!bytes.Contains(direct[0], []byte(" level=INFO msg=request method=POST path=/api/v1/base64 status=200 duration_ms=1.5\n")) {
		t.Errorf("written directly: %q", direct)
	}
	if len(viaSlog) != 1 || !bytes.Contains(viaSlog[0], []byte(`path="/a b"`)) {
		t.Errorf("written through slog: %q", viaSlog)
	}
}

// writeRecorder keeps each Write apart.
type writeRecorder [][]byte

func (w *writeRecorder) Write(p []byte) (int, error) {
	*w = append(*w, bytes.Clone(p))
	return len(p), nil
}
