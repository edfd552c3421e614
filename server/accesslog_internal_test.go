package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestAccessLineIsSlogs: the hand-formatted access log line is the line
// slog's handlers write, byte for byte, so a log reader sees one format
// whichever path wrote a line.
func TestAccessLineIsSlogs(t *testing.T) {
	t.Parallel()
	berlin := time.FixedZone("CET", 3600)
	times := []time.Time{
		time.Date(2026, 11, 23, 23, 5, 7, 123456789, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),                // no fraction
		time.Date(2026, 6, 30, 12, 0, 0, 9_000_000, berlin),        // leading zero, an offset
		time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.UTC), // rounds down, not up
		time.Date(2026, 12, 31, 23, 59, 59, 120_000_000, time.UTC), // the same second again
		time.Date(2026, 12, 31, 23, 59, 59, 120_000_000, berlin),   // the same second elsewhere
		time.Date(2026, 12, 31, 23, 59, 59, 100, time.UTC),
	}
	requests := []struct{ method, path string }{
		{"POST", "/api/v1/base64"}, {"GET", "/"}, {"GET", "/static/app.css"}, {"PATCH", "/api/keys/{id}"},
	}
	durations := []float64{0, 0.001, 0.123, 1.5, 12345.678, 1234567.891}
	for _, format := range []string{"text", "json"} {
		for _, now := range times {
			for _, req := range requests {
				for i, took := range durations {
					status := []int{200, 404, 429, 500, 201, 301}[i]
					var want bytes.Buffer
					var h slog.Handler = slog.NewTextHandler(&want, nil)
					if format == "json" {
						h = slog.NewJSONHandler(&want, nil)
					}
					rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
					rec.AddAttrs(slog.String("method", req.method), slog.String("path", req.path),
						slog.Int("status", status), slog.Float64("duration_ms", took))
					if err := h.Handle(context.Background(), rec); err != nil {
						t.Fatal(err)
					}
					if !plainLogText(req.method) || !plainLogText(req.path) {
						t.Fatalf("%q %q: not plain", req.method, req.path)
					}
					got := appendAccessLine(nil, format == "json", now, req.method, req.path, status, took)
					if string(got) != want.String() {
						t.Errorf("%s:\n got %s want %s", format, got, want.String())
					}
				}
			}
		}
	}
}

// TestPlainLogTextRefusesWhatSlogQuotes: a path slog would quote or escape
// is left to slog.
func TestPlainLogTextRefusesWhatSlogQuotes(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "/a b", "/a=b", `/a"b`, `/a\b`, "/a\nb", "/a\x7fb", "/é", "/a<b", "/a&b"} {
		if plainLogText(s) {
			t.Errorf("plainLogText(%q) = true", s)
		}
	}
}

// TestAccessLogWritesWholeLines: with AccessLog set, each request is one
// Write of one whole line, and a path slog would quote goes through Logger.
func TestAccessLogWritesWholeLines(t *testing.T) {
	t.Parallel()
	var direct, viaSlog writeRecorder
	s := &Server{Deps: Deps{AccessLog: &direct, LogFormat: "text", Logger: slog.New(slog.NewTextHandler(&viaSlog, nil))}}
	for _, path := range []string{"/api/v1/base64", "/a%20b"} {
		s.accessLog(httptest.NewRequest(http.MethodPost, path, nil), http.StatusOK, time.Now())
	}
	if len(direct) != 1 || bytes.Count(direct[0], []byte("\n")) != 1 || !bytes.HasSuffix(direct[0], []byte("\n")) ||
		!bytes.Contains(direct[0], []byte(" level=INFO msg=request method=POST path=/api/v1/base64 status=200 duration_ms=")) {
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
