// Package breachtest writes synthetic Pwned Passwords files for tests and
// benchmarks: sorted, distinct HASH:COUNT lines with CRLF ends, as the
// real download has, of any size and without storing them; and records
// benchmark latencies for their percentiles.
package breachtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"secutil/tools/breach"
)

// Corpus describes a generated file. Line i is the same on every run.
type Corpus struct {
	Kind  breach.Kind
	Lines int
	// PerPrefix, when set, groups the lines into runs of PerPrefix hashes
	// sharing a 5-hex prefix (the real SHA-1 corpus has about a thousand
	// per prefix), spread evenly over the prefixes; it needs Lines/PerPrefix
	// to be at most 2^20. Zero spreads the lines evenly over the whole
	// hash space.
	PerPrefix int
}

// splitmix64 gives the deterministic pseudo-random bits of the hashes.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// Digest is line i's hash. Its first 8 bytes increase strictly with i, so
// the lines are sorted and distinct; the rest is pseudo-random.
func (c Corpus) Digest(i int) []byte {
	d := make([]byte, 20)
	binary.BigEndian.PutUint64(d, c.top(uint64(i)))
	binary.BigEndian.PutUint64(d[8:], splitmix64(uint64(i)+uint64(c.Lines)))
	binary.BigEndian.PutUint32(d[16:], uint32(splitmix64(uint64(i)+2*uint64(c.Lines))))
	return d[:c.Kind.DigestLen()]
}

// Count is line i's count, from 1 to 100,000.
func (c Corpus) Count(i int) int64 { return int64(splitmix64(uint64(i))%100_000) + 1 }

// top is the first 64 bits of line i's hash: a point in its own stratum of
// the space (or, with PerPrefix, of its prefix's space).
func (c Corpus) top(i uint64) uint64 {
	n := uint64(c.Lines)
	if c.PerPrefix == 0 {
		step := ^uint64(0) / n
		return i*step + splitmix64(i)%step
	}
	per := uint64(c.PerPrefix)
	groups := (n + per - 1) / per
	const lowBits = 64 - 4*breach.PrefixLen
	prefix := (i / per) * ((1 << (4 * breach.PrefixLen)) / groups)
	step := (uint64(1) << lowBits) / per
	return prefix<<lowBits | ((i%per)*step + splitmix64(i)%step)
}

// Open writes the corpus into a temporary directory of tb and opens it.
func (c Corpus) Open(tb testing.TB) *breach.File {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "pwned-"+c.Kind.String()+".txt")
	if err := c.Write(path); err != nil {
		tb.Fatal(err)
	}
	f, err := breach.OpenFile(path, c.Kind)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// BenchLines is the size of benchmark files: SECUTIL_BENCH_BREACH_LINES,
// or def when it is not set.
func BenchLines(b *testing.B, def int) int {
	s := os.Getenv("SECUTIL_BENCH_BREACH_LINES")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("SECUTIL_BENCH_BREACH_LINES=%q: want a positive integer", s)
	}
	return n
}

// Write writes the corpus to path.
func (c Corpus) Write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for i := range c.Lines {
		line = hex.AppendEncode(line[:0], c.Digest(i))
		for j, b := range line {
			if 'a' <= b && b <= 'f' {
				line[j] = b - ('a' - 'A')
			}
		}
		line = append(line, ':')
		line = strconv.AppendInt(line, c.Count(i), 10)
		line = append(line, '\r', '\n')
		w.Write(line) // a write error sticks and is returned by Flush
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	// Written back before it is read: a benchmark must not time its reads
	// against the kernel still writing a gigabyte out.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Latencies keeps the last 65,536 per-operation times of a benchmark for
// their percentiles, in memory allocated before the timed loop: the wall
// time, and the CPU time of the thread that ran the operation. On a busy
// machine the wall time's tail is the scheduler's; the CPU time's is the
// operation's own.
type Latencies struct {
	wall, cpu []time.Duration
	n         int
}

func NewLatencies() *Latencies {
	return &Latencies{wall: make([]time.Duration, 1<<16), cpu: make([]time.Duration, 1<<16)}
}

// Time runs op on one OS thread and records its times.
func (l *Latencies) Time(op func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, cpu := time.Now(), threadCPU()
	op()
	i := l.n % len(l.wall)
	l.wall[i], l.cpu[i] = time.Since(start), threadCPU()-cpu
	l.n++
}

// Report adds p50, p99 and max of the kept wall times, and p50 and p99 of
// the CPU times (where the system reports them), to the benchmark's line.
func (l *Latencies) Report(b *testing.B) {
	n := min(l.n, len(l.wall))
	if n == 0 {
		return
	}
	wall, cpu := slices.Clone(l.wall[:n]), slices.Clone(l.cpu[:n])
	slices.Sort(wall)
	slices.Sort(cpu)
	at := func(d []time.Duration, q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Nanoseconds()) }
	b.ReportMetric(at(wall, 0.50), "p50-ns")
	b.ReportMetric(at(wall, 0.99), "p99-ns")
	b.ReportMetric(float64(wall[n-1].Nanoseconds()), "max-ns")
	if cpu[n-1] > 0 {
		b.ReportMetric(at(cpu, 0.50), "cpu-p50-ns")
		b.ReportMetric(at(cpu, 0.99), "cpu-p99-ns")
	}
}

// Batch returns n digests for a batch lookup in the Pwned Passwords file
// at path, in random order: present of them are the hashes of lines at
// random places of the file (a line may be drawn twice, as accounts share
// passwords), the others random, so absent but by a chance of n/2^128. It
// reads one line a present digest.
func Batch(path string, kind breach.Kind, n, present int, seed uint64) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	digests := make([][]byte, n)
	all := make([]byte, n*kind.DigestLen())
	buf := make([]byte, 256)
	for i := range digests {
		d := all[i*kind.DigestLen() : (i+1)*kind.DigestLen()]
		digests[i] = d
		if i >= present {
			for j := range d {
				d[j] = byte(r.Uint32())
			}
			continue
		}
		// The line after a random place, or the first line.
		at := r.Int64N(st.Size())
		m, err := f.ReadAt(buf, at)
		if err != nil && err != io.EOF {
			return nil, err
		}
		line := buf[:m]
		if nl := bytes.IndexByte(line, '\n'); nl >= 0 && nl+1+2*len(d) <= m {
			line = line[nl+1:]
		} else if m, err = f.ReadAt(buf, 0); err != nil && err != io.EOF {
			return nil, err
		} else {
			line = buf[:m]
		}
		if _, err := hex.Decode(d, line[:2*len(d)]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	r.Shuffle(n, func(i, j int) { digests[i], digests[j] = digests[j], digests[i] })
	return digests, nil
}
