package breach_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

// spreadLines returns n distinct hashes of the kind, sorted, whose first 64
// bits are u^skew of a uniform u in [0, 1) (skew 1: uniformly spread;
// higher: crowded towards the start of the hash space, which misleads an
// interpolation), with random counts.
func spreadLines(r *rand.Rand, n int, kind breach.Kind, skew float64) []line {
	seen := map[string]bool{}
	var lines []line
	for len(lines) < n {
		d := make([]byte, kind.DigestLen())
		binary.BigEndian.PutUint64(d, uint64(math.Pow(r.Float64(), skew)*(1<<64-1)))
		for i := 8; i < len(d); i++ {
			d[i] = byte(r.UintN(256))
		}
		h := strings.ToUpper(hex.EncodeToString(d))
		if !seen[h] {
			seen[h] = true
			lines = append(lines, line{h, int64(r.IntN(1_000_000) + 1)})
		}
	}
	slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.hash, b.hash) })
	return lines
}

// clusteredLines puts a third of the lines in the first prefix, a third in
// one prefix of the middle and the rest spread, as a hand-made list of
// related hashes might be.
func clusteredLines(r *rand.Rand, n int, kind breach.Kind) []line {
	lines := spreadLines(r, n/3, kind, 1)
	for i := range n / 3 {
		for _, p := range []string{"00000", "8A0F3"} {
			rest := strings.ToUpper(hex.EncodeToString(binary.BigEndian.AppendUint64(nil, r.Uint64())))
			h := p + fmt.Sprintf("%06X", i) + rest + strings.Repeat("0", 2*kind.DigestLen())
			lines = append(lines, line{h[:2*kind.DigestLen()], int64(i + 1)})
		}
	}
	slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.hash, b.hash) })
	return slices.CompactFunc(lines, func(a, b line) bool { return a.hash == b.hash })
}

// checkAgainstLinearScan compares Count and Range on the file of lines
// with a linear scan of lines, for the hashes of the file, absent hashes
// and prefixes in and out of the file.
func checkAgainstLinearScan(t *testing.T, r *rand.Rand, f *breach.File, lines []line, probes int) {
	t.Helper()
	sorted := slices.Clone(lines)
	slices.SortFunc(sorted, func(a, b line) int { return strings.Compare(a.hash, b.hash) })
	// One pass over the lines answers every probe's count and range as
	// linearCount and linearRange would.
	counts := firstCounts(lines)
	ranges := map[string][]breach.RangeEntry{}
	for _, l := range sorted {
		prefix := l.hash[:breach.PrefixLen]
		ranges[prefix] = append(ranges[prefix], breach.RangeEntry{Suffix: l.hash[breach.PrefixLen:], Count: l.count})
	}
	digits := 2 * f.Kind().DigestLen()
	hashes := []string{strings.Repeat("0", digits), strings.Repeat("F", digits)}
	for range probes {
		hashes = append(hashes, lines[r.IntN(len(lines))].hash)
		hashes = append(hashes, spreadLines(r, 1, f.Kind(), 1)[0].hash)
	}
	for _, h := range hashes {
		gotN, gotOK, err := f.Count(mustHex(t, h))
		if err != nil {
			t.Fatalf("Count(%s): %v", h, err)
		}
		if wantN, wantOK := counts[h]; gotN != wantN || gotOK != wantOK {
			t.Fatalf("Count(%s): got (%d, %v), want (%d, %v)", h, gotN, gotOK, wantN, wantOK)
		}
		prefix := h[:breach.PrefixLen]
		got, err := f.Range(strings.ToLower(prefix))
		if err != nil {
			t.Fatalf("Range(%s): %v", prefix, err)
		}
		if want := ranges[prefix]; !slices.Equal(got, want) {
			t.Fatalf("Range(%s): got %d entries, want %d", prefix, len(got), len(want))
		}
	}
}

// checkSearch checks the lookups on f, of lines, against a linear scan
// once its sample table is built (or its sampling has left none: a small
// unsorted file is not sampled), then with no table. Without a table both
// are one search, checked once.
func checkSearch(t *testing.T, r *rand.Rand, f *breach.File, lines []line, probes int) {
	t.Helper()
	sampled := breach.WaitSampled(f)
	checkAgainstLinearScan(t, r, f, lines, probes)
	if sampled {
		breach.DropSamples(f)
		checkAgainstLinearScan(t, r, f, lines, probes)
	}
}

