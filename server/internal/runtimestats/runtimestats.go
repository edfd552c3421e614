// Package runtimestats writes the process's figures (process_*, read from
// /proc on Linux) and the Go runtime's (go_*, from runtime/metrics) as
// Prometheus families, under the names the Prometheus client libraries
// give them, so that dashboards made for those read these as they are.
package runtimestats

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"secutil/server/internal/promtext"
)

// Write writes the process's and the Go runtime's families. Without /proc
// (not Linux), the process's are left out.
func Write(w *promtext.Writer) {
	if p, err := readProcess(); err == nil {
		writeProcess(w, p)
	}
	writeGo(w)
}

// stat is what the process_* families take from /proc/<pid>/stat.
type stat struct {
	cpuTicks      int64 // user and system
	threads       int64
	startTicks    int64 // after boot
	virtualBytes  int64
	residentPages int64
}

// process is what the process_* families say.
type process struct {
	stat
	bootTime int64 // Unix seconds
	openFDs  int64
	maxFDs   int64
}

// userHZ is the clock tick of /proc/<pid>/stat's times, 100 on every Linux
// (the kernel's ABI, whatever its own tick).
const userHZ = 100

func readProcess() (process, error) {
	var p process
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return p, err
	}
	if p.stat, err = parseStat(string(raw)); err != nil {
		return p, err
	}
	if raw, err = os.ReadFile("/proc/stat"); err != nil {
		return p, err
	}
	if p.bootTime, err = parseBootTime(string(raw)); err != nil {
		return p, err
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return p, err
	}
	p.openFDs = int64(len(fds)) - 1 // less ReadDir's own descriptor on the folder
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		return p, err
	}
	p.maxFDs = int64(limit.Cur)
	return p, nil
}

var errStat = errors.New("runtimestats: /proc/self/stat is not as Linux writes it")

// parseStat reads the fields of /proc/<pid>/stat that the families need:
// utime, stime, num_threads, starttime, vsize and rss (fields 14, 15, 20,
// 22, 23 and 24 in proc(5)). The second field, the command's name in
// parentheses, may itself hold spaces and parentheses: the fields after
// it are counted from its last ')'.
func parseStat(text string) (stat, error) {
	end := strings.LastIndexByte(text, ')')
	if end < 0 {
		return stat{}, errStat
	}
	fields := strings.Fields(text[end+1:]) // fields[0] is field 3, the state
	const utime, stime, threads, start, vsize, rss = 14, 15, 20, 22, 23, 24
	if len(fields) < rss-2 {
		return stat{}, errStat
	}
	var v [rss + 1]int64
	for _, n := range []int{utime, stime, threads, start, vsize, rss} {
		x, err := strconv.ParseInt(fields[n-3], 10, 64)
		if err != nil || x < 0 {
			return stat{}, errStat
		}
		v[n] = x
	}
	return stat{cpuTicks: v[utime] + v[stime], threads: v[threads], startTicks: v[start], virtualBytes: v[vsize], residentPages: v[rss]}, nil
}

var errBootTime = errors.New("runtimestats: /proc/stat has no btime line")

// parseBootTime reads the boot time, in Unix seconds, from /proc/stat.
func parseBootTime(text string) (int64, error) {
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, "btime "); ok {
			t, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err != nil || t < 0 {
				return 0, errBootTime
			}
			return t, nil
		}
	}
	return 0, errBootTime
}

func writeProcess(w *promtext.Writer, p process) {
	w.Family("process_cpu_seconds_total", "counter", "User and system CPU time the process has used, in seconds.")
	w.Sample("process_cpu_seconds_total", float64(p.cpuTicks)/userHZ)
	w.Family("process_resident_memory_bytes", "gauge", "Resident memory of the process, in bytes.")
	w.Sample("process_resident_memory_bytes", float64(p.residentPages*int64(os.Getpagesize())))
	w.Family("process_virtual_memory_bytes", "gauge", "Virtual memory of the process, in bytes.")
	w.Sample("process_virtual_memory_bytes", float64(p.virtualBytes))
	w.Family("process_open_fds", "gauge", "Open file descriptors (connections among them).")
	w.Sample("process_open_fds", float64(p.openFDs))
	w.Family("process_max_fds", "gauge", "The most file descriptors the process may open (its soft limit).")
	w.Sample("process_max_fds", float64(p.maxFDs))
	w.Family("process_start_time_seconds", "gauge", "When the process started, in Unix seconds.")
	w.Sample("process_start_time_seconds", float64(p.bootTime)+float64(p.startTicks)/userHZ)
	w.Family("go_threads", "gauge", "Operating system threads of the process.")
	w.Sample("go_threads", float64(p.threads))
}

