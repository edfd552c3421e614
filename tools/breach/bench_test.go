package breach_test

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"secutil/internal/procstatus"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

// reportMemory adds the process's resident memory and the file's size to
// the benchmark's line: the file is searched in place, so the first must
// not grow with the second.
func reportMemory(b *testing.B, f *breach.File) {
	b.ReportMetric(procstatus.MiB(procstatus.Resident), "RSS-MiB")
	b.ReportMetric(float64(f.Size())/(1<<20), "file-MiB")
}

// BenchmarkCount looks up rotating digests (half present, half absent) in a
// generated SHA-1 file.
func BenchmarkCount(b *testing.B) {
	c := breachtest.Corpus{Kind: breach.KindSHA1, Lines: breachtest.BenchLines(b, 200_000)}
	f := c.Open(b)
	probes := make([][]byte, 1024)
	for i := range probes {
		probes[i] = c.Digest(i * 7919 % c.Lines)
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
	reportMemory(b, f)
}

// BenchmarkAppendRange builds range answers (the body of GET /range) for
// rotating prefixes, plain and padded, from a file whose lines are spread
// evenly over the hash space ("spread": few lines a prefix at these sizes)
// and from one grouped a thousand to a prefix as in the real corpus
// ("dense"). It reports p50, p99 and max per answer.
func BenchmarkAppendRange(b *testing.B) {
	n := breachtest.BenchLines(b, 200_000)
	for _, layout := range []struct {
		name      string
		perPrefix int
	}{{"spread", 0}, {"dense", 1000}} {
		c := breachtest.Corpus{Kind: breach.KindSHA1, Lines: n, PerPrefix: layout.perPrefix}
		f := c.Open(b)
		prefixes := make([]string, 1024)
		for i := range prefixes {
			prefixes[i] = hex.EncodeToString(c.Digest(i * 7919 % c.Lines))[:breach.PrefixLen]
		}
		for _, pad := range []bool{false, true} {
			b.Run(layout.name+"/padded="+strconv.FormatBool(pad), func(b *testing.B) {
				buf := make([]byte, 0, 64<<10)
				var err error
				if buf, err = f.AppendRange(buf[:0], prefixes[0], pad); err != nil || len(buf) == 0 {
					b.Fatalf("first answer: %d bytes, err %v", len(buf), err)
				}
				lat := breachtest.NewLatencies()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					lat.Time(func() { buf, err = f.AppendRange(buf[:0], prefixes[i%len(prefixes)], pad) })
					if err != nil {
						b.Fatal(err)
					}
					i++
				}
				lat.Report(b)
				reportMemory(b, f)
			})
		}
	}
}

// BenchmarkCountMany looks up batches (half present, half absent) in a
// generated NTLM file of SECUTIL_BENCH_BREACH_LINES lines (default 2,000,000,
// 72 MB) in the page cache: "dense" has a digest every 10 lines, so the
// batch reads the file once, front to back; "sparse" one every 2,000 (as
// 100,000 accounts against 200,000,000 lines), so it searches for each.
// It reports the time a digest.
func BenchmarkCountMany(b *testing.B) {
	lines := breachtest.BenchLines(b, 2_000_000)
	path := filepath.Join(b.TempDir(), "ntlm.txt")
	if _, _, err := writeUniformFile(path, float64(lines)); err != nil {
		b.Fatal(err)
	}
	f, err := breach.OpenFile(path, breach.KindNTLM)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	for _, c := range []struct {
		name  string
		every int
	}{{"dense", 10}, {"sparse", 2_000}} {
		b.Run(c.name, func(b *testing.B) {
			n := max(1, lines/c.every)
			digests, err := breachtest.Batch(path, breach.KindNTLM, n, n/2, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.CountMany(context.Background(), digests, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/digest")
			reportMemory(b, f)
		})
	}
}

// writeUniformFile writes a uniform NTLM file of about lines lines to path
// and syncs it, so that its writing back does not overlap the measurement.
func writeUniformFile(path string, lines float64) (n, size int64, err error) {
	out, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	if n, size, err = breachtest.WriteUniform(out, lines, breach.KindNTLM, 1); err == nil {
		err = out.Sync()
	}
	return n, size, errors.Join(err, out.Close())
}
