package accesslog

import (
	"bytes"
	"context"
	"log/slog"
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
					if !Plain(req.method) || !Plain(req.path) {
						t.Fatalf("%q %q: not plain", req.method, req.path)
					}
					got := AppendLine(nil, format == "json", now, req.method, req.path, status, took)
					if string(got) != want.String() {
						t.Errorf("%s:\n got %s want %s", format, got, want.String())
					}
				}
			}
		}
	}
}

// TestPlainRefusesWhatSlogQuotes: a path slog would quote or escape
// is left to slog.
func TestPlainRefusesWhatSlogQuotes(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "/a b", "/a=b", `/a"b`, `/a\b`, "/a\nb", "/a\x7fb", "/é", "/a<b", "/a&b"} {
		if Plain(s) {
			t.Errorf("Plain(%q) = true", s)
		}
	}
}

// FuzzAppendLineIsSlogs: for any method and path Plain accepts, any time,
// status and duration, the line is slog's.
func FuzzAppendLineIsSlogs(f *testing.F) {
	f.Add("GET", "/api/v1/base64", int64(1_795_000_000_123_456_789), 200, 1.5, false)
	f.Add("POST", "/a b", int64(0), 404, 0.001, true)
	f.Fuzz(func(t *testing.T, method, path string, unixNano int64, status int, tookMS float64, asJSON bool) {
		if !Plain(method) || !Plain(path) {
			return
		}
		// What a server logs: a duration in milliseconds to the microsecond,
		// a time of this era.
		tookMS = float64(int64(tookMS*1000)%1e12) / 1000
		if tookMS < 0 {
			tookMS = -tookMS
		}
		now := time.Unix(0, unixNano%(1<<62)).In(time.FixedZone("", int(unixNano%(14*3600))))
		var want bytes.Buffer
		var h slog.Handler = slog.NewTextHandler(&want, nil)
		if asJSON {
			h = slog.NewJSONHandler(&want, nil)
		}
		rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
		rec.AddAttrs(slog.String("method", method), slog.String("path", path),
			slog.Int("status", status), slog.Float64("duration_ms", tookMS))
		if err := h.Handle(context.Background(), rec); err != nil {
			t.Skip(err) // slog refuses some times (years past 9999 in JSON)
		}
		if got := AppendLine(nil, asJSON, now, method, path, status, tookMS); string(got) != want.String() {
			t.Fatalf("\n got %s want %s", got, want.String())
		}
	})
}

// With the access log off, failures and slow requests are still logged;
// everything else is not.
func TestAlways(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status int
		took   time.Duration
		want   bool
	}{
		{200, time.Millisecond, false}, {404, 0, false}, {429, 999 * time.Millisecond, false}, {499, 0, false},
		{500, 0, true}, {503, time.Millisecond, true}, {200, Slow, true}, {201, 5 * time.Second, true},
	} {
		if got := Always(c.status, c.took); got != c.want {
			t.Errorf("Always(%d, %v) = %v, want %v", c.status, c.took, got, c.want)
		}
	}
}
