package breachtest

import (
	"bufio"
	"cmp"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"secutil/tools/breach"
)

// uniformLine is one line of WriteUniform: the hash's first 64 bits (the
// prefix in the top 20) and next 64, and for SHA-1 its last 32, which
// sorting can ignore: two lines agreeing on the first 128 bits do not occur.
type uniformLine struct {
	hi, lo uint64
	last   uint32
	count  uint64
}

// WriteUniform writes to w a sorted file of about lines hashes of the kind
// that are independent uniform draws, as the SHA-1 and NTLM digests of
// distinct passwords are: each of the 2^20 five-hex prefixes gets a
// Poisson number of lines (mean lines/2^20: about 955 at 10^9 lines, as in
// the real SHA-1 corpus) with random suffixes, sorted in memory one prefix
// at a time. Counts have the corpus' long tail: a count is k or more with
// chance 1/k, so a line averages about 44 bytes. It returns how many lines
// and bytes it wrote; the same lines, kind and seed give the same file.
func WriteUniform(w io.Writer, lines float64, kind breach.Kind, seed uint64) (n, size int64, err error) {
	const prefixBits = 4 * breach.PrefixLen
	digits := 2 * kind.DigestLen()
	r := rand.New(rand.NewPCG(seed, uint64(digits)))
	bw := bufio.NewWriterSize(w, 4<<20)
	perPrefix := newPoisson(lines / (1 << prefixBits))
	var group []uniformLine
	buf := make([]byte, 0, 64)
	for prefix := range uint64(1) << prefixBits {
		group = group[:0]
		for range perPrefix.draw(r) {
			group = append(group, uniformLine{
				hi:    prefix<<(64-prefixBits) | r.Uint64()>>prefixBits,
				lo:    r.Uint64(),
				last:  r.Uint32(),
				count: uint64(min(1/(1-r.Float64()), 1e9)), // 1/u for u in (0, 1]
			})
		}
		slices.SortFunc(group, func(a, b uniformLine) int {
			return cmp.Or(cmp.Compare(a.hi, b.hi), cmp.Compare(a.lo, b.lo))
		})
		for _, l := range group {
			buf = appendHex64(buf[:0], l.hi)
			buf = appendHex64(buf, l.lo)
			buf = appendHex64(buf, uint64(l.last)<<32)[:digits]
			buf = append(buf, ':')
			buf = strconv.AppendUint(buf, l.count, 10)
			buf = append(buf, '\r', '\n')
			bw.Write(buf) // a write error sticks and is returned by Flush
			size += int64(len(buf))
		}
		n += int64(len(group))
	}
	return n, size, bw.Flush()
}

// poisson draws Poisson numbers of one mean: by multiplying uniforms for
// small means, by the normal approximation for large ones (where it is
// within a fraction of a percent). It keeps e^-mean, the bound of the
// product, as WriteUniform draws a million times from one mean.
type poisson struct{ mean, limit float64 }

func newPoisson(mean float64) poisson { return poisson{mean: mean, limit: math.Exp(-mean)} }

func (d poisson) draw(r *rand.Rand) int {
	if d.mean > 64 {
		return max(0, int(math.Round(d.mean+math.Sqrt(d.mean)*r.NormFloat64())))
	}
	k := 0
	for p := r.Float64(); p > d.limit; p *= r.Float64() {
		k++
	}
	return k
}

// appendHex64 appends v's 16 upper-case hex digits.
func appendHex64(dst []byte, v uint64) []byte {
	const digits = "0123456789ABCDEF"
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, digits[v>>uint(shift)&0xF])
	}
	return dst
}
