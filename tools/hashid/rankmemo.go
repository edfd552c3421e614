package hashid

import "math"

// rankMemo remembers how rank ordered the matches of recent lines. A file
// holds a few shapes of line many times over (20 formats fit every 32-digit
// hex digest), and rank's answer depends on the matches' formats,
// exactness, bits and reading only, not on the text: two lines whose
// matches agree in those, in the same order, rank alike. A shape is looked
// up by a fingerprint of some of its matches and then compared in full, so
// a collision costs a rank, never a wrong answer.
type rankMemo struct {
	slots [rankSlots]rankedShape
}

// rankSlots is how many shapes a rankMemo holds, in the slot their
// fingerprint names: a mixed file has a few dozen shapes.
const (
	rankSlotBits = 6
	rankSlots    = 1 << rankSlotBits
)

// maxMemoMatches bounds the matches of a shape the memo keeps, and so its
// memory: a line that many formats fit is rare and ranked afresh.
const maxMemoMatches = 48

// rankedShape is one shape and its ranking: the positions in the shape of
// the best matches, best first, and their confidences.
type rankedShape struct {
	key  []rankKey
	best [LineCandidates]uint8
	conf [LineCandidates]float64
}

// rankKey is what rank reads of a match, packed: its format, reading and
// exactness, and the bits of its improbability (bit for bit, stricter
// than comparing the numbers, which only costs a rank).
type rankKey [2]uint64

func keyOf(m *match) rankKey {
	return rankKey{uint64(uint32(m.f)) | uint64(m.via)<<32 | uint64(uint32(m.exact))<<40, math.Float64bits(m.bits)}
}

// rank is rank(ms, conf, shown) for shown <= LineCandidates, remembered:
// it leaves the best shown matches first in ms, best first, and returns
// their confidences; the order of the rest of ms is unspecified.
func (rm *rankMemo) rank(ms []match, conf []float64, shown int) []float64 {
	if len(ms) == 0 || len(ms) > maxMemoMatches {
		return rank(ms, conf, shown)
	}
	// The fingerprint reads the first, middle and last matches only: it
	// picks the slot, and the slot is compared in full.
	h := uint64(len(ms))
	for _, i := range [3]int{0, len(ms) / 2, len(ms) - 1} {
		k := keyOf(&ms[i])
		h = (h^k[0])*0x9e3779b97f4a7c15 + k[1]
	}
	slot := &rm.slots[h*0x9e3779b97f4a7c15>>(64-rankSlotBits)] // the top bits, which every key moves
	if !slot.holds(ms) {
		slot.key = slot.key[:0]
		for i := range ms {
			slot.key = append(slot.key, keyOf(&ms[i]))
		}
		top := min(len(ms), LineCandidates)
		var room [maxMemoMatches]float64
		c := rank(ms, room[:0], top)
		for i := range top {
			slot.best[i] = uint8(slot.position(ms[i].f))
		}
		copy(slot.conf[:], c)
		return append(conf[:0], c[:shown]...)
	}
	var best [LineCandidates]match
	for i := range shown {
		best[i] = ms[slot.best[i]]
	}
	copy(ms, best[:shown])
	return append(conf[:0], slot.conf[:shown]...)
}

// holds reports whether the shape is that of ms.
func (rs *rankedShape) holds(ms []match) bool {
	if len(rs.key) != len(ms) {
		return false
	}
	for i := range ms {
		if rs.key[i] != keyOf(&ms[i]) {
			return false
		}
	}
	return true
}

// position is where the shape holds format f (one match per format).
func (rs *rankedShape) position(f int32) int {
	for i := range rs.key {
		if int32(uint32(rs.key[i][0])) == f {
			return i
		}
	}
	panic("rankMemo: a ranked match not in its shape")
}