func TestSearchMatchesLinearScan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		lines func(r *rand.Rand, kind breach.Kind) []line
	}{
		{"uniform", func(r *rand.Rand, kind breach.Kind) []line { return spreadLines(r, 5_000, kind, 1) }},
		{"skewed", func(r *rand.Rand, kind breach.Kind) []line { return spreadLines(r, 5_000, kind, 4) }},
		{"very skewed", func(r *rand.Rand, kind breach.Kind) []line { return spreadLines(r, 5_000, kind, 12) }},
		{"clustered", func(r *rand.Rand, kind breach.Kind) []line { return clusteredLines(r, 7_500, kind) }},
		{"crowded at the end", func(r *rand.Rand, kind breach.Kind) []line {
			lines := spreadLines(r, 5_000, kind, 8)
			for i := range lines { // mirror the hashes: 0 <-> F
				lines[i].hash = strings.Map(func(c rune) rune { return rune("FEDCBA9876543210"[strings.IndexRune("0123456789ABCDEF", c)]) }, lines[i].hash)
			}
			slices.Reverse(lines)
			return lines
		}},
		{"unsorted", func(r *rand.Rand, kind breach.Kind) []line {
			lines := spreadLines(r, 5_000, kind, 1)
			r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			return lines
		}},
		{"two lines swapped", func(r *rand.Rand, kind breach.Kind) []line {
			lines := spreadLines(r, 5_000, kind, 1)
			lines[100], lines[4_900] = lines[4_900], lines[100]
			return lines
		}},
		{"one line", func(r *rand.Rand, kind breach.Kind) []line { return spreadLines(r, 1, kind, 1) }},
	} {
		for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
			t.Run(c.name+"/"+kind.String(), func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(11, uint64(len(c.name))))
				lines := c.lines(r, kind)
				checkSearch(t, r, open(t, writeFile(t, lines, "\r\n", true), kind), lines, 20)
			})
		}
	}
}

// FuzzSearch checks lookups against a linear scan on generated files:
// spread evenly or skewed, sorted or not, of any length.
func FuzzSearch(f *testing.F) {
	f.Add(uint64(1), uint16(500), uint8(1), false, true)
	f.Add(uint64(2), uint16(3), uint8(40), false, false)
	f.Add(uint64(3), uint16(2000), uint8(255), true, true)
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, skew uint8, shuffle, crlf bool) {
		r := rand.New(rand.NewPCG(seed, 0))
		lines := spreadLines(r, int(n%4000)+1, breach.KindSHA1, float64(skew%64)+1)
		if shuffle {
			r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		}
		eol := "\n"
		if crlf {
			eol = "\r\n"
		}
		checkSearch(t, r, open(t, writeFile(t, lines, eol, seed%2 == 0), breach.KindSHA1), lines, 10)
	})
}

// TestReadsPerLookup checks the bound docs/bench/breach.md states for a
// uniformly spread file: a range answer or a count costs at most 4 reads
// and 64 KiB on average, where a binary search took about log2(size/4 KiB),
// and, once the sample table is built, at most 1.5 on this file, whose
// samples are 64 KiB apart.
func TestReadsPerLookup(t *testing.T) {
	t.Parallel()
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			// About 4 MB: a binary search would take 10 reads.
			path, _, _ := uniformFile(t, 100_000, kind, 1)
			for _, c := range []struct {
				name     string
				sampled  bool
				maxReads float64
			}{{"no sample table", false, 4}, {"sample table", true, 1.5}} {
				f := open(t, path, kind)
				if !breach.WaitSampled(f) {
					t.Fatal("no sample table")
				}
				if !c.sampled {
					breach.DropSamples(f)
				}
				reads := breach.CountReads(f)
				r := rand.New(rand.NewPCG(12, 13))
				const lookups = 1000
				for range lookups {
					if _, err := f.Range(fmt.Sprintf("%05X", r.IntN(1<<20))); err != nil {
						t.Fatal(err)
					}
				}
				rangeReads, rangeBytes := reads()
				for range lookups {
					d := make([]byte, kind.DigestLen())
					for i := range d {
						d[i] = byte(r.UintN(256))
					}
					if _, _, err := f.Count(d); err != nil {
						t.Fatal(err)
					}
				}
				allReads, allBytes := reads()
				for _, op := range []struct {
					what         string
					reads, bytes int64
				}{{"range", rangeReads, rangeBytes}, {"count", allReads - rangeReads, allBytes - rangeBytes}} {
					perReads, perBytes := float64(op.reads)/lookups, float64(op.bytes)/lookups
					t.Logf("%s, %s: %.2f reads, %.0f bytes a lookup", c.name, op.what, perReads, perBytes)
					if perReads > c.maxReads || perBytes > 64<<10 {
						t.Errorf("%s, %s: %.2f reads and %.0f bytes a lookup, want at most %g and 64 KiB", c.name, op.what, perReads, perBytes, c.maxReads)
					}
				}
			}
		})
	}
}

