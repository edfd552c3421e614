package cmd

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The profiler answers what `go tool pprof` and `go tool trace` fetch, and
// refuses a recording it cannot bound.
func TestProfilerServesProfiles(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(profiler())
	t.Cleanup(srv.Close)
	gzipMagic := []byte{0x1f, 0x8b}
	cases := []struct {
		path       string
		status     int
		bodyPrefix []byte // nil: not checked
		bodyHas    string
	}{
		{"/debug/pprof/", http.StatusOK, nil, `href="heap?debug=1"`},
		{"/debug/pprof/heap", http.StatusOK, gzipMagic, ""},
		{"/debug/pprof/heap?gc=1", http.StatusOK, gzipMagic, ""},
		{"/debug/pprof/goroutine?debug=1", http.StatusOK, []byte("goroutine profile:"), ""},
		{"/debug/pprof/profile?seconds=1", http.StatusOK, gzipMagic, ""},
		{"/debug/pprof/trace?seconds=1", http.StatusOK, []byte("go 1."), ""},
		{"/debug/pprof/profile?seconds=0", http.StatusBadRequest, nil, "seconds must be a whole number from 1 to 50"},
		{"/debug/pprof/profile?seconds=3600", http.StatusBadRequest, nil, "from 1 to 50"},
		{"/debug/pprof/heap?debug=x", http.StatusBadRequest, nil, "debug must be"},
		{"/debug/pprof/cmdline", http.StatusNotFound, nil, "no such profile"},
		{"/debug/pprof/nothing", http.StatusNotFound, nil, "no such profile"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			res, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %.200s", res.StatusCode, c.status, body)
			}
			if c.bodyPrefix != nil && !bytes.HasPrefix(body, c.bodyPrefix) {
				t.Errorf("body starts %q, want %q", body[:min(len(body), 16)], c.bodyPrefix)
			}
			if !strings.Contains(string(body), c.bodyHas) {
				t.Errorf("body %.300q lacks %q", body, c.bodyHas)
			}
		})
	}
}
