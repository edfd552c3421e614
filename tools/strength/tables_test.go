package strength

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "write "+wordTrieFile+" from the word lists (go generate) instead of checking it")

// encodeTrie writes the form decodeTrie reads.
func encodeTrie(t *trie) []byte {
	b := []byte(wordTrieMagic)
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(t.lists))
	b = le.AppendUint32(b, uint32(len(t.nodes)))
	for _, n := range t.nodes {
		b = le.AppendUint32(b, n.children)
		b = le.AppendUint32(b, n.entry)
	}
	return b
}

// TestWordTrieIsCurrent fails when data/words.trie is not the trie of the
// word lists in data/; with -update it writes that file instead.
func TestWordTrieIsCurrent(t *testing.T) {
	lists := make([][]string, len(dictionaryNames))
	for d, name := range dictionaryNames {
		gz, err := os.ReadFile("data/" + name + ".txt.gz")
		if err != nil {
			t.Fatal(err)
		}
		words, err := decodeList(string(gz))
		if err != nil {
			t.Fatal(err)
		}
		lists[d] = words
	}
	want := encodeTrie(buildTrie(lists))
	if *update {
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
	type found struct {
		list int
		rank int32
	}
	tests := []struct {
		lists [][]string
		want  map[string]found // words looked up; absent ones want rank 0
	}{
		{[][]string{{"a"}}, map[string]found{"a": {0, 1}, "b": {}, "": {}}},
		{
			[][]string{{"password", "pass", "passwort", "ünïcödé", "日本語", "pass"}, {"passe", "zz"}},
			map[string]found{"pass": {0, 6}, "password": {0, 1}, "passe": {1, 1}, "zz": {1, 2}, "日本語": {0, 5}, "日本": {}, "passwords": {}},
		},
		{[][]string{{"", "x"}}, map[string]found{"x": {0, 2}}},
	}
	for _, tt := range tests {
		built := buildTrie(tt.lists)
		decoded, err := decodeTrie(string(encodeTrie(built)))
		if err != nil {
			t.Fatalf("%q: %v", tt.lists, err)
		}
		if !reflect.DeepEqual(decoded, built) {
			t.Errorf("%q: decoded trie differs from the built one", tt.lists)
		}
		for word, want := range tt.want {
			if list, rank := decoded.lookup(word); list != want.list || rank != want.rank {
				t.Errorf("%q: lookup(%q) = %d, %d; want %d, %d", tt.lists, word, list, rank, want.list, want.rank)
			}
		}
	}
}

// TestChildFindsEveryChild: in the word trie, the child lookup (eight
// labels at a time) finds every node's every child, and no child over a
// byte none of them has, whatever the node's width.
func TestChildFindsEveryChild(t *testing.T) {
	t.Parallel()
	words := data().words
	for node := range words.nodes {
		n := words.nodes[node]
		first, count := int(n.children>>childCountBits), int(n.children&(1<<childCountBits-1))
		has := [256]bool{}
		for k := first; k < first+count; k++ {
			label := words.nodes[k].label()
			has[label] = true
			if got := words.childByte(int32(node), label); got != int32(k) {
				t.Fatalf("node %d, byte %q: child %d, want %d", node, label, got, k)
			}
		}
		if count < 8 && node%16 != 0 {
			continue // every byte is tried on the wide nodes and a sixteenth of the others
		}
		for b := range 256 {
			if !has[b] {
				if got := words.childByte(int32(node), byte(b)); got != -1 {
					t.Fatalf("node %d (%d children), byte %#x: child %d, want none", node, count, b, got)
				}
			}
		}
	}
}

func TestBuildTrieRejectsAWordInTwoLists(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	buildTrie([][]string{{"pass"}, {"pass"}})
}

func TestDecodeTrieRejectsDamage(t *testing.T) {
	t.Parallel()
	good := encodeTrie(buildTrie([][]string{{"abc", "abd", "b"}}))
	node := func(k int) int { return len(wordTrieMagic) + 8 + 8*k }
	damaged := func(offset int, value uint32) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[offset:], value)
		return b
	}
	tests := map[string][]byte{
		"empty":              nil,
		"magic":              append([]byte("x"), good[1:]...),
		"truncated":          good[:len(good)-1],
		"too many lists":     damaged(len(wordTrieMagic), 1000),
		"child out of range": damaged(node(0), 1000<<childCountBits|3),
		"child before node":  damaged(node(1), 0<<childCountBits|1),
		"list out of range":  damaged(node(1)+4, 'a'<<24|5<<16|1),
	}
	for name, b := range tests {
		if _, err := decodeTrie(string(b)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	if _, err := decodeTrie(string(good)); err != nil {
		t.Errorf("undamaged: %v", err)
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
