package strength

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
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
//go:embed data/passwords.txt.gz data/adjacency_graphs.json
var dataFS embed.FS

// encodedWordTrie is data/words.trie; a string, so that it is decoded
// straight from the binary's read-only data.
//
//go:generate go test -run TestWordTrieIsCurrent -regenerate .
//go:embed data/words.trie
var encodedWordTrie string

const (
	wordTrieFile  = "data/words.trie"
	passwordsFile = "data/passwords.txt.gz"
)

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
	keys     int
}

// neighbour returns the direction in which to is next to from, and whether
// it is typed unshifted (0) or shifted (1); direction -1 means not adjacent.
func (g *keyGraph) neighbour(from, to rune) (direction, shifted int) {
	if from < 0 || from >= 128 || to <= 0 || to >= 128 {
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
	words        *trie // all frequency lists, one rank slot per dictionaryNames entry
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
	if t.words.slots != len(dictionaryNames) {
		return nil, fmt.Errorf("%s: %d lists, want %d", wordTrieFile, t.words.slots, len(dictionaryNames))
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

// readList reads a gzipped list of one word a line.
func readList(fsys fs.FS, name string) ([]string, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var words []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		words = append(words, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return words, nil
}

// trie is a compact prefix tree over the UTF-8 bytes of lower-cased words.
// The children of a node are contiguous and sorted, and each node holds the
// byte leading to it, so finding a child reads the children's 8-byte
// records, usually one cache line that also holds the child found; the
// root's children are a direct table. A walk allocates nothing.
type trie struct {
	nodes []trieNode
	root  [256]int32 // child of the root by byte, or -1
	slots int        // rank slots per word (number of lists)
	ranks []uint16   // ranks[word*slots+list]; 0 = word absent from that list
}

type trieNode struct {
	children  uint32 // first child << childCountBits | number of children
	labelWord uint32 // the byte leading here << 24 | 1 + index of the word ending here, or 0
}

func (n trieNode) label() byte { return byte(n.labelWord >> 24) }

// word returns the index of the word ending at n, or -1.
func (n trieNode) word() int32 { return int32(n.labelWord&(1<<24-1)) - 1 }

const (
	childCountBits = 9 // up to 256 children
	maxTrieNodes   = 1 << (32 - childCountBits)
	maxTrieWords   = 1<<24 - 1
)

// maxRank is the largest rank a trie holds.
const maxRank = math.MaxUint16

// buildTrie indexes lists of words; a word's rank in a list is its 1-based
// position there (the last occurrence when a list repeats a word, as
// zxcvbn). Lists longer than maxRank or words beyond maxTrieNodes nodes are
// build defects: callers bound what they index.
func buildTrie(lists [][]string) *trie {
	t := &trie{slots: len(lists)}
	ids := map[string]int32{}
	var words []string
	for li, list := range lists {
		if len(list) > maxRank {
			panic("strength: word list too long for the trie")
		}
		for pos, w := range list {
			id, ok := ids[w]
			if !ok {
				id = int32(len(words))
				ids[w] = id
				words = append(words, w)
				t.ranks = append(t.ranks, make([]uint16, t.slots)...)
			}
			t.ranks[int(id)*t.slots+li] = uint16(pos + 1)
		}
	}
	if len(words) > maxTrieWords {
		panic("strength: too many words for the trie")
	}
	order := make([]int32, len(words))
	for k := range order {
		order[k] = int32(k)
	}
	sort.Slice(order, func(x, y int) bool { return words[order[x]] < words[order[y]] })
	keys := make([]string, len(order))
	for k, id := range order {
		keys[k] = words[id]
	}
	t.nodes = append(t.nodes, trieNode{})
	t.fill(0, keys, order, 0, len(keys), 0)
	if len(t.nodes) > maxTrieNodes {
		panic("strength: too many trie nodes")
	}
	t.indexRoot()
	return t
}

func (t *trie) indexRoot() {
	for b := range t.root {
		t.root[b] = t.scanChildren(0, byte(b))
	}
}

// wordTrieMagic starts the encoded form of a trie: the magic, then
// little-endian uint32 slots, node count and word count, each node's
// children and labelWord as uint32s, and the ranks as uint16s.
const wordTrieMagic = "strength trie 1\n"

// decodeTrie reads a trie's encoded form, checking that every walk stays
// inside it.
func decodeTrie(b string) (*trie, error) {
	const header = len(wordTrieMagic) + 3*4
	if len(b) < header || b[:len(wordTrieMagic)] != wordTrieMagic {
		return nil, errors.New("not an encoded trie")
	}
	p := b[len(wordTrieMagic):]
	slots, nodeCount, wordCount := int(uint32At(p, 0)), int(uint32At(p, 4)), int(uint32At(p, 8))
	p = p[12:]
	if nodeCount < 1 || nodeCount > maxTrieNodes || wordCount > maxTrieWords || slots < 1 || slots > 64 ||
		len(p) != nodeCount*8+wordCount*slots*2 {
		return nil, errors.New("bad trie size")
	}
	t := &trie{slots: slots, nodes: make([]trieNode, nodeCount), ranks: make([]uint16, wordCount*slots)}
	for k := range t.nodes {
		n := trieNode{children: uint32At(p, 8*k), labelWord: uint32At(p, 8*k+4)}
		first, count := int(n.children>>childCountBits), int(n.children&(1<<childCountBits-1))
		if first+count > nodeCount || (count > 0 && first <= k) || int(n.word()) >= wordCount {
			return nil, fmt.Errorf("bad trie node %d", k)
		}
		t.nodes[k] = n
	}
	p = p[8*nodeCount:]
	for k := range t.ranks {
		t.ranks[k] = uint16(p[2*k]) | uint16(p[2*k+1])<<8
	}
	t.indexRoot()
	return t, nil
}

// uint32At reads the little-endian uint32 at s[off:].
func uint32At(s string, off int) uint32 {
	s = s[off : off+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// lookup returns the index of word in t, or -1.
func (t *trie) lookup(word string) int32 {
	node := int32(0)
	for k := 0; k < len(word) && node >= 0; k++ {
		node = t.childByte(node, word[k])
	}
	if node <= 0 {
		return -1
	}
	return t.nodes[node].word()
}

// fill builds the subtree of node for keys[lo:hi], which are sorted,
// distinct and share their first offset bytes; ids[k] is the word index of
// keys[k].
func (t *trie) fill(node int32, keys []string, ids []int32, lo, hi, offset int) {
	if lo < hi && len(keys[lo]) == offset {
		t.nodes[node].labelWord |= uint32(ids[lo] + 1)
		lo++
	}
	first := len(t.nodes)
	for k := lo; k < hi; k = groupEnd(keys, k, hi, offset) {
		t.nodes = append(t.nodes, trieNode{labelWord: uint32(keys[k][offset]) << 24})
	}
	t.nodes[node].children = uint32(first)<<childCountBits | uint32(len(t.nodes)-first)
	child := int32(first)
	for k := lo; k < hi; child++ {
		end := groupEnd(keys, k, hi, offset)
		t.fill(child, keys, ids, k, end, offset+1)
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

// scanChildren finds node's child over b in its sorted children.
func (t *trie) scanChildren(node int32, b byte) int32 {
	children := t.nodes[node].children
	first := int32(children >> childCountBits)
	kids := t.nodes[first : first+int32(children&(1<<childCountBits-1))]
	for k := range kids {
		switch label := kids[k].label(); {
		case label == b:
			return first + int32(k)
		case label > b:
			return -1
		}
	}
	return -1
}

// wordRanks returns the ranks of word w, one per list.
func (t *trie) wordRanks(w int32) []uint16 {
	return t.ranks[int(w)*t.slots : int(w+1)*t.slots]
}
