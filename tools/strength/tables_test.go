package strength

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"reflect"
	"testing"
)

var regenerate = flag.Bool("regenerate", false, "write "+wordTrieFile+" from the word lists (go generate) instead of checking it")

// encodeTrie writes the form decodeTrie reads.
func encodeTrie(t *trie) []byte {
	b := []byte(wordTrieMagic)
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(t.slots))
	b = le.AppendUint32(b, uint32(len(t.nodes)))
	b = le.AppendUint32(b, uint32(len(t.ranks)/t.slots))
	for _, n := range t.nodes {
		b = le.AppendUint32(b, n.children)
		b = le.AppendUint32(b, n.labelWord)
	}
	for _, r := range t.ranks {
		b = le.AppendUint16(b, r)
	}
	return b
}

// TestWordTrieIsCurrent fails when data/words.trie is not the trie of the
// word lists in data/; with -regenerate it writes that file instead.
func TestWordTrieIsCurrent(t *testing.T) {
	lists := make([][]string, len(dictionaryNames))
	for d, name := range dictionaryNames {
		words, err := readList(os.DirFS("."), "data/"+name+".txt.gz")
		if err != nil {
			t.Fatal(err)
		}
		lists[d] = words
	}
	want := encodeTrie(buildTrie(lists))
	if *regenerate {
		if err := os.WriteFile(wordTrieFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Parallel()
	if got := encodedWordTrie; got != string(want) {
		t.Fatalf("%s is stale (%d bytes, the lists give %d): run go generate ./tools/strength", wordTrieFile, len(got), len(want))
	}
}

func TestTrieRoundTrip(t *testing.T) {
	t.Parallel()
	tests := [][][]string{
		{{"a"}},
		{{"password", "pass", "passwort", "ünïcödé", "日本語"}, {"pass", "zz"}},
		{{"", "x"}},
	}
	for _, lists := range tests {
		built := buildTrie(lists)
		decoded, err := decodeTrie(string(encodeTrie(built)))
		if err != nil {
			t.Fatalf("%q: %v", lists, err)
		}
		if !reflect.DeepEqual(decoded, built) {
			t.Errorf("%q: decoded trie differs from the built one", lists)
		}
		for _, list := range lists {
			for _, w := range list {
				if id := decoded.lookup(w); w != "" && id < 0 {
					t.Errorf("%q: lookup(%q) = %d", lists, w, id)
				}
			}
		}
		if id := decoded.lookup("absent"); id >= 0 {
			t.Errorf("%q: lookup(absent) = %d", lists, id)
		}
	}
}

func TestDecodeTrieRejectsDamage(t *testing.T) {
	t.Parallel()
	good := encodeTrie(buildTrie([][]string{{"abc", "abd", "b"}}))
	header := len(wordTrieMagic) + 12
	tests := map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("x"), good[1:]...),
		"truncated": good[:len(good)-1],
		"child out of range": func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[header:], 1000<<childCountBits|3)
			return b
		}(),
		"word out of range": func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[header+4:], 1000)
			return b
		}(),
	}
	for name, b := range tests {
		if _, err := decodeTrie(string(b)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

// BenchmarkDecodeTables is the one-time cost of the first call.
func BenchmarkDecodeTables(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := decodeTables(); err != nil {
			b.Fatal(err)
		}
	}
}
