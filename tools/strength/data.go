package strength

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// The word lists and keyboard graphs come from zxcvbn 4.4.2 (MIT, Dropbox);
// see data/README.md. They are gzipped to keep the binary lean and decoded
// once, on first use.
//
//go:embed data/*.txt.gz data/adjacency_graphs.json
var dataFS embed.FS

// dictionaryNames lists the frequency lists in zxcvbn's order. The order is
// observable: among equally good matches over the same span the first wins.
var dictionaryNames = [...]string{
	"passwords", "english_wikipedia", "female_names", "surnames", "us_tv_and_film", "male_names",
}

const userInputsName = "user_inputs"

// graphNames lists the keyboard graphs in zxcvbn's order.
var graphNames = [...]string{"qwerty", "dvorak", "keypad", "mac_keypad"}

// keyGraph maps a key to its neighbours by direction; "" marks no neighbour.
// A neighbour string holds the unshifted character first, then the shifted one.
type keyGraph map[rune][]string

type tables struct {
	words        *trie // all frequency lists, one rank slot per dictionaryNames entry
	common       map[string]int
	commonList   []string
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
	lists := make([][]string, len(dictionaryNames))
	for d, name := range dictionaryNames {
		words, err := readList("data/" + name + ".txt.gz")
		if err != nil {
			return nil, err
		}
		lists[d] = words
	}
	t.words = buildTrie(lists)
	t.commonList = lists[0]
	t.common = make(map[string]int, len(lists[0]))
	for rank, w := range lists[0] {
		t.common[w] = rank + 1
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
		g := keyGraph{}
		for key, neighbours := range graphs[name] {
			keyRunes := []rune(key)
			if len(keyRunes) != 1 {
				return nil, fmt.Errorf("graph %s: bad key %q", name, key)
			}
			adj := make([]string, len(neighbours))
			for k, n := range neighbours {
				if n != nil {
					adj[k] = *n
				}
			}
			g[keyRunes[0]] = adj
		}
		t.graphs[gi] = g
	}
	t.keyboardAvg, t.keyboardKeys = averageDegree(t.graphs[0])
	t.keypadAvg, t.keypadKeys = averageDegree(t.graphs[2])
	return t, nil
}

func averageDegree(g keyGraph) (avg, keys float64) {
	total := 0
	for _, adj := range g {
		for _, n := range adj {
			if n != "" {
				total++
			}
		}
	}
	return float64(total) / float64(len(g)), float64(len(g))
}

func readList(name string) ([]string, error) {
	raw, err := dataFS.ReadFile(name)
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

// trie is a compact prefix tree over lower-cased words. Each node's edges are
// contiguous and sorted by rune, so a walk needs no allocation.
type trie struct {
	nodes []trieNode
	edges []trieEdge
	slots int     // rank slots per word (number of lists)
	ranks []int32 // ranks[word*slots+list]; 0 = word absent from that list
}

type trieNode struct {
	first, count int32 // edges[first : first+count]
	word         int32 // word index, or -1
}

type trieEdge struct {
	r     rune
	child int32
}

// buildTrie indexes lists of words; a word's rank in a list is its 1-based
// position there (the last occurrence when a list repeats a word, as zxcvbn).
func buildTrie(lists [][]string) *trie {
	type entry struct {
		key   []rune
		ranks []int32
	}
	index := map[string]*entry{}
	var entries []*entry
	for li, list := range lists {
		for pos, w := range list {
			e := index[w]
			if e == nil {
				e = &entry{key: []rune(w), ranks: make([]int32, len(lists))}
				index[w] = e
				entries = append(entries, e)
			}
			e.ranks[li] = int32(pos + 1)
		}
	}
	sort.Slice(entries, func(a, b int) bool { return lessRunes(entries[a].key, entries[b].key) })

	t := &trie{slots: len(lists)}
	t.nodes = append(t.nodes, trieNode{word: -1})
	keys := make([][]rune, len(entries))
	for k, e := range entries {
		keys[k] = e.key
		t.ranks = append(t.ranks, e.ranks...)
	}
	t.fill(0, keys, 0, len(keys), 0)
	return t
}

// fill builds the subtree of node for keys[lo:hi], which share their first
// depth runes and are sorted.
func (t *trie) fill(node int32, keys [][]rune, lo, hi, depth int) {
	if lo < hi && len(keys[lo]) == depth {
		t.nodes[node].word = int32(lo)
		lo++
	}
	type group struct{ lo, hi int }
	var groups []group
	for k := lo; k < hi; {
		end := k + 1
		for end < hi && keys[end][depth] == keys[k][depth] {
			end++
		}
		groups = append(groups, group{k, end})
		k = end
	}
	first := int32(len(t.edges))
	t.nodes[node].first, t.nodes[node].count = first, int32(len(groups))
	for _, g := range groups {
		t.nodes = append(t.nodes, trieNode{word: -1})
		t.edges = append(t.edges, trieEdge{r: keys[g.lo][depth], child: int32(len(t.nodes) - 1)})
	}
	for k, g := range groups {
		t.fill(t.edges[first+int32(k)].child, keys, g.lo, g.hi, depth+1)
	}
}

// child returns the node reached from node over r, or -1.
func (t *trie) child(node int32, r rune) int32 {
	n := t.nodes[node]
	edges := t.edges[n.first : n.first+n.count]
	lo, hi := 0, len(edges)
	for lo < hi {
		mid := (lo + hi) / 2
		if edges[mid].r < r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(edges) && edges[lo].r == r {
		return edges[lo].child
	}
	return -1
}

func lessRunes(a, b []rune) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}
