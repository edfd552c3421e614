package hashindex_test

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"secutil/internal/testpar"
	"secutil/store/hashindex"
)

// benchWords is the wordlist size of these in-process benchmarks: SECUTIL_BENCH_IMPORT_WORDS,
// 20,000 by default. The figures at scale come from the built binary: TestIndexBenchmark in
// package main (docs/BENCHMARKS.md).
func benchWords(b *testing.B) int {
	if s := os.Getenv("SECUTIL_BENCH_IMPORT_WORDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("SECUTIL_BENCH_IMPORT_WORDS=%q: want a positive integer", s)
		}
		return n
	}
	return 20_000
}

func BenchmarkImport(b *testing.B) {
	words := wordlist(benchWords(b))
	list := strings.Join(words, "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(list)))
	var stats hashindex.Stats
	var entries, size int64
	for i := 0; b.Loop(); i++ {
		ix, err := hashindex.Open(filepath.Join(b.TempDir(), fmt.Sprintf("import-%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if stats, err = ix.Import(context.Background(), strings.NewReader(list), nil, nil); err != nil {
			b.Fatal(err)
		}
		if entries, size, err = ix.Size(context.Background()); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
	b.ReportMetric(float64(stats.Words)/stats.Duration.Seconds(), "words/s")
	b.ReportMetric(float64(size)/float64(entries), "bytes/entry")
}

var shared struct {
	once    sync.Once
	dir     string
	ix      *hashindex.Index
	digests []string // half hits over all algorithms, half misses
	err     error
}

// sharedIndex builds one index of benchWords words for all lookup benchmarks.
func sharedIndex(b *testing.B) (*hashindex.Index, []string) {
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "hashindex-bench"); shared.err != nil {
			return
		}
		if shared.ix, shared.err = hashindex.Open(filepath.Join(shared.dir, "hashes.db")); shared.err != nil {
			return
		}
		words := wordlist(benchWords(b))
		if _, shared.err = shared.ix.Import(context.Background(), strings.NewReader(strings.Join(words, "\n")), nil, nil); shared.err != nil {
			return
		}
		for i, w := range words[:min(len(words), 5000)] {
			var d []byte
			switch i % 5 {
			case 0:
				s := md5.Sum([]byte(w))
				d = s[:]
			case 1:
				s := sha1.Sum([]byte(w))
				d = s[:]
			case 2:
				s := sha256.Sum256([]byte(w))
				d = s[:]
			case 3:
				s := sha512.Sum512([]byte(w))
				d = s[:]
			case 4: // a miss: md5 of a word not in the list, tried as md5 and ntlm
				s := md5.Sum([]byte(w + "\x00missing"))
				d = s[:]
			}
			shared.digests = append(shared.digests, hex.EncodeToString(d))
		}
	})
	if shared.err != nil {
		b.Fatal(shared.err)
	}
	return shared.ix, shared.digests
}

func TestMain(m *testing.M) {
	if path := os.Getenv(killedImportEnv); path != "" {
		runKilledImport(path)
	}
	if path := os.Getenv(openLoopEnv); path != "" {
		runOpenLoop(path)
	}
	testpar.Raise(4) // the imports wait for the disk's syncs
	code := m.Run()
	if shared.ix != nil {
		shared.ix.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func BenchmarkLookup(b *testing.B) {
	ix, digests := sharedIndex(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ix.Lookup(context.Background(), digests[i%len(digests)], nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLookupMany500(b *testing.B) {
	ix, digests := sharedIndex(b)
	batch := digests[:min(len(digests), hashindex.MaxLookupBatch)]
	b.ReportAllocs()
	for b.Loop() {
		hits, err := ix.LookupMany(context.Background(), batch)
		if err != nil {
			b.Fatal(err)
		}
		if !hits[0].Found {
			b.Fatalf("got %+v, want found", hits[0])
		}
	}
}
