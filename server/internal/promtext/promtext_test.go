package promtext

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestSample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		value  float64
		labels []string
		want   string
	}{
		{"no labels", 3, nil, "m 3\n"},
		{"labels", 1, []string{"route", "GET /", "status", "200"}, `m{route="GET /",status="200"} 1` + "\n"},
		{"escaped label", 0, []string{"v", "a\\b\"c\nd"}, `m{v="a\\b\"c\nd"} 0` + "\n"},
		{"fraction", 0.25, nil, "m 0.25\n"},
		{"large whole number", 1e15, nil, "m 1e+15\n"},
		{"below 1e15 stays whole", 999999999999999, nil, "m 999999999999999\n"},
		{"negative", -2, nil, "m -2\n"},
		{"infinity", math.Inf(1), nil, "m +Inf\n"},
		{"negative infinity", math.Inf(-1), nil, "m -Inf\n"},
		{"not a number", math.NaN(), nil, "m NaN\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var w Writer
			w.Sample("m", tc.value, tc.labels...)
			if got := string(w.Bytes()); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFamilyEscapesHelp(t *testing.T) {
	t.Parallel()
	var w Writer
	w.Family("m_total", "counter", "Calls, by \"plan\".\nA back\\slash.")
	want := "# HELP m_total Calls, by \"plan\".\\nA back\\\\slash.\n# TYPE m_total counter\n"
	if got := string(w.Bytes()); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestHistogram(t *testing.T) {
	t.Parallel()
	h := NewHistogram([]float64{0.5, 1, 2.5})
	for _, v := range []float64{0.1, 0.5, 0.75, 3, 100} {
		h.Observe(v)
	}
	var w Writer
	w.Histogram("d_seconds", h, "route", "r")
	want := `d_seconds_bucket{route="r",le="0.5"} 2
d_seconds_bucket{route="r",le="1"} 3
d_seconds_bucket{route="r",le="2.5"} 3
d_seconds_bucket{route="r",le="+Inf"} 5
d_seconds_sum{route="r"} 104.35
d_seconds_count{route="r"} 5
`
	if got := string(w.Bytes()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestHistogramLabelsStayPut: writing the buckets appends "le" to the
// caller's labels without writing into the caller's array.
func TestHistogramLabelsStayPut(t *testing.T) {
	t.Parallel()
	labels := make([]string, 2, 8)
	labels[0], labels[1] = "route", "a"
	var w Writer
	w.Histogram("h", NewHistogram([]float64{1}), labels...)
	if extra := labels[:4]; extra[2] != "" || extra[3] != "" {
		t.Fatalf("the caller's array was written: %q", extra)
	}
}

// FuzzSample: any label value and help text stays on one line, and a
// label value reads back as written once unescaped.
func FuzzSample(f *testing.F) {
	f.Add("plain", "help", 1.5)
	f.Add("a\"b\\c\nd", "x\ny\\", -1e300)
	f.Fuzz(func(t *testing.T, value, help string, v float64) {
		var w Writer
		w.Family("m", "gauge", help)
		w.Sample("m", v, "l", value)
		lines := strings.Split(strings.TrimSuffix(string(w.Bytes()), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3: %q", len(lines), w.Bytes())
		}
		sample := lines[2]
		quoted, ok := strings.CutPrefix(sample, `m{l=`)
		if !ok {
			t.Fatalf("sample %q", sample)
		}
		end := strings.LastIndex(quoted, "} ")
		if end < 0 {
			t.Fatalf("sample %q", sample)
		}
		if got := unescapeLabel(t, quoted[:end]); got != value {
			t.Fatalf("label read back as %q, want %q", got, value)
		}
		if _, err := strconv.ParseFloat(strings.TrimPrefix(quoted[end+2:], "+"), 64); err != nil {
			t.Fatalf("value %q: %v", quoted[end+2:], err)
		}
	})
}

// unescapeLabel reads a quoted label value as Prometheus does: \\, \" and
// \n are the only escapes.
func unescapeLabel(t *testing.T, quoted string) string {
	t.Helper()
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		t.Fatalf("label %q is not quoted", quoted)
	}
	var out bytes.Buffer
	r := bufio.NewReader(strings.NewReader(quoted[1 : len(quoted)-1]))
	for {
		c, err := r.ReadByte()
		if err != nil {
			return out.String()
		}
		switch c {
		case '"':
			t.Fatalf("unescaped quote in %q", quoted)
		case '\\':
			next, err := r.ReadByte()
			switch {
			case err != nil:
				t.Fatalf("trailing backslash in %q", quoted)
			case next == 'n':
				out.WriteByte('\n')
			case next == '\\', next == '"':
				out.WriteByte(next)
			default:
				t.Fatalf("unknown escape \\%c in %q", next, quoted)
			}
		default:
			out.WriteByte(c)
		}
	}
}
