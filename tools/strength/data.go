package strength

import (
	"compress/gzip"
	"embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// The word lists and keyboard graphs come from zxcvbn 4.4.2 (MIT, Dropbox);
// see data/README.md. The frequency lists are indexed ahead of time into
// data/words.trie, which only needs copying into memory on first use; the
// generator is TestWordTrieIsCurrent, which also fails when the file is
// stale. The common-password list is embedded as well, for
// CommonPasswords.
//
//go:embed data/adjacency_graphs.json
var dataFS embed.FS

// passwordsList is data/passwords.txt.gz; a string, so that decoding reads
// it in place from the binary.
//
//go:embed data/passwords.txt.gz
var passwordsList string

// encodedWordTrie is data/words.trie; a string, so that it is decoded
// straight from the binary's read-only data.
//
//go:generate go test -run TestWordTrieIsCurrent -update .
//go:embed data/words.trie
var encodedWordTrie string

const wordTrieFile = "data/words.trie"

// dictionaryNames lists the frequency lists in zxcvbn's order. The order is
// observable: among equally good matches over the same span the first wins.
var dictionaryNames = [...]string{
	"passwords", "english_wikipedia", "female_names", "surnames", "us_tv_and_film", "male_names",
}

const userInputsName = "user_inputs"

// graphNames lists the keyboard graphs in zxcvbn's order.
var graphNames = [...]string{"qwerty", "dvorak", "keypad", "mac_keypad"}

// keyGraph maps an ASCII key to its neighbours by direction. A neighbour
// holds the unshifted character first, then the shifted one (0 on the
// keypads); {0, 0} marks no neighbour.
type keyGraph struct {
	adjacent [128][][2]byte
	// near[from] has bit to set when to is one of adjacent[from]'s
	// characters: most pairs of a password are not neighbours, and the
	// bit says so without walking the directions.
	near [128][2]uint64
	keys int
}

// neighbour returns the direction in which to is next to from, and whether
// it is typed unshifted (0) or shifted (1); direction -1 means not adjacent.
func (g *keyGraph) neighbour(from, to rune) (direction, shifted int) {
	if from < 0 || from >= 128 || to <= 0 || to >= 128 || g.near[from][to>>6]&(1<<(to&63)) == 0 {
		return -1, 0
	}
	for dir, n := range g.adjacent[from] {
		switch byte(to) {
		case n[0]:
			return dir, 0
		case n[1]:
			return dir, 1
		}
	}
	return -1, 0
}

type tables struct {
	words        *trie // all frequency lists, list k being dictionaryNames[k]
	graphs       [len(graphNames)]keyGraph
	keyboardAvg  float64 // average degree of the qwerty graph
	keypadAvg    float64 // average degree of the keypad graph
	keyboardKeys float64 // starting positions on qwerty
	keypadKeys   float64 // starting positions on the keypad
}

var (
	loadOnce sync.Once
	loaded   *tables
)

// data returns the decoded tables, decoding them on first use. The embedded
// files are part of the binary, so a failure is a build defect: panic.
func data() *tables {
	loadOnce.Do(func() {
		t, err := decodeTables()
		if err != nil {
			panic("strength: embedded data: " + err.Error())
		}
		loaded = t
	})
	return loaded
}

func decodeTables() (*tables, error) {
	t := &tables{}
	var err error
	if t.words, err = decodeTrie(encodedWordTrie); err != nil {
		return nil, fmt.Errorf("%s: %w", wordTrieFile, err)
	}
	if t.words.lists != len(dictionaryNames) {
		return nil, fmt.Errorf("%s: %d lists, want %d", wordTrieFile, t.words.lists, len(dictionaryNames))
	}

	raw, err := dataFS.ReadFile("data/adjacency_graphs.json")
	if err != nil {
		return nil, err
	}
	var graphs map[string]map[string][]*string
	if err := json.Unmarshal(raw, &graphs); err != nil {
		return nil, err
	}
	for gi, name := range graphNames {
		g := &t.graphs[gi]
		for key, neighbours := range graphs[name] {
			if len(key) != 1 || key[0] == 0 || key[0] >= 128 {
				return nil, fmt.Errorf("graph %s: bad key %q", name, key)
			}
			adj := make([][2]byte, len(neighbours))
			for k, n := range neighbours {
				if n == nil {
					continue
				}
				if len(*n) < 1 || len(*n) > 2 || (*n)[0] == 0 || (*n)[0] >= 128 || (len(*n) == 2 && ((*n)[1] == 0 || (*n)[1] >= 128)) {
					return nil, fmt.Errorf("graph %s: bad neighbour %q of %q", name, *n, key)
				}
				copy(adj[k][:], *n)
				for _, c := range []byte(*n) {
					g.near[key[0]][c>>6] |= 1 << (c & 63)
				}
			}
			g.adjacent[key[0]] = adj
			g.keys++
		}
	}
	t.keyboardAvg, t.keyboardKeys = averageDegree(&t.graphs[0])
	t.keypadAvg, t.keypadKeys = averageDegree(&t.graphs[2])
	return t, nil
}

func averageDegree(g *keyGraph) (avg, keys float64) {
	total := 0
	for _, adj := range g.adjacent {
		for _, n := range adj {
			if n[0] != 0 {
				total++
			}
		}
	}
	return float64(total) / float64(g.keys), float64(g.keys)
}

// decodeList decodes a gzipped list of one word a line. The words are
// substrings of one string, sized from the gzip trailer, so decoding makes
// two allocations however long the list (a word at a time, with a slice
// that grows, touched a few hundred more pages at every server start).
func decodeList(gz string) ([]string, error) {
	zr, err := gzip.NewReader(strings.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	if len(gz) >= 4 { // the trailer's ISIZE: the decoded length mod 2^32
		text.Grow(min(int(binary.LittleEndian.Uint32([]byte(gz[len(gz)-4:]))), 64<<20))
	}
	if _, err := io.Copy(&text, zr); err != nil {
		return nil, err
	}
	if text.Len() == 0 {
		return nil, nil
	}
	return strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n"), nil
}

// trie is a compact prefix tree over the UTF-8 bytes of lower-cased words.
// The children of a node are contiguous and sorted, and each node holds the
// byte leading to it and the list and rank of the word ending there; the
// root's children are a direct table. A walk allocates nothing.
type trie struct {
	nodes []trieNode
	// labels[k] is the byte leading to node k (its entry's label), then
	// eight bytes of padding: finding a child compares the labels of eight
	// children at once (see scanChildren), instead of reading the
	// children's 8-byte records one by one (a node has 16 children on
	// average where the estimate looks, the first levels being wide).
	labels []byte
	root   [256]int32 // child of the root by byte, or -1
	lists  int
}

type trieNode struct {
	children uint32 // first child << childCountBits | number of children
	entry    uint32 // the byte leading here << 24 | the list << 16 | the rank of the word ending here (0: none)
}

func (n trieNode) label() byte { return byte(n.entry >> 24) }

// word returns the list and the rank of the word ending at n; rank 0 when
// none does.
func (n trieNode) word() (list int, rank int32) {
	return int(n.entry >> 16 & 0xff), int32(n.entry & 0xffff)
}

const (
	childCountBits = 9 // up to 256 children
	maxTrieNodes   = 1 << (32 - childCountBits)
	maxTrieLists   = 0xff
	maxRank        = 0xffff
)

// buildTrie indexes lists of words; a word's rank in its list is its
// 1-based position there (the last occurrence when a list repeats a word,
// as zxcvbn). A word may be in one list only (zxcvbn's lists are disjoint);
// that, too many lists, a list longer than maxRank or more than
// maxTrieNodes nodes are build defects: callers bound what they index.
func buildTrie(lists [][]string) *trie {
	if len(lists) > maxTrieLists {
		panic("strength: too many lists for the trie")
	}
	t := &trie{lists: len(lists)}
	entries := map[string]uint32{} // word -> list << 16 | rank
	var words []string
	for li, list := range lists {
		if len(list) > maxRank {
			panic("strength: word list too long for the trie")
		}
		for pos, w := range list {
			old, ok := entries[w]
			if !ok {
				words = append(words, w)
			} else if int(old>>16) != li {
				panic("strength: word in two lists: " + w)
			}
			entries[w] = uint32(li)<<16 | uint32(pos+1)
		}
	}
	sort.Strings(words)
	t.nodes = append(t.nodes, trieNode{})
	t.fill(0, words, entries, 0, len(words), 0)
	if len(t.nodes) > maxTrieNodes {
		panic("strength: too many trie nodes")
	}
	t.index()
	return t
}

// index fills the tables derived from the nodes: labels and root.
func (t *trie) index() {
	t.labels = make([]byte, len(t.nodes)+8)
	for k, n := range t.nodes {
		t.labels[k] = n.label()
	}
	for b := range t.root {
		t.root[b] = t.scanChildren(0, byte(b))
	}
}

// wordTrieMagic starts the encoded form of a trie: the magic, then
// little-endian uint32s: the number of lists, the number of nodes, and each
// node's children and entry.
const wordTrieMagic = "strength trie 2\n"

// decodeTrie reads a trie's encoded form, checking that every walk stays
// inside it.
func decodeTrie(b string) (*trie, error) {
	const header = len(wordTrieMagic) + 2*4
	if len(b) < header || b[:len(wordTrieMagic)] != wordTrieMagic {
		return nil, errors.New("not an encoded trie")
	}
	p := b[len(wordTrieMagic):]
	lists, nodeCount := int(uint32At(p, 0)), int(uint32At(p, 4))
	p = p[8:]
	if nodeCount < 1 || nodeCount > maxTrieNodes || lists > maxTrieLists || len(p) != nodeCount*8 {
		return nil, errors.New("bad trie size")
	}
	t := &trie{lists: lists, nodes: make([]trieNode, nodeCount)}
	for k := range t.nodes {
		n := trieNode{children: uint32At(p, 8*k), entry: uint32At(p, 8*k+4)}
		first, count := int(n.children>>childCountBits), int(n.children&(1<<childCountBits-1))
		if list, rank := n.word(); first+count > nodeCount || (count > 0 && first <= k) || (rank > 0 && list >= lists) {
			return nil, fmt.Errorf("bad trie node %d", k)
		}
		t.nodes[k] = n
	}
	t.index()
	return t, nil
}

// uint32At reads the little-endian uint32 at s[off:].
func uint32At(s string, off int) uint32 {
	s = s[off : off+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// lookup returns the list and rank of word in t; rank 0 when absent.
func (t *trie) lookup(word string) (list int, rank int32) {
	node := int32(0)
	for k := 0; k < len(word) && node >= 0; k++ {
		node = t.childByte(node, word[k])
	}
	if node <= 0 {
		return 0, 0
	}
	return t.nodes[node].word()
}

// fill builds the subtree of node for words[lo:hi], which are sorted,
// distinct and share their first offset bytes.
func (t *trie) fill(node int32, words []string, entries map[string]uint32, lo, hi, offset int) {
	if lo < hi && len(words[lo]) == offset {
		t.nodes[node].entry |= entries[words[lo]]
		lo++
	}
	first := len(t.nodes)
	for k := lo; k < hi; k = groupEnd(words, k, hi, offset) {
		t.nodes = append(t.nodes, trieNode{entry: uint32(words[k][offset]) << 24})
	}
	t.nodes[node].children = uint32(first)<<childCountBits | uint32(len(t.nodes)-first)
	child := int32(first)
	for k := lo; k < hi; child++ {
		end := groupEnd(words, k, hi, offset)
		t.fill(child, words, entries, k, end, offset+1)
		k = end
	}
}

// groupEnd returns the end of the run of keys from k that share the byte at
// offset.
func groupEnd(keys []string, k, hi, offset int) int {
	end := k + 1
	for end < hi && keys[end][offset] == keys[k][offset] {
		end++
	}
	return end
}

// child returns the node reached from node over r, or -1.
func (t *trie) child(node int32, r rune) int32 {
	if r >= 0 && r < utf8.RuneSelf {
		return t.childByte(node, byte(r))
	}
	var buf [utf8.UTFMax]byte
	for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
		if node = t.childByte(node, b); node < 0 {
			return -1
		}
	}
	return node
}

func (t *trie) childByte(node int32, b byte) int32 {
	if node == 0 {
		return t.root[b]
	}
	return t.scanChildren(node, b)
}

// scanChildren finds node's child over b in its sorted children, eight
// labels at a time: x, eight labels xor b repeated, has a zero byte where
// a label is b, and (x - 0x01…) &^ x & 0x80… marks the lowest zero byte
// exactly (a higher one may be marked falsely by the borrow, but the labels
// are distinct). A mark past the children is another node's label.
func (t *trie) scanChildren(node int32, b byte) int32 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	children := t.nodes[node].children
	first, count := int(children>>childCountBits), int(children&(1<<childCountBits-1))
	repeated := uint64(b) * ones
	for k := 0; k < count; k += 8 {
		x := binary.LittleEndian.Uint64(t.labels[first+k:]) ^ repeated
		if zero := (x - ones) &^ x & highs; zero != 0 {
			if at := k + bits.TrailingZeros64(zero)/8; at < count {
				return int32(first + at)
			}
			return -1
		}
	}
	return -1
}
