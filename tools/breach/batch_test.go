package breach_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"secutil/tools/breach"
)

// batchProbes is a batch for a file of lines: the first and last lines'
// hashes, the lowest and highest hashes there are, present and absent
// hashes in random order, and repeats of some of them.
func batchProbes(r *rand.Rand, lines []line, kind breach.Kind, n int) []string {
	digits := 2 * kind.DigestLen()
	byHash := func(a, b line) int { return strings.Compare(a.hash, b.hash) }
	probes := []string{slices.MinFunc(lines, byHash).hash, slices.MaxFunc(lines, byHash).hash, lines[0].hash, lines[len(lines)-1].hash,
		strings.Repeat("0", digits), strings.Repeat("F", digits)}
	for range n {
		probes = append(probes, lines[r.IntN(len(lines))].hash, spreadLines(r, 1, kind, 1)[0].hash)
	}
	for range n / 4 {
		probes = append(probes, probes[r.IntN(len(probes))])
	}
	r.Shuffle(len(probes), func(i, j int) { probes[i], probes[j] = probes[j], probes[i] })
	return probes
}

// firstCounts is what a linear scan of lines finds: the count of each
// hash's first line.
func firstCounts(lines []line) map[string]int64 {
	first := map[string]int64{}
	for _, l := range slices.Backward(lines) {
		first[l.hash] = l.count
	}
	return first
}

// checkBatch looks the probes up with CountMany and compares every answer
// with what a linear scan of the file's lines finds (firstCounts).
func checkBatch(t *testing.T, src interface {
	CountMany(context.Context, [][]byte, breach.Progress) ([]breach.Hit, error)
}, first map[string]int64, probes []string, withCounts bool) {
	t.Helper()
	digests := make([][]byte, len(probes))
	for i, p := range probes {
		digests[i] = mustHex(t, p)
	}
	var calls, lastDone int
	hits, err := src.CountMany(context.Background(), digests, func(done, total int) {
		calls++
		if done < lastDone || total != len(probes) {
			t.Errorf("progress(%d, %d) after %d: want a growing count of %d", done, total, lastDone, len(probes))
		}
		lastDone = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) > 0 && (calls == 0 || lastDone != len(probes)) {
		t.Errorf("progress: %d calls, last done %d, want the last at %d", calls, lastDone, len(probes))
	}
	if len(hits) != len(probes) {
		t.Fatalf("%d answers for %d digests", len(hits), len(probes))
	}
	for i, p := range probes {
		n, found := first[p]
		if !withCounts {
			n = 0
		}
		if want := (breach.Hit{Count: n, Found: found}); hits[i] != want {
			t.Fatalf("digest %d (%s): got %+v, want %+v", i, p, hits[i], want)
		}
	}
}

func TestCountManyMatchesLinearScan(t *testing.T) {
	t.Parallel()
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		for _, c := range []struct {
			name     string
			lines    func(r *rand.Rand) []line
			eol      string
			trailing bool
			sampled  bool
		}{
			{"uniform", func(r *rand.Rand) []line { return spreadLines(r, 5_000, kind, 1) }, "\r\n", true, false},
			{"uniform, sample table", func(r *rand.Rand) []line { return spreadLines(r, 5_000, kind, 1) }, "\n", false, true},
			{"skewed", func(r *rand.Rand) []line { return spreadLines(r, 5_000, kind, 8) }, "\n", true, false},
			{"clustered", func(r *rand.Rand) []line { return clusteredLines(r, 7_500, kind) }, "\r\n", false, false},
			{"unsorted", func(r *rand.Rand) []line {
				lines := spreadLines(r, 3_000, kind, 1)
				r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
				return lines
			}, "\n", true, false},
			{"one line", func(r *rand.Rand) []line { return spreadLines(r, 1, kind, 1) }, "\n", false, false},
			{"two lines", func(r *rand.Rand) []line { return spreadLines(r, 2, kind, 1) }, "\r\n", true, false},
		} {
			t.Run(fmt.Sprintf("%s/%s", kind, c.name), func(t *testing.T) {
				t.Parallel()
				lines := c.lines(rand.New(rand.NewPCG(uint64(kind), 7)))
				path, first := writeFile(t, lines, c.eol, c.trailing), firstCounts(lines)
				// Mapped where the system maps the file (a sorted one), and
				// read as where it does not: one file, opened for each.
				for _, mapped := range []bool{true, false} {
					t.Run(fmt.Sprintf("mapped=%t", mapped), func(t *testing.T) {
						t.Parallel()
						f := open(t, path, kind)
						if !mapped {
							breach.ReadWithoutMapping(f)
						} else if runtime.GOOS == "linux" && c.name != "unsorted" && !breach.Mapped(f) {
							t.Fatal("a sorted file is not mapped")
						}
						if c.sampled && !breach.WaitSampled(f) {
							t.Fatal("no sample table")
						}
						r := rand.New(rand.NewPCG(uint64(kind), 8))
						for _, n := range []int{0, 1, 20, 2_000} {
							checkBatch(t, f, first, batchProbes(r, lines, kind, n), true)
						}
					})
				}
			})
		}
	}
}

