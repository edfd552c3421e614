package breach

import (
	"bytes"
	"math/rand/v2"
	"strconv"
)

// The Pwned Passwords API pads an answer, when asked to, to a random number
// of lines in this range; real ranges hold about a thousand hashes.
const (
	MinPaddedLines = 800
	MaxPaddedLines = 1000
)

// crlf separates the lines of a range answer; the last line has none.
var crlf = []byte("\r\n")

// AppendRange appends to dst the answer the Pwned Passwords range API
// (GET /range/{prefix}) gives for the 5-hex prefix (case-insensitive): one
// line "SUFFIX:COUNT" for every hash of the file starting with the prefix,
// the suffix upper-cased, in hash order, separated by CRLF with none after
// the last. With pad, lines of random suffixes with count 0 are merged in,
// in order, until the answer holds a random 800 to 1,000 lines, so its size
// says nothing about the prefix; a range already that long gets none.
//
// Memory use is that of the answer: the file is read in place.
func (f *File) AppendRange(dst []byte, prefix string, pad bool) ([]byte, error) {
	start, lines := len(dst), 0
	countAt := f.kind.hexLen() - PrefixLen + len(":")
	err := f.eachInRange(prefix, func(entry []byte, count int64) {
		if lines > 0 {
			dst = append(dst, crlf...)
		}
		if entry[countAt] != '0' || len(entry) == countAt+1 {
			dst = append(dst, entry...) // the file's line as the answer's: no formatting
		} else {
			dst = append(dst, entry[:countAt]...) // leading zeros, dropped as the API does
			dst = strconv.AppendInt(dst, count, 10)
		}
		lines++
	})
	if err != nil {
		return dst[:start], err
	}
	if pad {
		if count := MinPaddedLines + rand.IntN(MaxPaddedLines-MinPaddedLines+1) - lines; count > 0 {
			dst = mergePadding(dst, start, lines, count, f.kind.hexLen()-PrefixLen, randomSuffixes(count))
		}
	}
	return dst, nil
}

// mergePadding merges count (> 0) count-0 lines from pads into the sorted answer
// in dst[start:], which holds lines real lines; pads yields the padding
// lines' suffixes in descending order. It works in place from the end, as
// a merge sort's last pass does: dst grows to its final length, and each
// step moves the greater of the last unplaced real line and the next
// padding line to the end of the unfilled space, which never overtakes the
// unread real lines.
func mergePadding(dst []byte, start, lines, count, suffixLen int, pads func(suffix []byte) bool) []byte {
	var padBuf [2*maxDigestLen + len(":0")]byte
	pad := padBuf[:suffixLen+len(":0")]
	copy(pad[suffixLen:], ":0")
	havePad := pads(pad[:suffixLen])

	realEnd := len(dst)
	grow := count*len(pad) + count*len(crlf)
	if lines == 0 {
		grow -= len(crlf)
	}
	dst = append(dst, make([]byte, grow)...)
	out := len(dst)
	put := func(line []byte) {
		out -= len(line)
		copy(dst[out:], line)
		if out > start {
			out -= len(crlf)
			copy(dst[out:], crlf)
		}
	}
	lineStart := -1 // where the last unplaced real line starts; -1: not yet found
	for havePad || realEnd > start {
		if realEnd == start {
			put(pad)
			havePad = pads(pad[:suffixLen])
			continue
		}
		if lineStart < 0 {
			lineStart = start
			if i := bytes.LastIndexByte(dst[start:realEnd], '\n'); i >= 0 {
				lineStart = start + i + 1
			}
		}
		last := dst[lineStart:realEnd]
		c := 1
		if havePad {
			c = bytes.Compare(last[:suffixLen], pad[:suffixLen])
		}
		if c < 0 {
			put(pad)
			havePad = pads(pad[:suffixLen])
			continue
		}
		if c == 0 {
			// A padding suffix equal to a real one (a chance of 2^-108 or
			// less) is dropped, so no suffix is listed twice.
			havePad = pads(pad[:suffixLen])
		}
		realEnd = lineStart
		put(last)
		realEnd = max(realEnd-len(crlf), start)
		lineStart = -1
	}
	// A dropped padding line leaves room at the front, and a CRLF before
	// the first line: close both.
	if out > start {
		n := copy(dst[start:], dst[out+len(crlf):])
		dst = dst[:start+n]
	}
	return dst
}

// maxDigestLen is the longest digest of any Kind (SHA-1).
const maxDigestLen = 20

// stratumBits is how many leading bits of a padding suffix are stratified.
const stratumBits = 60

// hexPairs holds each byte's two upper-case hex digits.
var hexPairs = func() (t [256][2]byte) {
	const digits = "0123456789ABCDEF"
	for i := range t {
		t[i] = [2]byte{digits[i>>4], digits[i&0xF]}
	}
	return t
}()

// putHex64 writes v's 16 hex digits to dst, built in an array so the
// compiler can drop the bounds checks.
func putHex64(dst []byte, v uint64) {
	var digits [16]byte
	for i := range 8 {
		p := hexPairs[byte(v>>(56-8*i))]
		digits[2*i], digits[2*i+1] = p[0], p[1]
	}
	copy(dst, digits[:])
}

// randomSuffixes returns a generator of count (> 0) random hex suffixes in
// descending order, which stores none of them: the space of a suffix's
// first 60 bits is cut into count equal strata and the i-th suffix from the
// top is drawn from the i-th stratum from the top, so they come out sorted.
// The digits after the first 15 are uniform. Padding needs unpredictable
// sizes, not secret suffixes (their count of 0 marks them anyway), so the
// runtime's fast generator serves.
func randomSuffixes(count int) func(suffix []byte) bool {
	left := uint64(count)
	step := (1 << stratumBits) / left
	var digits [2*maxDigestLen + 16]byte
	return func(suffix []byte) bool {
		if left == 0 {
			return false
		}
		left--
		top := left*step + rand.Uint64N(step)
		putHex64(digits[:], top<<(64-stratumBits))
		// The 16th digit on is random (overwriting the stratum's last, zero, digit).
		for i := stratumBits / 4; i < len(suffix); i += 16 {
			putHex64(digits[i:], rand.Uint64())
		}
		copy(suffix, digits[:len(suffix)])
		return true
	}
}
