package hashindex

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	//lint:ignore SA1019 NTLM is MD4 of the UTF-16 password: the index must compute it to answer NTLM lookups
	"golang.org/x/crypto/md4"

	"secutil/tools/hashgen"
)

// Algorithms is the default set of unsalted digests the index holds.
// Import accepts any subset; sha256 is always indexed because it is how an
// import recognises words the index already stores (see docs/HASHINDEX.md).
var Algorithms = []string{"md5", "sha1", "sha256", "sha512", "ntlm"}

// algorithm describes one digest the index can reverse.
type algorithm struct {
	name string
	bit  algorithmSet // this algorithm's bit in a word's record of indexed algorithms
	size int          // digest length in bytes
	sum  func(word []byte) []byte
	// newKeyer returns a function computing prefixKey(sum(word)) that reuses its
	// buffers, for one goroutine: an import computes one key per word and algorithm.
	newKeyer func() func(word []byte) uint64
}

// index is the algorithm's position in algorithmList.
func (a *algorithm) index() int { return bits.TrailingZeros8(uint8(a.bit)) }

// algorithmSet is a set of algorithms, one bit each.
type algorithmSet uint8

var (
	md5Algorithm = &algorithm{name: "md5", bit: 1 << 0, size: md5.Size,
		sum:      func(w []byte) []byte { d := md5.Sum(w); return d[:] },
		newKeyer: stateless(func(w []byte) uint64 { d := md5.Sum(w); return prefixKey(d[:]) })}
	sha1Algorithm = &algorithm{name: "sha1", bit: 1 << 1, size: sha1.Size,
		sum:      func(w []byte) []byte { d := sha1.Sum(w); return d[:] },
		newKeyer: stateless(func(w []byte) uint64 { d := sha1.Sum(w); return prefixKey(d[:]) })}
	sha256Algorithm = &algorithm{name: "sha256", bit: 1 << 2, size: sha256.Size,
		sum:      func(w []byte) []byte { d := sha256.Sum256(w); return d[:] },
		newKeyer: stateless(wordID)}
	sha512Algorithm = &algorithm{name: "sha512", bit: 1 << 3, size: sha512.Size,
		sum:      func(w []byte) []byte { d := sha512.Sum512(w); return d[:] },
		newKeyer: stateless(func(w []byte) uint64 { d := sha512.Sum512(w); return prefixKey(d[:]) })}
	ntlmAlgorithm = &algorithm{name: "ntlm", bit: 1 << 4, size: md4.Size, sum: hashgen.NTLM, newKeyer: newNTLMKeyer}
)

func stateless(key func([]byte) uint64) func() func([]byte) uint64 {
	return func() func([]byte) uint64 { return key }
}

// wordID is a word's sha256 key, by which an import finds the words already stored.
func wordID(word []byte) uint64 {
	d := sha256.Sum256(word)
	return prefixKey(d[:])
}

// newNTLMKeyer computes the key of hashgen.NTLM (MD4 of the UTF-16LE text) without
// allocating: a word whose UTF-16 form fits one MD4 block (27 units, nearly every word)
// is hashed by md4Block; a longer one by a reused MD4 state.
func newNTLMKeyer() func([]byte) uint64 {
	h := md4.New()
	var le, sum []byte
	return func(word []byte) uint64 {
		le = le[:0]
		for _, r := range string(word) { // invalid UTF-8 becomes U+FFFD, as in hashgen.NTLM
			if r < utf8.RuneSelf {
				le = append(le, byte(r), 0)
				continue
			}
			for _, u := range utf16.AppendRune(nil, r) {
				le = binary.LittleEndian.AppendUint16(le, u)
			}
		}
		if len(le) <= md4OneBlock {
			a, b := md4Block(le)
			return (uint64(bits.ReverseBytes32(a))<<32 | uint64(bits.ReverseBytes32(b))) &^ (1<<(64-keyBits) - 1)
		}
		h.Reset()
		h.Write(le)
		sum = h.Sum(sum[:0])
		return prefixKey(sum)
	}
}

// md4OneBlock is the longest message MD4 pads into one 64-byte block.
const md4OneBlock = 55

// md4Block returns the first two words (a, b) of the MD4 state after hashing msg, which
// is at most md4OneBlock bytes: the first 8 bytes of the digest, little-endian each.
func md4Block(msg []byte) (uint32, uint32) {
	var block [64]byte
	copy(block[:], msg)
	block[len(msg)] = 0x80
	binary.LittleEndian.PutUint64(block[56:], uint64(len(msg))*8)
	var x [16]uint32
	for i := range x {
		x[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	a, b, c, d := uint32(0x67452301), uint32(0xefcdab89), uint32(0x98badcfe), uint32(0x10325476)
	a0, b0 := a, b
	for i := 0; i < 16; i += 4 {
		a = bits.RotateLeft32(a+(b&c|^b&d)+x[i], 3)
		d = bits.RotateLeft32(d+(a&b|^a&c)+x[i+1], 7)
		c = bits.RotateLeft32(c+(d&a|^d&b)+x[i+2], 11)
		b = bits.RotateLeft32(b+(c&d|^c&a)+x[i+3], 19)
	}
	for i := range 4 {
		a = bits.RotateLeft32(a+(b&c|b&d|c&d)+x[i]+0x5a827999, 3)
		d = bits.RotateLeft32(d+(a&b|a&c|b&c)+x[i+4]+0x5a827999, 5)
		c = bits.RotateLeft32(c+(d&a|d&b|a&b)+x[i+8]+0x5a827999, 9)
		b = bits.RotateLeft32(b+(c&d|c&a|d&a)+x[i+12]+0x5a827999, 13)
	}
	for _, i := range [4]int{0, 2, 1, 3} {
		a = bits.RotateLeft32(a+(b^c^d)+x[i]+0x6ed9eba1, 3)
		d = bits.RotateLeft32(d+(a^b^c)+x[i+8]+0x6ed9eba1, 9)
		c = bits.RotateLeft32(c+(d^a^b)+x[i+4]+0x6ed9eba1, 11)
		b = bits.RotateLeft32(b+(c^d^a)+x[i+12]+0x6ed9eba1, 15)
	}
	return a + a0, b + b0
}

var algorithmList = []*algorithm{md5Algorithm, sha1Algorithm, sha256Algorithm, sha512Algorithm, ntlmAlgorithm}

var algorithmsByName = func() map[string]*algorithm {
	m := make(map[string]*algorithm, len(algorithmList))
	for _, a := range algorithmList {
		m[a.name] = a
	}
	return m
}()

// keyBits of a digest's prefix make its index key. 48 bits keep an entry at 10 bytes and
// still make a stray match rare (a miss meets another word's key with a chance of N / 2^48
// in a run of N entries); every candidate is rehashed and compared anyway.
const keyBits = 48

// prefixKey is the index key of a digest: its first keyBits bits as the top bits of an
// unsigned integer (the low bits zero), so keys compare as digests do.
func prefixKey(digest []byte) uint64 {
	return binary.BigEndian.Uint64(digest[:8]) &^ (1<<(64-keyBits) - 1)
}