// TestCountManyEmpty: no digests, no answers, no error.
func TestCountManyEmpty(t *testing.T) {
	t.Parallel()
	lines := randomLines(rand.New(rand.NewPCG(1, 1)), 10, breach.KindSHA1)
	f := open(t, writeFile(t, lines, "\n", true), breach.KindSHA1)
	hits, err := f.CountMany(context.Background(), nil, nil)
	if err != nil || len(hits) != 0 {
		t.Fatalf("got %v, %v; want no answers", hits, err)
	}
}

// TestCountManyLowerCaseFile: the batch folds the file's case as Count does.
func TestCountManyLowerCaseFile(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	lines := randomLines(r, 2_000, breach.KindNTLM)
	lower := slices.Clone(lines)
	for i := range lower {
		lower[i].hash = strings.ToLower(lower[i].hash)
	}
	f := open(t, writeFile(t, lower, "\n", true), breach.KindNTLM)
	checkBatch(t, f, firstCounts(lines), batchProbes(r, lines, breach.KindNTLM, 500), true)
}

// TestCountManyWrongLength: one digest of the wrong length fails the batch
// before anything is read.
func TestCountManyWrongLength(t *testing.T) {
	t.Parallel()
	lines := randomLines(rand.New(rand.NewPCG(2, 2)), 100, breach.KindNTLM)
	f := open(t, writeFile(t, lines, "\n", true), breach.KindNTLM)
	reads := breach.CountReads(f)
	digests := [][]byte{mustHex(t, lines[0].hash), breach.SHA1("password")}
	for _, src := range []breach.Source{breach.NewFileSource(f), breach.NewListSource("list", []string{"password"}, breach.KindNTLM)} {
		if hits, err := src.CountMany(context.Background(), digests, nil); !errors.Is(err, breach.ErrDigestLength) || hits != nil {
			t.Errorf("%s: got %v, %v; want ErrDigestLength", src.Name(), hits, err)
		}
	}
	if n, _ := reads(); n != 0 {
		t.Errorf("%d reads before the error, want none", n)
	}
}

// TestCountManyCancelled: a cancelled batch stops with the context's error.
func TestCountManyCancelled(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	lines := randomLines(r, 1_000, breach.KindSHA1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, shuffle := range []bool{false, true} {
		if shuffle {
			r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		}
		f := open(t, writeFile(t, lines, "\n", true), breach.KindSHA1)
		if _, err := f.CountMany(ctx, [][]byte{mustHex(t, lines[0].hash)}, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("unsorted=%v: got %v, want context.Canceled", shuffle, err)
		}
	}
}

// TestCountManyListSource: the embedded-list source finds the list's words
// with count 0 (unknown), and nothing else.
func TestCountManyListSource(t *testing.T) {
	t.Parallel()
	words := []string{"password", "123456", "letmein", "dragon"}
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		hash := breach.SHA1
		if kind == breach.KindNTLM {
			hash = breach.NTLM
		}
		var lines []line
		for _, w := range words {
			lines = append(lines, line{strings.ToUpper(hex.EncodeToString(hash(w))), 0})
		}
		probes := []string{lines[2].hash, strings.ToUpper(hex.EncodeToString(hash("not in the list"))), lines[0].hash, lines[2].hash}
		checkBatch(t, breach.NewListSource("list", words, kind), firstCounts(lines), probes, false)
	}
}

