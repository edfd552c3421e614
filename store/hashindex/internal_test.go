package hashindex

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
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
)

// openRun opens the run file of a runs row, as a reload does.
func openRun(dir string, id int64, name string, a *algorithm, entries int64) (*runFile, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return readRun(f, id, name, a, entries)
}

// Tests of the storage internals. Collisions of 64-bit prefixes are too rare to find by
// search, so some tests plant rows directly through a second connection to the file.

func openWithRaw(t *testing.T) (*Index, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hashes.db")
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return ix, raw
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

func lookupWord(t *testing.T, ix *Index, name, word string) Hit {
	t.Helper()
	digest := algorithmsByName[name].sum([]byte(word))
	hit, err := ix.Lookup(context.Background(), hex.EncodeToString(digest), []string{name})
	if err != nil {
		t.Fatal(err)
	}
	return hit
}

// plant stores word in its own block and files it in a new run of the algorithm under
// key, as if key were its digest's key.
func plant(t *testing.T, ix *Index, raw *sql.DB, word string, set algorithmSet, a *algorithm, key uint64) {
	t.Helper()
	var block int64
	if err := raw.QueryRow("SELECT COALESCE(MAX(id), 0) + 1 FROM word_blocks").Scan(&block); err != nil {
		t.Fatal(err)
	}
	mustExec(t, raw, "INSERT INTO word_blocks(id, words) VALUES (?, ?)", block, appendWordRecord(nil, set, []byte(word)))
	r, err := writeRun(ix.dir, a, []entry{{key: key, ref: makeRef(block, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	r.close()
	mustExec(t, raw, "INSERT INTO runs(algorithm, entries, file) VALUES (?, 1, ?)", a.name, r.name)
}

func TestEntryPrefixCollisionIsVerified(t *testing.T) {
	t.Parallel()
	ix, raw := openWithRaw(t)
	// An impostor word filed under md5("password")'s prefix must not be returned.
	plant(t, ix, raw, "impostor", md5Algorithm.bit, md5Algorithm, md5Algorithm.newKeyer()([]byte("password")))
	if hit := lookupWord(t, ix, "md5", "password"); hit.Found {
		t.Fatalf("got %+v, want a miss", hit)
	}
	if _, err := ix.Import(context.Background(), strings.NewReader("password"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if hit := lookupWord(t, ix, "md5", "password"); hit.Plaintext != "password" {
		t.Fatalf("got %+v, want password", hit)
	}
}

func TestWordKeyCollisionIsAnotherWord(t *testing.T) {
	t.Parallel()
	ix, raw := openWithRaw(t)
	// An impostor holds the sha256 key of "password": an import must still store
	// "password" (once: a second import finds it).
	plant(t, ix, raw, "impostor", sha256Algorithm.bit, sha256Algorithm, wordID([]byte("password")))
	for i, wantNew := range []int64{1, 0} {
		stats, err := ix.Import(context.Background(), strings.NewReader("password\n"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats.NewWords != wantNew {
			t.Fatalf("import %d: got %+v, want %d new", i+1, stats, wantNew)
		}
	}
	for _, name := range Algorithms {
		if hit := lookupWord(t, ix, name, "password"); hit.Plaintext != "password" {
			t.Fatalf("%s: got %+v, want password", name, hit)
		}
	}
}

func TestProberFindsEveryKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Keys at the extremes of the key range, and more entries under one key than a chunk
	// holds, across chunk boundaries: a probe finds all of a key's entries.
	const top = math.MaxUint64 &^ (1<<(64-keyBits) - 1)
	var entries []entry
	entries = append(entries, entry{key: 0, ref: makeRef(3, 0)})
	for i := range 3 * chunkEntries {
		entries = append(entries, entry{key: uint64(i+1) << 20, ref: makeRef(1, i%blockWords)})
	}
	for i := range 2*chunkEntries + 10 {
		entries = append(entries, entry{key: top - 1<<(64-keyBits), ref: makeRef(2, i%blockWords)})
	}
	entries = append(entries, entry{key: top, ref: makeRef(3, 1)})
	r, err := writeRun(dir, md5Algorithm, entries)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	reopened, err := openRun(dir, 7, r.name, md5Algorithm, int64(len(entries)))
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.close()
	want := map[uint64]int{}
	for _, e := range entries {
		want[e.key]++
	}
	p := newProber(reopened)
	keys := []uint64{0, 1 << 19, 1 << 20, 5 << 20, 409 << 20, 410 << 20, 411 << 20, 1227 << 20, 1228 << 20, top - 1<<(64-keyBits), top}
	for _, key := range keys {
		refs, err := p.find(key, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != want[key] {
			t.Fatalf("key %x: got %d entries, want %d", key, len(refs), want[key])
		}
	}
	// The merge reader returns them all, in order.
	rr := newRunReader(reopened)
	for i := 0; ; i++ {
		e, ok, err := rr.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if i != len(entries) {
				t.Fatalf("read %d entries, want %d", i, len(entries))
			}
			break
		}
		if e != entries[i] {
			t.Fatalf("entry %d: got %+v, want %+v", i, e, entries[i])
		}
	}
	// A file of another size is refused.
	if _, err := openRun(dir, 7, r.name, md5Algorithm, int64(len(entries))+1); !errors.Is(err, errDamaged) {
		t.Fatalf("got %v, want errDamaged", err)
	}
}

// The Bloom filter never forgets a key and turns most others away.
func TestBloomFilter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 100_000
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = rng.Uint64() &^ (1<<(64-keyBits) - 1)
	}
	slices.Sort(keys)
	entries := make([]entry, n)
	for i, k := range keys {
		entries[i] = entry{key: k}
	}
	r, err := writeRun(t.TempDir(), sha1Algorithm, entries)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for _, k := range keys {
		if !r.filter.mayContain(k) {
			t.Fatalf("key %x is in the run but the filter says no", k)
		}
	}
	positives := 0
	for range n {
		if r.filter.mayContain(rng.Uint64() &^ (1<<(64-keyBits) - 1)) {
			positives++
		}
	}
	if rate := float64(positives) / n; rate > 0.02 {
		t.Fatalf("false positive rate %.4f, want about 0.01", rate)
	}
}

func TestCompactionBoundsRuns(t *testing.T) {
	t.Parallel()
	ix, raw := openWithRaw(t)
	ix.sizes.batchWords = 10
	words := make([]string, 800)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
	}
	if _, err := ix.Import(context.Background(), strings.NewReader(strings.Join(words, "\n")), []string{"md5"}, nil); err != nil {
		t.Fatal(err)
	}
	// 80 batches of 10 words, more than mergeFanout² so that merged runs merge again:
	// all in the lowest size tier, so fewer than mergeFanout runs of each algorithm
	// remain after merging.
	var runs, entries int
	if err := raw.QueryRow("SELECT count(*), sum(entries) FROM runs WHERE algorithm = 'md5'").Scan(&runs, &entries); err != nil {
		t.Fatal(err)
	}
	if runs >= mergeFanout || entries != len(words) {
		t.Fatalf("md5: %d runs of %d entries, want < %d runs of %d", runs, entries, mergeFanout, len(words))
	}
	for _, w := range words {
		if hit := lookupWord(t, ix, "md5", w); hit.Plaintext != w {
			t.Fatalf("got %+v, want %s", hit, w)
		}
	}
}

func TestTiers(t *testing.T) {
	t.Parallel()
	const base = defaultTierBase
	for _, tc := range []struct {
		entries int64
		want    int
	}{{0, 0}, {1, 0}, {base - 1, 0}, {base, 1}, {base*mergeFanout - 1, 1}, {base * mergeFanout, 2}} {
		if got := tier(tc.entries, base); got != tc.want {
			t.Errorf("tier(%d) = %d, want %d", tc.entries, got, tc.want)
		}
	}
}

func FuzzWordRecord(f *testing.F) {
	f.Add(appendWordRecord(appendWordRecord(nil, 3, []byte("password")), 1, nil), 1)
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0)
	f.Fuzz(func(t *testing.T, block []byte, slot int) {
		if offset, word, ok := wordRecord(block, slot%blockWords); ok {
			if offset < 0 || offset >= len(block) || len(word) > len(block) {
				t.Fatalf("offset %d, word %q of a %d-byte block", offset, word, len(block))
			}
		}
	})
}

// FuzzReadWords reads any input as an import does: it is refused, or every line becomes
// at most one word of 1 to MaxWordBytes bytes, the input is read to its end, and each word
// answered by a lookup (wordText) imports back as the same word.
func FuzzReadWords(f *testing.F) {
	f.Add([]byte("password\r\n\n123456\nqwerty"))
	f.Add([]byte(strings.Repeat("a", MaxWordBytes+1) + "\nok\r"))
	f.Add([]byte("\r\r\n\n"))
	f.Add([]byte("$HEX[70c3a4737377c3b67264]\n$HEX[ff0a00]\n$HEX[zz]\n$HEX[]\ncaf\xe9"))
	f.Add([]byte("\x1f\x8b\x08\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := openWordlist(strings.NewReader(string(data)))
		if err != nil {
			return // refused, or a compressed input's header is damaged
		}
		out := make(chan wordBatch, 1)
		done := make(chan struct{})
		var words [][]byte
		var read int64
		go func() {
			defer close(done)
			for batch := range out {
				words = append(words, batch.lines...)
				read = batch.bytes
			}
		}()
		_, err = readWords(context.Background(), in, out, ImportBatchWords)
		close(out)
		<-done
		if err != nil {
			if in.consumed != nil {
				return // a damaged compressed stream
			}
			t.Fatal(err)
		}
		if in.consumed == nil && len(words) > 0 && read != int64(len(data)) {
			t.Fatalf("read %d bytes of %d", read, len(data))
		}
		if lines := strings.Count(string(data), "\n") + 1; len(words) > lines && in.consumed == nil {
			t.Fatalf("%d words from %d lines", len(words), lines)
		}
		for _, w := range words {
			if len(w) == 0 || len(w) > MaxWordBytes {
				t.Fatalf("bad word %q", w)
			}
			text := []byte(wordText(w))
			if back, ok := decodeHexForm(nil, text); ok && !bytes.Equal(back, w) || !ok && !bytes.Equal(text, w) {
				t.Fatalf("word %q is answered as %q, which imports as another word", w, text)
			}
		}
	})
}

func FuzzKeyersMatchDigests(f *testing.F) {
	// The lengths around one MD4 block of UTF-16: 27 units fit it, 28 do not.
	for _, w := range []string{"", "password", "pässwörd", "\xff\xfe invalid", "😀 astral",
		strings.Repeat("x", 27), strings.Repeat("x", 28), strings.Repeat("é", 27), strings.Repeat("long", 20)} {
		f.Add([]byte(w))
	}
	keyers := map[*algorithm]func([]byte) uint64{}
	for _, a := range algorithmList {
		keyers[a] = a.newKeyer()
	}
	f.Fuzz(func(t *testing.T, word []byte) {
		for _, a := range algorithmList {
			if got, want := keyers[a](word), prefixKey(a.sum(word)); got != want {
				t.Fatalf("%s(%q): key %x, want %x", a.name, word, got, want)
			}
		}
	})
}

func TestSortByKey(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 1023, 1024, 5000, 70_000} {
		for _, spread := range []string{"uniform", "one key", "extremes"} {
			keys := make([]uint64, n)
			for i := range keys {
				switch spread {
				case "uniform":
					keys[i] = rng.Uint64()
				case "one key":
					keys[i] = 42
				case "extremes":
					keys[i] = []uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64}[rng.IntN(4)]
				}
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			sortByKey(keys, func(k uint64) uint64 { return k }, cmp.Compare[uint64])
			if !slices.Equal(keys, want) {
				t.Fatalf("%d %s keys: not sorted", n, spread)
			}
		}
	}
}

func TestVersion1FileIsRebuilt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hashes.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, raw, migrations[0])
	mustExec(t, raw, "INSERT INTO words(id, word) VALUES (1, 'old'); INSERT INTO meta(key, value) VALUES ('seed', 'x');"+
		"INSERT INTO counts(algorithm, entries) VALUES ('sha256', 1); PRAGMA user_version = 1")
	raw.Close()
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if entries, _, err := ix.Size(context.Background()); err != nil || entries != 0 {
		t.Fatalf("entries %d, err %v: want an empty index", entries, err)
	}
	if err := ix.EnsureSeeded(context.Background(), []string{"password"}); err != nil {
		t.Fatal(err)
	}
	if hit := lookupWord(t, ix, "ntlm", "password"); !hit.Found {
		t.Fatalf("got %+v, want the seed found", hit)
	}
}

// Keys at both ends of the key range are found by both lookup paths.
func TestLookupFindsExtremeKeys(t *testing.T) {
	t.Parallel()
	ix, raw := openWithRaw(t)
	top := uint64(math.MaxUint64 &^ (1<<(64-keyBits) - 1))
	plant(t, ix, raw, "lowest", md5Algorithm.bit, md5Algorithm, 0)
	plant(t, ix, raw, "highest", md5Algorithm.bit, md5Algorithm, top)
	var queries []query
	for _, digest := range []string{"00000000000000000000000000000000", "ffffffffffff00000000000000000000", "80000000000000000000000000000000"} {
		q, err := parseQuery(digest, nil)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, q)
	}
	set, err := ix.fresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.release(set)
	var probes []probe
	for i, q := range queries {
		probes = append(probes, probe{digest: i, a: md5Algorithm, key: prefixKey(q.digest)})
	}
	candidates, err := findCandidates(set, probes)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range candidates {
		got = append(got, fmt.Sprintf("%d:%s:%d", c.digest, c.algorithm.name, c.ref.block()))
	}
	slices.Sort(got)
	if want := []string{"0:md5:1", "1:md5:2"}; !slices.Equal(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
}

// TestImportsMatchAModel runs random imports (random words from a small pool, random
// algorithm subsets, batches small enough to force merges across tiers) and checks every
// statistic and every lookup against a plain map of what was imported. The writer learns
// what the batches committed after a worker's snapshot stored from its recent batches, or
// with none kept, by searching the runs again.
func TestImportsMatchAModel(t *testing.T) {
	t.Parallel()
	for _, kept := range []int{defaultKeptBatches, 0} {
		t.Run(fmt.Sprintf("kept=%d", kept), func(t *testing.T) {
			t.Parallel()
			importsMatchAModel(t, kept)
		})
	}
}

func importsMatchAModel(t *testing.T, keptBatches int) {
	ix, raw := openWithRaw(t)
	// tiers of runs under 8, 64, 512, ... entries
	ix.sizes = importSizes{batchWords: 7, keptBatches: keptBatches, tierBase: 1}
	rng := rand.New(rand.NewPCG(5, 6))
	pool := make([]string, 300)
	for i := range pool {
		pool[i] = fmt.Sprintf("w%d-%x", i, rng.Uint32())
	}
	model := map[string]algorithmSet{} // word → algorithms it is indexed under
	for round := range 16 {
		var lines []string
		for range rng.IntN(60) {
			lines = append(lines, pool[rng.IntN(len(pool))])
		}
		var names []string
		for _, a := range algorithmList {
			if rng.IntN(2) == 0 {
				names = append(names, a.name)
			}
		}
		if len(names) == 0 {
			names = []string{"md5"}
		}
		indexed, err := indexedAlgorithms(names)
		if err != nil {
			t.Fatal(err)
		}
		var want algorithmSet
		for _, a := range indexed {
			want |= a.bit
		}
		var wantNew, wantEntries int64
		seen := map[string]bool{}
		for _, w := range lines {
			if seen[w] {
				continue
			}
			seen[w] = true
			have, stored := model[w]
			if !stored {
				wantNew++
			}
			for _, a := range algorithmList {
				if want&a.bit != 0 && have&a.bit == 0 {
					wantEntries++
				}
			}
			model[w] = have | want
		}
		stats, err := ix.Import(context.Background(), strings.NewReader(strings.Join(lines, "\n")), names, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Words != int64(len(lines)) || stats.NewWords != wantNew || stats.Entries != wantEntries {
			t.Fatalf("round %d: got %+v, want %d words, %d new, %d entries", round, stats, len(lines), wantNew, wantEntries)
		}
	}
	var total int64
	for _, w := range pool {
		for _, a := range algorithmList {
			hit := lookupWord(t, ix, a.name, w)
			if indexedUnder := model[w]&a.bit != 0; hit.Found != indexedUnder || (hit.Found && hit.Plaintext != w) {
				t.Fatalf("%s(%s): got %+v, want found=%v", a.name, w, hit, indexedUnder)
			}
			if model[w]&a.bit != 0 {
				total++
			}
		}
	}
	entries, _, err := ix.Size(context.Background())
	if err != nil || entries != total {
		t.Fatalf("Size: %d entries (err %v), want %d", entries, err, total)
	}
	var stored, runs, maxRun int64
	if err := raw.QueryRow("SELECT sum(entries), count(*), max(entries) FROM runs").Scan(&stored, &runs, &maxRun); err != nil || stored != total {
		t.Fatalf("runs hold %d entries (err %v), want %d", stored, err, total)
	}
	if tier(maxRun, ix.sizes.tierBase) < 3 {
		t.Fatalf("the largest run has %d entries: merges never reached tier 3", maxRun)
	}
	t.Logf("%d entries in %d runs, the largest %d", total, runs, maxRun)
	// And the many-digest path agrees with the one-digest path.
	var digests []string
	for _, w := range pool[:100] {
		digests = append(digests, hex.EncodeToString(ntlmAlgorithm.sum([]byte(w))))
	}
	hits, err := ix.LookupMany(context.Background(), digests)
	if err != nil {
		t.Fatal(err)
	}
	for i, hit := range hits {
		if one := mustLookupOne(t, ix, digests[i]); hit != one {
			t.Fatalf("LookupMany %+v, Lookup %+v", hit, one)
		}
	}
}

func mustLookupOne(t *testing.T, ix *Index, digest string) Hit {
	t.Helper()
	hit, err := ix.Lookup(context.Background(), digest, nil)
	if err != nil {
		t.Fatal(err)
	}
	return hit
}

// Check counts the run files no row lists; a listed run file cut short is damage that
// Open reports.
func TestCheckCountsOrphansAndOpenFindsDamage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hashes.db")
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Import(context.Background(), strings.NewReader("password\nletmein\n"), nil, nil); err != nil {
		t.Fatal(err)
	}
	stray, err := writeRun(ix.dir, md5Algorithm, []entry{{key: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	stray.close()
	if orphans, err := ix.Check(context.Background()); err != nil || orphans != 1 {
		t.Fatalf("check: %d orphans, %v; want 1, nil", orphans, err)
	}
	counts, err := ix.RunCounts(context.Background())
	if err != nil || len(counts) != len(algorithmList) || counts[0] != (RunCount{Algorithm: "md5", Runs: 1, Largest: 2}) {
		t.Fatalf("run counts %+v, %v", counts, err)
	}
	s := ix.acquire()
	victim := s.runs[0][0].name
	ix.release(s)
	ix.Close()
	if err := os.Truncate(filepath.Join(ix.dir, victim), pageSize); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, errDamaged) {
		t.Fatalf("open with a cut run file: %v, want errDamaged", err)
	}
}

// TestSeedFingerprintKeepsItsBytes: an index records the fingerprint of
// the list it was seeded with, and a different one re-imports the list at
// start. The fingerprint is fixed by the bytes it hashes, written out here
// as the format they have always had.
func TestSeedFingerprintKeepsItsBytes(t *testing.T) {
	t.Parallel()
	for _, words := range [][]string{nil, {"password", "123456"}, {"", "ünïcødé", strings.Repeat("x", 300)}} {
		var want strings.Builder
		for _, w := range words {
			fmt.Fprintf(&want, "%d:%s\n", len(w), w)
		}
		fmt.Fprintf(&want, "%v", Algorithms)
		sum := sha256.Sum256([]byte(want.String()))
		if got := seedFingerprint(words); got != hex.EncodeToString(sum[:]) {
			t.Errorf("seedFingerprint(%q) = %s, want %x", words, got, sum)
		}
	}
}
