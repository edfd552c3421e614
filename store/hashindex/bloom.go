package hashindex

import "math/bits"

// Every run file carries a Bloom filter of its keys, so that "is this key in the run?" is
// answered for most keys without reading the run: an import asks it of every sha256 run for
// every word (to find the words already stored), a lookup of every run of an algorithm.
//
// The filter is blocked: a key sets bloomProbes bits of one 64-byte block (one cache line),
// so a question costs one memory read. The block is chosen by the key's top bits, so keys
// in order touch blocks in order: a merge writes its filter as it writes its entries, and a
// sorted batch of questions walks the filter front to back.
const (
	bloomBlockBytes   = 64
	bloomBitsPerEntry = 10 // about 1 % false positives
	bloomProbes       = 7  // 9 bits of the mixed key each
)

// bloomBlocks is the number of blocks of a run of n entries.
func bloomBlocks(n int64) int64 {
	return max(1, (n*bloomBitsPerEntry+bloomBlockBytes*8-1)/(bloomBlockBytes*8))
}

// bloomBlock is the block of key among blocks: the key's position in the key space, scaled.
func bloomBlock(key uint64, blocks int64) int64 {
	hi, _ := bits.Mul64(key, uint64(blocks))
	return int64(hi)
}

// bloomMix spreads the key's bits so each probe gets independent-looking bits
// (the finaliser of splitmix64).
func bloomMix(key uint64) uint64 {
	key = (key ^ key>>30) * 0xbf58476d1ce4e5b9
	key = (key ^ key>>27) * 0x94d049bb133111eb
	return key ^ key>>31
}

func bloomSet(block []byte, key uint64) {
	h := bloomMix(key)
	for range bloomProbes {
		block[h>>3&63] |= 1 << (h & 7)
		h >>= 9
	}
}

// bloomFilter is a run's filter: bloomBlocks(entries) blocks.
type bloomFilter []byte

// mayContain is false when key is certainly not in the run.
func (f bloomFilter) mayContain(key uint64) bool {
	b := bloomBlock(key, int64(len(f)/bloomBlockBytes)) * bloomBlockBytes
	block := f[b : b+bloomBlockBytes]
	h := bloomMix(key)
	for range bloomProbes {
		if block[h>>3&63]&(1<<(h&7)) == 0 {
			return false
		}
		h >>= 9
	}
	return true
}
