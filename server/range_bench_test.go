package server_test

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"secutil/server"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

// BenchmarkRangeAPI is GET /range/{prefix} through the real router and
// middleware, with a key (cached after its first use), on a generated
// SHA-1 file of SECUTIL_BENCH_BREACH_LINES lines (default 200,000) grouped
// a thousand to a prefix, as the real corpus is, plain and padded. It
// reports p50, p99 and max per call.
func BenchmarkRangeAPI(b *testing.B) {
	lines := breachtest.BenchLines(b, 200_000)
	corpus := breachtest.Corpus{Kind: breach.KindSHA1, Lines: lines, PerPrefix: 1000}
	file := corpus.Open(b)
	e := newEnv(b, quietLogs, func(d *server.Deps) {
		d.Range = server.RangeAPI{SHA1: file}
		limits := server.DefaultLimits
		limits.Range = server.Rate{Burst: 1 << 30, Per: time.Hour}
		d.Limits = &limits
	})
	key := e.key("bench@example.com", "pro")
	paths := make([]string, 1024)
	for i := range paths {
		paths[i] = "/range/" + hex.EncodeToString(corpus.Digest(i * 7919 % lines))[:breach.PrefixLen]
	}
	for _, pad := range []bool{false, true} {
		b.Run("padded="+strconv.FormatBool(pad), func(b *testing.B) {
			lat := breachtest.NewLatencies()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, paths[i%len(paths)], nil)
				req.Header.Set("X-API-Key", key)
				if pad {
					req.Header.Set("Add-Padding", "true")
				}
				w := &countingWriter{header: http.Header{}}
				lat.Time(func() { e.h.ServeHTTP(w, req) })
				if w.status != http.StatusOK || w.bytes == 0 {
					b.Fatalf("status %d, %d bytes", w.status, w.bytes)
				}
				i++
			}
			lat.Report(b)
		})
	}
}

// countingWriter is a ResponseWriter that keeps only the status and the
// body's length, so a benchmark measures the handler, not a recorder
// growing a buffer.
type countingWriter struct {
	header http.Header
	status int
	bytes  int
}

func (w *countingWriter) Header() http.Header { return w.header }

func (w *countingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.bytes += len(p)
	return len(p), nil
}

// ReadFrom copies with pooled buffers, as net/http's own writer does.
func (w *countingWriter) ReadFrom(r io.Reader) (int64, error) {
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(io.Discard, r)
	w.bytes += int(n)
	return n, err
}
