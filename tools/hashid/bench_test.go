package hashid

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkIdentify measures Identify on the example of every hashcat mode
// and every real-tool hash, one after the other. Besides the mean (ns/op) it
// reports the median and 90th percentile time per format (ns/median, ns/p90):
// each string is timed over many calls, and the median is taken over strings.
func BenchmarkIdentify(b *testing.B) {
	inputs := FixtureExamples(b)
	perInput := make([]time.Duration, len(inputs))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := i % len(inputs)
		start := time.Now()
		Identify(inputs[k])
		perInput[k] += time.Since(start)
	}
	rounds := float64(b.N) / float64(len(inputs))
	if rounds < 1 {
		return
	}
	ns := make([]float64, len(inputs))
	for k, d := range perInput {
		ns[k] = float64(d.Nanoseconds()) / rounds
	}
	slices.Sort(ns)
	b.ReportMetric(ns[len(ns)/2], "ns/median")
	b.ReportMetric(ns[len(ns)*9/10], "ns/p90")
}

// BenchmarkIdentifyBatch measures the worst 500-hash batch: 500 distinct
// strings of every format (as many shapes as there are formats), through
// Tokens on the text of the dump, then IdentifyBatch.
func BenchmarkIdentifyBatch(b *testing.B) {
	inputs := FixtureExamples(b)
	var dump []string
	for i := 0; len(dump) < 500; i++ {
		if s := inputs[i%len(inputs)]; len(s) < 1000 {
			dump = append(dump, s+strings.Repeat("0", i/len(inputs))) // distinct strings
		}
	}
	text := strings.Join(dump, "\n")
	b.ReportAllocs()
	for b.Loop() {
		IdentifyBatch(Tokens(text))
	}
}

// BenchmarkIdentifyBatchDump measures a 500-hash batch as dumps usually are:
// one shape (500 distinct 32-hex-digit hashes).
func BenchmarkIdentifyBatchDump(b *testing.B) {
	var dump []string
	for i := range 500 {
		dump = append(dump, fmt.Sprintf("%016x%016x", uint64(i)*0x9e3779b97f4a7c15, uint64(i)*0xc2b2ae3d27d4eb4f))
	}
	text := strings.Join(dump, "\n")
	b.ReportAllocs()
	for b.Loop() {
		IdentifyBatch(Tokens(text))
	}
}