// TestCountManyReads holds the bounds the documentation states, on a
// uniform file of 250,000 lines (about 9 MB): a batch with a digest every
// few lines reads the file about once, front to back, in large reads; a
// sparse batch (a digest every 300 KB) costs about a read of a few pages a
// digest; and both give Count's answers (2,000 of them compared).
func TestCountManyReads(t *testing.T) {
	t.Parallel()
	path, content, n := uniformFile(t, 250_000, breach.KindNTLM, 3)
	size := int64(len(content))
	lines := bytes.Split(bytes.TrimSuffix(content, []byte("\r\n")), []byte("\r\n"))
	if int64(len(lines)) != n {
		t.Fatalf("%d lines, WriteUniform said %d", len(lines), n)
	}
	r := rand.New(rand.NewPCG(8, 9))
	for _, c := range []struct {
		name               string
		digests            int
		maxFileShare       float64 // bytes read / file size
		maxReads, maxBytes float64 // a digest
	}{
		{"dense", 50_000, 1.1, 0.01, 1 << 20},
		{"sparse", 30, 1, 2, 32 << 10},
	} {
		digests := make([][]byte, c.digests)
		for i := range digests {
			if i%2 == 0 {
				digests[i] = mustHex(t, string(lines[r.IntN(len(lines))][:32]))
			} else {
				digests[i] = make([]byte, 16)
				for j := range digests[i] {
					digests[i][j] = byte(r.UintN(256))
				}
			}
		}
		f := open(t, path, breach.KindNTLM)
		reads := breach.CountReads(f)
		hits, err := f.CountMany(context.Background(), digests, nil)
		if err != nil {
			t.Fatal(err)
		}
		gotReads, gotBytes := reads()
		perReads, perBytes := float64(gotReads)/float64(c.digests), float64(gotBytes)/float64(c.digests)
		t.Logf("%s, %d digests: %d reads, %.2f of the file, %.2f reads and %.0f bytes a digest", c.name, c.digests, gotReads, float64(gotBytes)/float64(size), perReads, perBytes)
		if share := float64(gotBytes) / float64(size); share > c.maxFileShare || perReads > c.maxReads || perBytes > c.maxBytes {
			t.Errorf("%s: read %.2f of the file, %.2f reads and %.0f bytes a digest; want at most %g, %g and %g",
				c.name, share, perReads, perBytes, c.maxFileShare, c.maxReads, c.maxBytes)
		}
		for i := 0; i < len(digests); i += max(1, len(digests)/2_000) { // the answers are checked in full elsewhere
			d := digests[i]
			count, found, err := f.Count(d)
			if err != nil {
				t.Fatal(err)
			}
			if want := (breach.Hit{Count: count, Found: found}); hits[i] != want {
				t.Fatalf("%s: digest %d: got %+v, Count says %+v", c.name, i, hits[i], want)
			}
		}
	}
}

