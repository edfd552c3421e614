package main

import (
	"bufio"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/store/hashindex"
)

// benchWord is line i of the deterministic benchmark wordlist: one or two syllables,
// sometimes capitalised, and a six-character base-36 tail that is a permutation of i, so
// the lines are distinct words (for i < 36^6) of 8 to 18 bytes, 10.5 on average. Every
// 50th line repeats the line 49 before it, as real lists repeat words.
func benchWord(i int64) string {
	if i%50 == 49 {
		i -= 49
	}
	syllables := [...]string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "ban", "dor", "fel", "gim",
		"har", "jon", "kel", "mar", "nor", "pet", "qui", "ros", "sun", "tor", "wen", "zar", "love", "star", "dragon"}
	const span = 36 * 36 * 36 * 36 * 36 * 36
	x := uint64(i) * 2654435761 % span // a bijection on [0, 36^6): the factor is prime to 36
	h := x * 0x9e3779b97f4a7c15
	var b strings.Builder
	for s := range 1 + h>>63 {
		syl := syllables[h>>(8*s)%uint64(len(syllables))]
		if s == 0 && h>>40&3 == 0 {
			syl = strings.ToUpper(syl[:1]) + syl[1:]
		}
		b.WriteString(syl)
	}
	tail := strconv.FormatUint(x, 36)
	b.WriteString(strings.Repeat("0", 6-len(tail)) + tail)
	return b.String()
}

// writeBenchList writes lines 0 to n-1 of the benchmark wordlist to path.
func writeBenchList(t testing.TB, path string, n int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		w.WriteString(benchWord(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBenchWordsAreDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]int64{}
	for i := range int64(200_000) {
		w := benchWord(i)
		if j, ok := seen[w]; ok && i%50 != 49 {
			t.Fatalf("lines %d and %d are both %q", j, i, w)
		}
		seen[w] = i
		if len(w) < 8 || len(w) > 18 {
			t.Fatalf("line %d: %q", i, w)
		}
	}
}

// distinctWords counts the distinct words of lines [0, n): every 50th line repeats one.
func distinctWords(n int64) int64 { return n - n/50 }

func hexMD5(w string) string    { d := md5.Sum([]byte(w)); return hex.EncodeToString(d[:]) }
func hexSHA256(w string) string { d := sha256.Sum256([]byte(w)); return hex.EncodeToString(d[:]) }

func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := hashindex.Progress{Words: 500_000, NewWords: 400_000, Entries: 2_000_000, Bytes: 5_000_000, Duration: 2 * time.Second}
	for _, tc := range []struct {
		size int64
		want string
	}{
		{20_000_000, "500000 words, 400000 new, 2000000 entries, 250000 words/s, 25.0%, ETA 6s"},
		{-1, "500000 words, 400000 new, 2000000 entries, 250000 words/s"}, // standard input: no ETA
	} {
		if got := progressLine(p, tc.size); got != tc.want {
			t.Errorf("size %d: got %q, want %q", tc.size, got, tc.want)
		}
	}
}
