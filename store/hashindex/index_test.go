package hashindex_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"secutil/store/hashindex"
)

func mustOpen(t testing.TB) *hashindex.Index {
	t.Helper()
	ix, _ := mustOpenPath(t)
	return ix
}

// mustOpenPath opens a new index in a temporary directory and returns its path too.
func mustOpenPath(t testing.TB) (*hashindex.Index, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hashes.db")
	ix, err := hashindex.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, path
}

func mustImport(t testing.TB, ix *hashindex.Index, list string, algorithms []string) hashindex.Stats {
	t.Helper()
	stats, err := ix.Import(context.Background(), strings.NewReader(list), algorithms, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

func mustLookup(t testing.TB, ix *hashindex.Index, digest string, algorithms []string) hashindex.Hit {
	t.Helper()
	hit, err := ix.Lookup(context.Background(), digest, algorithms)
	if err != nil {
		t.Fatal(err)
	}
	return hit
}

// Digests of "password".
var passwordDigests = []struct{ algorithm, digest string }{
	{"md5", "5f4dcc3b5aa765d61d8327deb882cf99"},
	{"sha1", "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"},
	{"sha256", "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"},
	{"sha512", "b109f3bbbc244eb82441917ed06d618b9008dd09b3befd1b5e07394c706a8bb980b1d7785e5976ec049b46df5f1326af5a2ea6d103fd07c95385ffab0cacbc86"},
	{"ntlm", "8846f7eaee8fb117ad06bdd830b7586c"},
}

func TestImportThenLookup(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	list := "password\r\n\nletmein\n" + strings.Repeat("x", hashindex.MaxWordBytes+1) + "\n" +
		strings.Repeat("y", 100_000) + "\nlast-line-without-newline"
	stats := mustImport(t, ix, list, nil)
	if got, want := stats, (hashindex.Stats{Words: 3, NewWords: 3, Entries: 15, Skipped: 2, Bytes: int64(len(list)), Duration: stats.Duration}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, tc := range passwordDigests {
		for _, digest := range []string{tc.digest, strings.ToUpper(tc.digest)} {
			hit := mustLookup(t, ix, digest, nil)
			if got, want := hit, (hashindex.Hit{Hash: digest, Plaintext: "password", Algorithm: tc.algorithm, Found: true}); got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		}
	}
	if hit := mustLookup(t, ix, "00000000000000000000000000000000", nil); hit.Found {
		t.Fatalf("got %+v, want a miss", hit)
	}
	// The md5 digest of "password" is not an ntlm digest.
	if hit := mustLookup(t, ix, passwordDigests[0].digest, []string{"ntlm"}); hit.Found {
		t.Fatalf("got %+v, want a miss", hit)
	}
	entries, size, err := ix.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries, int64(15); got != want {
		t.Fatalf("entries: got %d, want %d", got, want)
	}
	if size <= 0 {
		t.Fatalf("size: got %d, want > 0", size)
	}
}

func TestReimportAddsNothing(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	mustImport(t, ix, "password\nletmein\nletmein\n", nil)
	stats := mustImport(t, ix, "letmein\npassword\n", nil)
	if got, want := [2]int64{stats.NewWords, stats.Entries}, [2]int64{0, 0}; got != want {
		t.Fatalf("new words, entries: got %v, want %v", got, want)
	}
	entries, _, err := ix.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries, int64(10); got != want {
		t.Fatalf("entries: got %d, want %d", got, want)
	}
}

func TestImportSubsetThenMore(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	if got, want := mustImport(t, ix, "password\n", []string{"md5"}).Entries, int64(2); got != want {
		t.Fatalf("entries: got %d, want %d (md5 and the sha256 word key)", got, want)
	}
	if hit := mustLookup(t, ix, passwordDigests[1].digest, nil); hit.Found {
		t.Fatalf("sha1 not imported yet, got %+v", hit)
	}
	stats := mustImport(t, ix, "password\n", []string{"SHA1"})
	if got, want := [2]int64{stats.NewWords, stats.Entries}, [2]int64{0, 1}; got != want {
		t.Fatalf("new words, entries: got %v, want %v", got, want)
	}
	if hit := mustLookup(t, ix, passwordDigests[1].digest, nil); !hit.Found {
		t.Fatalf("got %+v, want sha1 found", hit)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	ctx := context.Background()
	var invalid *hashindex.InvalidDigestError
	for _, digest := range []string{"", "xyz", "abc", "5f4dcc3b5aa765d61d8327deb882cf9"} {
		if _, err := ix.Lookup(ctx, digest, nil); !errors.As(err, &invalid) {
			t.Fatalf("Lookup(%q): got %v, want InvalidDigestError", digest, err)
		}
	}
	var unknown *hashindex.UnknownAlgorithmError
	if _, err := ix.Lookup(ctx, passwordDigests[0].digest, []string{"md6"}); !errors.As(err, &unknown) {
		t.Fatalf("got %v, want UnknownAlgorithmError", err)
	}
	if _, err := ix.Import(ctx, strings.NewReader("x"), []string{"md6"}, nil); !errors.As(err, &unknown) {
		t.Fatalf("got %v, want UnknownAlgorithmError", err)
	}
	if _, err := ix.LookupMany(ctx, make([]string, hashindex.MaxLookupBatch+1)); !errors.Is(err, hashindex.ErrTooManyDigests) {
		t.Fatalf("got %v, want ErrTooManyDigests", err)
	}
}

func TestLookupMany(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	mustImport(t, ix, "password\n", nil)
	digests := []string{passwordDigests[4].digest, "00000000000000000000000000000000000000000000000000000000000000ff", passwordDigests[3].digest}
	hits, err := ix.LookupMany(context.Background(), digests)
	if err != nil {
		t.Fatal(err)
	}
	want := []hashindex.Hit{
		{Hash: digests[0], Plaintext: "password", Algorithm: "ntlm", Found: true},
		{Hash: digests[1]},
		{Hash: digests[2], Plaintext: "password", Algorithm: "sha512", Found: true},
	}
	if len(hits) != len(want) {
		t.Fatalf("got %d hits, want %d", len(hits), len(want))
	}
	for i := range want {
		if hits[i] != want[i] {
			t.Fatalf("hit %d: got %+v, want %+v", i, hits[i], want[i])
		}
	}
}

func TestImportCancelKeepsCommittedBatches(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	hashindex.SetBatchWords(ix, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// 20 batches; each word is indexed under md5 and sha256 (always).
	const words, entriesPerWord = 200, 2
	list := strings.Join(wordlist(words), "\n")
	_, err := ix.Import(ctx, strings.NewReader(list), []string{"md5"}, func(hashindex.Progress) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	entries, _, err := ix.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if entries == 0 || entries >= words*entriesPerWord {
		t.Fatalf("entries: got %d, want some but not all batches", entries)
	}
	// A re-import after the interruption completes the index (in one batch: its batches
	// are not what is tested).
	hashindex.SetBatchWords(ix, words)
	stats := mustImport(t, ix, list, []string{"md5"})
	if got, want := stats.Entries+entries, int64(words*entriesPerWord); got != want {
		t.Fatalf("entries after re-import: got %d, want %d", got, want)
	}
}

func TestLookupDuringImport(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	hashindex.SetBatchWords(ix, 100)
	mustImport(t, ix, "password\n", nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				hits, err := ix.LookupMany(ctx, []string{passwordDigests[0].digest, passwordDigests[2].digest})
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				if !hits[0].Found || !hits[1].Found {
					t.Errorf("got %+v, want both found", hits)
					return
				}
			}
		})
	}
	// 8 batches under md5 and sha256, the algorithms looked up: the 7th makes the runs of
	// each, password's among them, merge. The other three would only add run files to sync
	// while the lookups spin.
	mustImport(t, ix, strings.Join(wordlist(800), "\n"), []string{"md5"})
	cancel()
	wg.Wait()
}

func TestEnsureSeeded(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	ctx := context.Background()
	seed := []string{"password", "123456", "qwerty"}
	for range 2 {
		if err := ix.EnsureSeeded(ctx, seed); err != nil {
			t.Fatal(err)
		}
	}
	entries, _, err := ix.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries, int64(15); got != want {
		t.Fatalf("entries: got %d, want %d", got, want)
	}
	if hit := mustLookup(t, ix, passwordDigests[4].digest, nil); !hit.Found {
		t.Fatalf("got %+v, want found", hit)
	}
}

func TestReopenKeepsIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hashes.db")
	ix, err := hashindex.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustImport(t, ix, "password\n", nil)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = hashindex.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if hit := mustLookup(t, ix, passwordDigests[0].digest, nil); !hit.Found {
		t.Fatalf("got %+v, want found", hit)
	}
}

func FuzzLookup(f *testing.F) {
	ix := mustOpen(f)
	mustImport(f, ix, "password\n", nil)
	for _, tc := range passwordDigests {
		f.Add(tc.digest)
	}
	f.Add("zz")
	f.Add(" 5f4dcc3b5aa765d61d8327deb882cf99\n")
	f.Fuzz(func(t *testing.T, digest string) {
		hit, err := ix.Lookup(context.Background(), digest, nil)
		var invalid *hashindex.InvalidDigestError
		if err != nil && !errors.As(err, &invalid) {
			t.Fatalf("unexpected error %v", err)
		}
		if hit.Found && hit.Plaintext != "password" {
			t.Fatalf("got %+v from an index holding only password", hit)
		}
	})
}

// A re-import finds stored words both by scanning a run (a batch as large as the index)
// and by seeking key by key (a few words against a large index).
func TestReimportFindsStoredWordsByScanAndSeek(t *testing.T) {
	t.Parallel()
	ix := mustOpen(t)
	words := wordlist(5000)
	first := mustImport(t, ix, strings.Join(words, "\n"), nil)
	for _, tc := range []struct {
		name string
		list []string
	}{
		{"scan", append(slices.Clone(words), "brand-new-1")},
		{"seek", []string{words[0], words[2500], words[4999], "brand-new-2"}},
	} {
		stats := mustImport(t, ix, strings.Join(tc.list, "\n"), nil)
		if got, want := [2]int64{stats.NewWords, stats.Entries}, [2]int64{1, 5}; got != want {
			t.Fatalf("%s: new words, entries: got %v, want %v", tc.name, got, want)
		}
	}
	entries, _, err := ix.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries, first.Entries+10; got != want {
		t.Fatalf("entries: got %d, want %d", got, want)
	}
	for _, w := range []string{words[1234], "brand-new-1", "brand-new-2"} {
		if hit := mustLookup(t, ix, hex.EncodeToString(sumSHA1(w)), nil); hit.Plaintext != w {
			t.Fatalf("got %+v, want %q", hit, w)
		}
	}
}

func sumSHA1(w string) []byte { d := sha1.Sum([]byte(w)); return d[:] }

// TestHoldsDigestsOf: the digest sizes of MD5 and NTLM, SHA-1, SHA-256 and
// SHA-512 can be looked up, and no other.
func TestHoldsDigestsOf(t *testing.T) {
	t.Parallel()
	for size := range 100 {
		want := size == 16 || size == 20 || size == 32 || size == 64
		if got := hashindex.HoldsDigestsOf(size); got != want {
			t.Errorf("HoldsDigestsOf(%d) = %v, want %v", size, got, want)
		}
	}
}
