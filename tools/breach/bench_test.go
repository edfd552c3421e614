package breach_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"secutil/tools/breach"
)

// splitmix64 gives the benchmark's deterministic pseudo-random hash bytes.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// benchHash is the i-th of n sorted, distinct SHA-1-sized hashes: the first
// 8 bytes step evenly through the key space, the rest are pseudo-random.
func benchHash(i, n uint64) []byte {
	step := ^uint64(0) / n
	d := make([]byte, 20)
	binary.BigEndian.PutUint64(d, i*step+splitmix64(i)%step)
	binary.BigEndian.PutUint64(d[8:], splitmix64(i+n))
	binary.BigEndian.PutUint32(d[16:], uint32(splitmix64(i+2*n)))
	return d
}

func writeBenchFile(b *testing.B, n uint64) string {
	path := filepath.Join(b.TempDir(), "pwned-bench.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, "%s:%d\r\n", strings.ToUpper(hex.EncodeToString(benchHash(i, n))), splitmix64(i)%100000+1)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// vmRSSMiB is the process's resident memory now, in MiB (0 without /proc).
func vmRSSMiB() float64 {
	data, _ := os.ReadFile("/proc/self/status")
	for l := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kib, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kib / 1024
		}
	}
	return 0
}

// BenchmarkCount looks up random hashes (half present, half absent) in a
// generated file of 200,000 lines, or SECUTIL_BENCH_BREACH_LINES lines.
func BenchmarkCount(b *testing.B) {
	n := uint64(200_000)
	if s := os.Getenv("SECUTIL_BENCH_BREACH_LINES"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v == 0 {
			b.Fatalf("SECUTIL_BENCH_BREACH_LINES=%q: want a positive integer", s)
		}
		n = v
	}
	path := writeBenchFile(b, n)
	st, _ := os.Stat(path)
	f, err := breach.OpenFile(path, breach.KindSHA1)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	probes := make([][]byte, 1024)
	for i := range probes {
		probes[i] = benchHash(splitmix64(uint64(i))%n, n)
		if i%2 == 1 {
			probes[i][19] ^= 0xFF // absent (collides with a real line with negligible probability)
		}
	}
	if _, found, err := f.Count(probes[0]); err != nil || !found {
		b.Fatalf("first lookup: found=%v err=%v", found, err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, _, err := f.Count(probes[i%len(probes)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	// The file is searched in place: resident memory must not grow with it.
	b.ReportMetric(vmRSSMiB(), "RSS-MiB")
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
}