// goGauges are the go_* families read from one runtime/metrics sample
// each (or the sum of several).
var goGauges = []struct {
	name, typ, help string
	samples         []string
}{
	{"go_goroutines", "gauge", "Goroutines that exist now.", []string{"/sched/goroutines:goroutines"}},
	{"go_sched_gomaxprocs_threads", "gauge", "GOMAXPROCS: the goroutines that may run at once.", []string{"/sched/gomaxprocs:threads"}},
	{"go_gc_cycles_total", "counter", "Garbage collections completed.", []string{"/gc/cycles/total:gc-cycles"}},
	{"go_gc_gogc_percent", "gauge", "GOGC: the heap's growth, in percent of the live heap, that starts a collection.", []string{"/gc/gogc:percent"}},
	{"go_gc_gomemlimit_bytes", "gauge", "GOMEMLIMIT: the memory the runtime tries to stay under, in bytes.", []string{"/gc/gomemlimit:bytes"}},
	{"go_memstats_alloc_bytes", "gauge", "Bytes of heap objects, live or not collected yet.", []string{"/memory/classes/heap/objects:bytes"}},
	{"go_memstats_alloc_bytes_total", "counter", "Bytes allocated on the heap since the process started.", []string{"/gc/heap/allocs:bytes"}},
	{"go_memstats_mallocs_total", "counter", "Heap objects allocated since the process started.", []string{"/gc/heap/allocs:objects", "/gc/heap/tiny/allocs:objects"}},
	{"go_memstats_frees_total", "counter", "Heap objects freed since the process started.", []string{"/gc/heap/frees:objects", "/gc/heap/tiny/allocs:objects"}},
	{"go_memstats_heap_objects", "gauge", "Heap objects, live or not collected yet.", []string{"/gc/heap/objects:objects"}},
	{"go_memstats_heap_inuse_bytes", "gauge", "Bytes of heap spans in use.", []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}},
	{"go_memstats_heap_idle_bytes", "gauge", "Bytes of heap spans not in use, returned to the system or not.", []string{"/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes"}},
	{"go_memstats_heap_released_bytes", "gauge", "Bytes of heap returned to the operating system.", []string{"/memory/classes/heap/released:bytes"}},
	{"go_memstats_stack_inuse_bytes", "gauge", "Bytes of goroutine stacks.", []string{"/memory/classes/heap/stacks:bytes"}},
	{"go_memstats_next_gc_bytes", "gauge", "The heap size at which the next collection starts.", []string{"/gc/heap/goal:bytes"}},
	{"go_memstats_sys_bytes", "gauge", "Bytes of memory the runtime has mapped from the operating system.", []string{"/memory/classes/total:bytes"}},
}

// goSamples is every runtime/metrics name goGauges reads, once each.
var goSamples = func() []metrics.Sample {
	var out []metrics.Sample
	seen := map[string]bool{}
	for _, g := range goGauges {
		for _, name := range g.samples {
			if !seen[name] {
				seen[name] = true
				out = append(out, metrics.Sample{Name: name})
			}
		}
	}
	return out
}()

func writeGo(w *promtext.Writer) {
	samples := make([]metrics.Sample, len(goSamples))
	copy(samples, goSamples)
	metrics.Read(samples)
	values := make(map[string]float64, len(samples))
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			values[s.Name] = float64(s.Value.Uint64())
		case metrics.KindFloat64:
			values[s.Name] = s.Value.Float64()
		}
	}
	w.Family("go_info", "gauge", "Always 1; the label names the Go version the binary was built with.")
	w.Sample("go_info", 1, "version", runtime.Version())
	for _, g := range goGauges {
		sum := 0.0
		for _, name := range g.samples {
			sum += values[name]
		}
		w.Family(g.name, g.typ, g.help)
		w.Sample(g.name, sum)
	}
	// The pauses as the client libraries summarise them: the quantiles of
	// the recent pauses, and the total of all.
	stats := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)}
	debug.ReadGCStats(&stats)
	w.Family("go_gc_duration_seconds", "summary", "Stop-the-world pauses of the garbage collector: quantiles of the recent ones, in seconds.")
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		w.Sample("go_gc_duration_seconds", stats.PauseQuantiles[i].Seconds(), "quantile", q)
	}
	w.Sample("go_gc_duration_seconds_sum", stats.PauseTotal.Seconds())
	w.Sample("go_gc_duration_seconds_count", float64(stats.NumGC))
	w.Family("go_memstats_last_gc_time_seconds", "gauge", "When the last garbage collection ended, in Unix seconds (0: none yet).")
	last := 0.0
	if !stats.LastGC.IsZero() {
		last = float64(stats.LastGC.UnixNano()) / 1e9
	}
	w.Sample("go_memstats_last_gc_time_seconds", last)
}