// TestUnsortedLargeFile: a file too large to be checked when opened is
// trusted to be sorted; a lookup that meets lines out of order says so
// rather than answer from them.
func TestUnsortedLargeFile(t *testing.T) {
	t.Parallel()
	var sorted bytes.Buffer
	if _, _, err := breachtest.WriteUniform(&sorted, 120_000, breach.KindSHA1, 2); err != nil { // about 5 MB
		t.Fatal(err)
	}
	crlf := []byte("\r\n")
	lines := bytes.Split(bytes.TrimSuffix(sorted.Bytes(), crlf), crlf)
	slices.Reverse(lines)
	path := filepath.Join(t.TempDir(), "reversed.txt")
	if err := os.WriteFile(path, bytes.Join(lines, crlf), 0o600); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, breach.KindSHA1)
	var sawErr bool
	for _, l := range lines[:100] {
		if _, _, err := f.Count(mustHex(t, string(l[:40]))); err != nil {
			if !errors.Is(err, breach.ErrUnsorted) || !errors.Is(err, breach.ErrMalformed) {
				t.Fatalf("got %v, want ErrUnsorted", err)
			}
			sawErr = true
		}
	}
	if !sawErr {
		t.Fatal("no lookup noticed the lines out of order")
	}
}

// TestWriteUniform checks the generated file that the figures rest on:
// sorted, distinct HASH:COUNT lines, as many and as long as reported, with
// counts of at least 1 and most of them 1 (chance 1/2 of 2 or more).
func TestWriteUniform(t *testing.T) {
	t.Parallel()
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		var file bytes.Buffer
		n, size, err := breachtest.WriteUniform(&file, 20_000, kind, 3)
		if err != nil {
			t.Fatal(err)
		}
		if size != int64(file.Len()) || n < 19_600 || n > 20_400 {
			t.Fatalf("%v: %d lines and %d bytes reported, %d bytes written, want about 20,000 lines", kind, n, size, file.Len())
		}
		lines := strings.Split(strings.TrimSuffix(file.String(), "\r\n"), "\r\n")
		if int64(len(lines)) != n {
			t.Fatalf("%v: %d lines, reported %d", kind, len(lines), n)
		}
		ones := 0
		for i, l := range lines {
			hash, count, ok := strings.Cut(l, ":")
			if !ok || len(hash) != 2*kind.DigestLen() || strings.ToUpper(hash) != hash || count == "0" || strings.HasPrefix(count, "-") {
				t.Fatalf("%v: malformed line %q", kind, l)
			}
			if i > 0 && lines[i-1] >= l {
				t.Fatalf("%v: line %d (%s) not after the one before (%s)", kind, i, l, lines[i-1])
			}
			if count == "1" {
				ones++
			}
		}
		if frac := float64(ones) / float64(n); frac < 0.48 || frac > 0.52 {
			t.Errorf("%v: %.3f of the counts are 1, want about 1/2", kind, frac)
		}
	}
}

// TestCloseEndsSampling: Close returns only once a sampling it interrupted
// has ended, so a closed File leaves no goroutine reading it.
func TestCloseEndsSampling(t *testing.T) {
	t.Parallel()
	// About 4 MB: about 68 reads to sample, so that Close interrupts them.
	path, _, _ := uniformFile(t, 100_000, breach.KindSHA1, 1)
	f, err := breach.OpenFile(path, breach.KindSHA1)
	if err != nil {
		t.Fatal(err)
	}
	sampled := f.Sampled() // starts the sampling
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sampled:
	default:
		t.Fatal("Close returned while the sampling was still running")
	}
}
