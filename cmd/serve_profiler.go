package cmd

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"time"
)

// profiler serves Go's profiles on -pprof-addr, a separate listener on
// loopback only, at the paths `go tool pprof` and `go tool trace` know:
// /debug/pprof/ lists them, /debug/pprof/profile and /debug/pprof/trace
// record for ?seconds=, and /debug/pprof/{heap,goroutine,...} write a
// named profile (?debug=1 or 2 for text, ?gc=1 to collect before heap).
//
// It is written on runtime/pprof rather than by importing net/http/pprof,
// whose package init registers its handlers on http.DefaultServeMux in
// every process, `secutil version` included; that alone was about a tenth
// of the command's start. It serves no /debug/pprof/cmdline (404): the
// command line can hold -admin-token and the other secrets given as flags.
func profiler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/{$}", profileIndex)
	mux.HandleFunc("GET /debug/pprof/profile", cpuProfile)
	mux.HandleFunc("GET /debug/pprof/trace", executionTrace)
	mux.HandleFunc("GET /debug/pprof/{name}", namedProfile)
	return mux
}

// maxProfileSeconds keeps a recording inside the listener's write timeout
// (newHTTPServer), so the answer is never cut off.
const maxProfileSeconds = 50

func profileIndex(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><title>/debug/pprof/</title><h1>/debug/pprof/</h1><ul>\n")
	for _, p := range pprof.Profiles() {
		name := html.EscapeString(p.Name())
		fmt.Fprintf(w, "<li><a href=\"%s?debug=1\">%s</a> (%d)</li>\n", name, name, p.Count())
	}
	fmt.Fprintf(w, "<li><a href=\"profile?seconds=30\">profile</a>: CPU, for ?seconds= (at most %d)</li>\n", maxProfileSeconds)
	fmt.Fprintf(w, "<li><a href=\"trace?seconds=5\">trace</a>: execution trace, for ?seconds= (at most %d)</li>\n</ul>\n", maxProfileSeconds)
}

func namedProfile(w http.ResponseWriter, r *http.Request) {
	p := pprof.Lookup(r.PathValue("name"))
	if p == nil {
		http.Error(w, "no such profile; /debug/pprof/ lists them", http.StatusNotFound)
		return
	}
	debug, err := queryInt(r, "debug", 0, 0, 2)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if p.Name() == "heap" && r.FormValue("gc") != "" {
		runtime.GC()
	}
	if debug == 0 {
		download(w, p.Name())
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
	}
	p.WriteTo(w, debug)
}

// download labels the answer a binary file named name, as go tool pprof
// and go tool trace read it.
func download(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

func cpuProfile(w http.ResponseWriter, r *http.Request) {
	record(w, r, 30, "profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
}

func executionTrace(w http.ResponseWriter, r *http.Request) {
	record(w, r, 1, "trace", trace.Start, trace.Stop)
}

// record runs start for ?seconds= (or the default), or until the client
// goes away, then stop, writing what was recorded to w. A recording that
// cannot start (another is running) is a 500 with the reason, before any
// of the body is written.
func record(w http.ResponseWriter, r *http.Request, defaultSeconds int, name string, start func(io.Writer) error, stop func()) {
	seconds, err := queryInt(r, "seconds", defaultSeconds, 1, maxProfileSeconds)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	download(w, name)
	if err := start(w); err != nil {
		w.Header().Del("Content-Disposition")
		http.Error(w, "cannot record: "+err.Error(), http.StatusInternalServerError)
		return
	}
	select {
	case <-time.After(time.Duration(seconds) * time.Second):
	case <-r.Context().Done():
	}
	stop()
}

// queryInt reads the query parameter key as an integer in [lo, hi], or
// def when it is absent.
func queryInt(r *http.Request, key string, def, lo, hi int) (int, error) {
	v := r.FormValue(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be a whole number from %d to %d", key, lo, hi)
	}
	return n, nil
}
