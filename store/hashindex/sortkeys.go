package hashindex

import (
	"math/bits"
	"slices"
)

// sortByKey sorts items by compare, which must order them by key first. It is fast for
// keys spread evenly over the uint64 range, as digest prefixes are: one counting pass
// distributes the items into buckets by the top bits of their key, and each bucket, a
// handful of items, is then sorted by compare. Uneven keys (a wordlist repeating one
// word) only make some buckets large, and slices.SortFunc keeps those O(n log n).
func sortByKey[T any](items []T, key func(T) uint64, compare func(a, b T) int) {
	if len(items) < 1024 {
		slices.SortFunc(items, compare)
		return
	}
	shift := 64 - min(max(bits.Len(uint(len(items)))-2, 8), 20)
	bucket := func(item T) uint64 { return key(item) >> shift }
	starts := make([]int, 1<<(64-shift)+1)
	for _, item := range items {
		starts[bucket(item)+1]++
	}
	for b := 1; b < len(starts); b++ {
		starts[b] += starts[b-1]
	}
	sorted := make([]T, len(items))
	next := slices.Clone(starts)
	for _, item := range items {
		b := bucket(item)
		sorted[next[b]] = item
		next[b]++
	}
	for b := 0; b+1 < len(starts); b++ {
		slices.SortFunc(sorted[starts[b]:starts[b+1]], compare)
	}
	copy(items, sorted)
}
