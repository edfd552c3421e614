package store_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"secutil/store"
)

// BenchmarkCommitUsage is the meter's cost per call under concurrency, as
// 32 concurrent callers on two cores put it: the group commit's share of a
// metered call. SQLite always; PostgreSQL with SECUTIL_TEST_POSTGRES.
func BenchmarkCommitUsage(b *testing.B) {
	eachBenchBackend(b, func(b *testing.B, s *store.Store, charge store.Charge) {
		b.SetParallelism(16)
		b.ResetTimer()
		cpu := processCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.CommitUsage(context.Background(), charge); err != nil {
					b.Error(err)
					return
				}
			}
		})
		// Wall time per call is bound by the gather window; the CPU it
		// takes, both cores counted, is the cost to a server.
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkCommitUsageAlone is one call at a time, each its own batch: the
// meter's fixed cost per transaction, which the batches of a busy server
// share between their calls.
func BenchmarkCommitUsageAlone(b *testing.B) {
	eachBenchBackend(b, func(b *testing.B, s *store.Store, charge store.Charge) {
		for b.Loop() {
			if _, err := s.CommitUsage(context.Background(), charge); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// eachBenchBackend runs bench on SQLite and, with SECUTIL_TEST_POSTGRES, on
// PostgreSQL, with a fresh store and the charge of a call by one of its
// accounts.
func eachBenchBackend(b *testing.B, bench func(*testing.B, *store.Store, store.Charge)) {
	for _, backend := range []string{store.SQLite, store.Postgres} {
		b.Run(backend, func(b *testing.B) {
			s := newTestDB(b, backend).open(b)
			id, err := s.CreateAccount(context.Background(), store.NewAccount{Email: "bench@example.com", PasswordHash: "x", Plan: store.PlanPro, Verified: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			bench(b, s, store.Charge{AccountID: id, KeyID: 1})
		})
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