// TestCountManyConcurrent: batches and single lookups at once on one file
// (run with -race).
func TestCountManyConcurrent(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(10, 11))
	lines := randomLines(r, 3_000, breach.KindSHA1)
	f := open(t, writeFile(t, lines, "\r\n", true), breach.KindSHA1)
	first := firstCounts(lines)
	var wg sync.WaitGroup
	for w := range 4 {
		probes := batchProbes(rand.New(rand.NewPCG(uint64(w), 1)), lines, breach.KindSHA1, 300)
		wg.Go(func() {
			for range 3 {
				checkBatch(t, f, first, probes, true)
				if _, _, err := f.Count(mustHex(t, probes[0])); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// FuzzCountMany compares batches with a linear scan on generated files:
// spread evenly or skewed, sorted or not, with or without a sample table.
func FuzzCountMany(f *testing.F) {
	f.Add(uint64(1), uint16(500), uint8(1), uint16(300), false, false)
	f.Add(uint64(2), uint16(3), uint8(40), uint16(5), false, true)
	f.Add(uint64(3), uint16(3000), uint8(255), uint16(2000), true, false)
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, skew uint8, probes uint16, shuffle, sampled bool) {
		r := rand.New(rand.NewPCG(seed, 1))
		kind := breach.Kind(seed % 2)
		lines := spreadLines(r, int(n%4000)+1, kind, float64(skew%64)+1)
		if shuffle {
			r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		}
		file := open(t, writeFile(t, lines, "\n", seed%3 == 0), kind)
		if sampled {
			breach.WaitSampled(file)
		}
		checkBatch(t, file, firstCounts(lines), batchProbes(r, lines, kind, int(probes%3000)), true)
	})
}

func TestParseDigests(t *testing.T) {
	t.Parallel()
	ntlm := "8846F7EAEE8FB117AD06BDD830B7586C"
	sha1 := "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"
	for _, c := range []struct {
		kind    breach.Kind
		in      []string
		badAt   int // -1: no error
		wantErr error
	}{
		{breach.KindNTLM, []string{ntlm, strings.ToLower(ntlm)}, -1, nil},
		{breach.KindSHA1, []string{sha1}, -1, nil},
		{breach.KindSHA1, nil, -1, nil},
		{breach.KindNTLM, []string{ntlm, sha1}, 1, breach.ErrBadNTLM},
		{breach.KindSHA1, []string{sha1, sha1[:39] + "g"}, 1, breach.ErrBadSHA1},
		{breach.KindNTLM, []string{"", ntlm}, 0, breach.ErrBadNTLM},
		{breach.KindNTLM, []string{" " + ntlm[1:]}, 0, breach.ErrBadNTLM},
	} {
		got, err := breach.ParseDigests(c.in, c.kind)
		if c.badAt < 0 {
			if err != nil || len(got) != len(c.in) {
				t.Errorf("%q: got %d digests, %v", c.in, len(got), err)
				continue
			}
			for i, d := range got {
				if hex.EncodeToString(d) != strings.ToLower(c.in[i]) {
					t.Errorf("%q: digest %d is %x", c.in, i, d)
				}
			}
			continue
		}
		var bad *breach.BadDigestError
		if !errors.As(err, &bad) || bad.Index != c.badAt || !errors.Is(err, c.wantErr) || got != nil {
			t.Errorf("%q: got %v, %v; want entry %d: %v", c.in, got, err, c.badAt, c.wantErr)
		}
	}
}

// FuzzParseDigests: any list either decodes entry for entry or names its
// first entry that is not a digest of the kind.
func FuzzParseDigests(f *testing.F) {
	f.Add("8846F7EAEE8FB117AD06BDD830B7586C\n8846f7eaee8fb117ad06bdd830b7586c", false)
	f.Add("5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8\nzz", true)
	f.Fuzz(func(t *testing.T, list string, sha1 bool) {
		kind := breach.KindNTLM
		if sha1 {
			kind = breach.KindSHA1
		}
		in := strings.Split(list, "\n")
		got, err := breach.ParseDigests(in, kind)
		valid := func(s string) bool {
			d, err := hex.DecodeString(s)
			return err == nil && len(d) == kind.DigestLen()
		}
		if err == nil {
			for i, s := range in {
				if !valid(s) || !strings.EqualFold(hex.EncodeToString(got[i]), s) {
					t.Fatalf("entry %d %q decoded as %x", i, s, got[i])
				}
			}
			return
		}
		var bad *breach.BadDigestError
		if !errors.As(err, &bad) || bad.Index >= len(in) || valid(in[bad.Index]) || slices.ContainsFunc(in[:bad.Index], func(s string) bool { return !valid(s) }) {
			t.Fatalf("%q: %v is not the first bad entry", in, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprint(bad.Index)) {
			t.Fatalf("%v does not name entry %d", err, bad.Index)
		}
	})
}

// TestCountManyFileShrinks: a batch on a mapped file that is cut short
// under it (rewritten in place) fails with ErrChanged instead of crashing
// the process on SIGBUS; a batch on the lines that are left still answers.
func TestCountManyFileShrinks(t *testing.T) {
	t.Parallel()
	path, content, _ := uniformFile(t, 100_000, breach.KindSHA1, 5)
	f := open(t, path, breach.KindSHA1)
	if !breach.Mapped(f) {
		t.Skip("the file is not mapped here")
	}
	lines := bytes.Split(bytes.TrimSuffix(content, []byte("\r\n")), []byte("\r\n"))
	digestsOf := func(lines [][]byte) [][]byte {
		var digests [][]byte
		for _, l := range lines {
			digests = append(digests, mustHex(t, string(l[:40])))
		}
		return digests
	}
	// The first tenth of the file is kept, to a page boundary.
	keep := int64(len(content)/10) &^ 4095
	kept := lines[:bytes.Count(content[:keep], []byte("\n"))]
	if err := os.Truncate(path, keep); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CountMany(context.Background(), digestsOf(lines[len(lines)/2:]), nil); !errors.Is(err, breach.ErrChanged) {
		t.Errorf("a batch past the new end: %v, want ErrChanged", err)
	}
	hits, err := f.CountMany(context.Background(), digestsOf(kept[:len(kept)/2]), nil)
	if err != nil {
		t.Fatalf("a batch on the lines left: %v", err)
	}
	for i, h := range hits {
		if !h.Found {
			t.Fatalf("line %d of those left: not found", i)
		}
	}
}
