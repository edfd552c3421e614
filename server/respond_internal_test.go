package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"secutil/store"
)

// TestDatabaseOutageIs503WithRetryAfter: an operation the store gave up on
// after its retry budget reaches the client as 503 with Retry-After, never
// as a 500, and adds no error line to the log (the store logs the outage
// once, however many calls it refuses).
func TestDatabaseOutageIs503WithRetryAfter(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := &Server{Deps: Deps{Logger: slog.New(slog.NewTextHandler(&log, nil))}}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/api/v1/base64", nil)
	s.writeError(w, r, fmt.Errorf("committing usage: %w", store.ErrUnavailable))

	if w.Code != 503 {
		t.Errorf("status %d, want 503", w.Code)
	}
	if got, want := w.Header().Get("Retry-After"), fmt.Sprint(int(store.RetryAfter.Seconds())); got != want {
		t.Errorf("Retry-After %q, want %q", got, want)
	}
	if !strings.Contains(w.Body.String(), `"code":"database_unavailable"`) {
		t.Errorf("body %s", w.Body)
	}
	if log.Len() != 0 {
		t.Errorf("logged %q", log.String())
	}
}
