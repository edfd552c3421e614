// Package promtext writes metrics in the Prometheus text exposition format
// (version 0.0.4): a family's HELP and TYPE lines, then its samples, with
// label values and help text escaped as the format asks. It also keeps the
// histograms it writes, whose recording is a few atomic adds, cheap enough
// for every request.
package promtext

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// ContentType is the text exposition format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Writer builds an exposition in memory.
type Writer struct{ buf bytes.Buffer }

// Bytes returns what was written so far.
func (w *Writer) Bytes() []byte { return w.buf.Bytes() }

// Family starts a metric family: its HELP and TYPE lines.
func (w *Writer) Family(name, typ, help string) {
	w.buf.WriteString("# HELP " + name + " " + helpEscaper.Replace(help) + "\n")
	w.buf.WriteString("# TYPE " + name + " " + typ + "\n")
}

// Sample writes one line; labels are name, value pairs.
func (w *Writer) Sample(name string, value float64, labels ...string) {
	w.buf.WriteString(name)
	if len(labels) > 0 {
		w.buf.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.buf.WriteString(labels[i] + `="` + labelEscaper.Replace(labels[i+1]) + `"`)
		}
		w.buf.WriteByte('}')
	}
	w.buf.WriteByte(' ')
	w.buf.WriteString(formatValue(value))
	w.buf.WriteByte('\n')
}

// Histogram writes a histogram's cumulative buckets, sum and count.
func (w *Writer) Histogram(name string, h *Histogram, labels ...string) {
	var cumulative uint64
	for i := range h.counts {
		cumulative += h.counts[i].Load()
		le := "+Inf"
		if i < len(h.bounds) {
			le = formatValue(h.bounds[i])
		}
		w.Sample(name+"_bucket", float64(cumulative), append(slices.Clip(labels), "le", le)...)
	}
	w.Sample(name+"_sum", math.Float64frombits(h.sum.Load()), labels...)
	w.Sample(name+"_count", float64(cumulative), labels...)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
)

// formatValue writes whole numbers without an exponent (below 10^15) and
// the rest as Go's shortest float, which Prometheus parses.
func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatInt(int64(v), 10)
	default:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
}

// Histogram counts observations into buckets by upper bound. It is safe
// for concurrent use.
type Histogram struct {
	bounds []float64       // upper bounds, ascending
	counts []atomic.Uint64 // one per bound, then one for +Inf; not cumulative
	sum    atomic.Uint64   // float64 bits
}

// NewHistogram returns an empty histogram with the given upper bounds,
// which must be ascending; a last bucket, +Inf, holds the rest.
func NewHistogram(bounds []float64) *Histogram {
	return &Histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	h.counts[sort.SearchFloat64s(h.bounds, v)].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}
