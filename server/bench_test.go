package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"secutil/store"
)

// BenchmarkMeteredBase64 is the in-process cost of one metered call —
// middleware, key authentication (cached), quota check, the tool, and the
// durable group-committed count — without the network.
func BenchmarkMeteredBase64(b *testing.B) {
	e := newEnv(b, quietLogs)
	key := e.key("bench@example.com", store.PlanPro)
	b.ReportAllocs()
	b.SetParallelism(16) // 32 concurrent callers on 2 cores, as in the load comparison
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

// BenchmarkBareBase64 is the same JSON work with no service around it.
func BenchmarkBareBase64(b *testing.B) {
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(loadBody))
			rec := httptest.NewRecorder()
			bareBase64(rec, req)
		}
	})
}
