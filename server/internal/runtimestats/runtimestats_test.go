package runtimestats

import (
	"bytes"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"secutil/server/internal/promtext"
)

func TestParseStat(t *testing.T) {
	t.Parallel()
	// Fields 3 to 24 of a real line: the state, then 21 numbers.
	tail := " S 1 2 3 4 5 6 7 8 9 10 250 50 13 14 15 16 9 18 123456 3133440 380 18446744073709551615 1 2 3"
	for _, tc := range []struct {
		name, line string
		want       stat
		ok         bool
	}{
		{"plain", "1917 (secutil)" + tail, stat{cpuTicks: 300, threads: 9, startTicks: 123456, virtualBytes: 3133440, residentPages: 380}, true},
		{"a name with spaces and parentheses", "1917 (a) b ) (c)" + tail, stat{cpuTicks: 300, threads: 9, startTicks: 123456, virtualBytes: 3133440, residentPages: 380}, true},
		{"no name", "1917 secutil" + tail, stat{}, false},
		{"cut short", "1917 (secutil) S 1 2 3 4 5 6 7 8 9 10 250 50", stat{}, false},
		{"a word for a number", "1917 (secutil) S 1 2 3 4 5 6 7 8 9 10 x 50 13 14 15 16 9 18 123456 3133440 380", stat{}, false},
		{"a negative", "1917 (secutil) S 1 2 3 4 5 6 7 8 9 10 250 50 13 14 15 16 9 18 123456 -1 380", stat{}, false},
		{"empty", "", stat{}, false},
	} {
		got, err := parseStat(tc.line)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v, ok %v", tc.name, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseBootTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"cpu  1 2 3\nintr 5\nbtime 1795928296\nprocesses 9\n", 1795928296, true},
		{"btime 12\n", 12, true},
		{"cpu 1\n", 0, false},
		{"btime x\n", 0, false},
		{"xbtime 12\n", 0, false},
	} {
		got, err := parseBootTime(tc.text)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %d, %v; want %d, ok %v", tc.text, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("1917 (secutil) S 1 2 3 4 5 6 7 8 9 10 250 50 13 14 15 16 9 18 123456 3133440 380 1 2")
	f.Add("1 ((())) R")
	f.Fuzz(func(t *testing.T, line string) {
		s, err := parseStat(line)
		if err == nil && (s.cpuTicks < 0 || s.threads < 0 || s.startTicks < 0 || s.virtualBytes < 0 || s.residentPages < 0) {
			t.Fatalf("%q: a negative figure %+v", line, s)
		}
	})
}

// TestWrite: the families parse with Prometheus's own parser, under the
// client libraries' names and types, and their values are this process's.
func TestWrite(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	var w promtext.Writer
	Write(&w)
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(w.Bytes()))
	if err != nil {
		t.Fatalf("%v\n%s", err, w.Bytes())
	}
	value := func(name string) float64 {
		f := families[name]
		if f == nil || len(f.GetMetric()) == 0 {
			t.Fatalf("no family %s", name)
		}
		m := f.GetMetric()[0]
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		}
		return m.GetSummary().GetSampleSum()
	}
	now := float64(time.Now().Unix())
	if start := value("process_start_time_seconds"); start > now+1 || start < now-3600 {
		t.Errorf("process_start_time_seconds %v, want the last hour before %v", start, now)
	}
	if rss := value("process_resident_memory_bytes"); rss < 1<<20 || rss > value("process_virtual_memory_bytes") {
		t.Errorf("process_resident_memory_bytes %v", rss)
	}
	if fds, max := value("process_open_fds"), value("process_max_fds"); fds < 3 || fds > max {
		t.Errorf("process_open_fds %v of %v", fds, max)
	}
	if cpu := value("process_cpu_seconds_total"); cpu < 0 {
		t.Errorf("process_cpu_seconds_total %v", cpu)
	}
	if n := value("go_goroutines"); n < 1 {
		t.Errorf("go_goroutines %v", n)
	}
	if n := value("go_sched_gomaxprocs_threads"); n != float64(runtime.GOMAXPROCS(0)) {
		t.Errorf("go_sched_gomaxprocs_threads %v, want %d", n, runtime.GOMAXPROCS(0))
	}
	if value("go_memstats_alloc_bytes_total") < value("go_memstats_alloc_bytes") || value("go_memstats_sys_bytes") < value("go_memstats_heap_inuse_bytes") {
		t.Errorf("the memory figures disagree:\n%s", w.Bytes())
	}
	if q := families["go_gc_duration_seconds"].GetMetric()[0].GetSummary().GetQuantile(); len(q) != 5 {
		t.Errorf("go_gc_duration_seconds has %d quantiles, want 5", len(q))
	}
	if v := families["go_info"].GetMetric()[0].GetLabel()[0].GetValue(); v != runtime.Version() {
		t.Errorf("go_info version %q", v)
	}
}
