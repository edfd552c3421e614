package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/store"
)

// loadBody is the request of the benchmark: a small base64 encode, the body
// of the load comparison (load_test.go at the top of the module, which
// measures against a bare server doing the same work, testdata/loadbare).
const loadBody = `{"text":"The quick brown fox jumps over the lazy dog","option":"encode"}`

// BenchmarkMeteredBase64 is the in-process cost of one metered call —
// middleware, key authentication (cached), quota check, the tool, and the
// durable group-committed count — without the network.
func BenchmarkMeteredBase64(b *testing.B) {
	e := newEnv(b, quietLogs)
	key := e.key("bench@example.com", store.PlanPro)
	b.ReportAllocs()
	b.SetParallelism(16) // 32 concurrent callers on 2 cores, as the load comparison's 32 connections
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/base64", strings.NewReader(loadBody))
			req.Header.Set("X-API-Key", key)
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
}

// reportCPU reports the CPU time per operation, both cores counted, when
// the function it returns is called: the wall time per operation of
// concurrent callers says little about what each costs a server.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() { b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op") }
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
