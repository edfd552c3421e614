package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"secutil/server"
)

// TestSideListenersCheckHost: -metrics-addr and -pprof-addr refuse a Host
// they do not answer for, as the API's listener does (a DNS-rebinding page
// sends its own name), and the profiler does not serve the command line,
// which can hold -admin-token.
func TestSideListenersCheckHost(t *testing.T) {
	t.Parallel()
	for _, given := range []string{"", "secutil.example.com"} {
		lns, err := listen(serveConfig{addr: "127.0.0.1:0", metricsAddr: "127.0.0.1:0", pprofAddr: "127.0.0.1:0", allowedHosts: given}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer lns.close()
		servers := lns.servers(http.NotFoundHandler(), server.NewMetrics(), nil, slog.New(slog.DiscardHandler), io.Discard)
		metrics, profiler := servers[1].srv.Handler, servers[2].srv.Handler
		get := func(h http.Handler, host, path string) *httptest.ResponseRecorder {
			r := httptest.NewRequest("GET", path, nil)
			r.Host = host
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		for _, c := range []struct {
			name       string
			h          http.Handler
			host, path string
			want       int
		}{
			{"metrics, rebinding name", metrics, "attacker.example:9090", "/metrics", http.StatusMisdirectedRequest},
			{"metrics, its address", metrics, lns.metrics.Addr().String(), "/metrics", http.StatusOK},
			{"metrics, localhost", metrics, "localhost:9090", "/metrics", http.StatusOK},
			{"profiler, rebinding name", profiler, "attacker.example:6060", "/debug/pprof/", http.StatusMisdirectedRequest},
			{"profiler, rebinding name, cmdline", profiler, "attacker.example:6060", "/debug/pprof/cmdline", http.StatusMisdirectedRequest},
			{"profiler, its address", profiler, lns.pprof.Addr().String(), "/debug/pprof/", http.StatusOK},
			{"profiler, cmdline", profiler, lns.pprof.Addr().String(), "/debug/pprof/cmdline", http.StatusNotFound},
		} {
			w := get(c.h, c.host, c.path)
			if w.Code != c.want {
				t.Errorf("-allowed-hosts %q, %s: GET %s Host %s = %d, want %d", given, c.name, c.path, c.host, w.Code, c.want)
			}
			if c.want == http.StatusMisdirectedRequest && !strings.Contains(w.Body.String(), `"host_not_allowed"`) {
				t.Errorf("%s: body %s", c.name, w.Body)
			}
		}
		if given != "" {
			if w := get(metrics, "secutil.example.com", "/metrics"); w.Code != http.StatusOK {
				t.Errorf("metrics for a name of -allowed-hosts = %d", w.Code)
			}
		}
	}
}

func TestSideListenerHosts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		given, listen string
		want          []string
	}{
		{"", "127.0.0.1:9090", []string{"localhost", "127.0.0.1", "::1", "127.0.0.1"}},
		{"", "10.0.0.5:9090", nil},
		{"", ":9090", nil},
		{"api.example.com", "10.0.0.5:9090", []string{"api.example.com", "10.0.0.5"}},
		{"api.example.com", ":9090", []string{"api.example.com"}},
		{"api.example.com", "[::1]:6060", []string{"localhost", "127.0.0.1", "::1", "::1", "api.example.com", "::1"}},
		{"*", "10.0.0.5:9090", []string{"*", "10.0.0.5"}},
	} {
		if got := sideListenerHosts(c.given, c.listen); !slices.Equal(got, c.want) {
			t.Errorf("sideListenerHosts(%q, %q) = %q, want %q", c.given, c.listen, got, c.want)
		}
	}
}
