package cmd

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

func TestAllowedHostsDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		given, listen string
		want          []string
	}{
		{"", "127.0.0.1:8080", []string{"localhost", "127.0.0.1", "::1", "127.0.0.1"}},
		{"", "[::1]:8080", []string{"localhost", "127.0.0.1", "::1", "::1"}},
		{"", "127.0.0.2:80", []string{"localhost", "127.0.0.1", "::1", "127.0.0.2"}},
		{"", "localhost:8080", []string{"localhost", "127.0.0.1", "::1", "localhost"}},
		{"", "0.0.0.0:8080", nil},
		{"", ":8080", nil},
		{"", "192.0.2.7:8080", nil},
		{"api.example,localhost", "127.0.0.1:8080", []string{"api.example", "localhost"}},
	} {
		if got := allowedHosts(tc.given, tc.listen); !slices.Equal(got, tc.want) {
			t.Errorf("allowedHosts(%q, %q) = %q, want %q", tc.given, tc.listen, got, tc.want)
		}
	}
}

func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	got, err := parsePrefixes(" 10.1.2.3/8, 192.0.2.1 ,fd00::1 ,")
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("fd00::1/128")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestRegistrationDefaultsByAddress(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "open", "localhost:8080": "open", "[::1]:8080": "open",
		":8080": "closed", "0.0.0.0:8080": "closed", "192.0.2.7:8080": "closed", "[::]:8080": "closed",
	} {
		if got := defaultRegistration(addr); got != want {
			t.Errorf("defaultRegistration(%q) = %q, want %q", addr, got, want)
		}
	}
	// The setup link of a server on every address still opens on this machine.
	for addr, want := range map[string]string{"0.0.0.0:8080": "127.0.0.1:8080", "[::]:8080": "127.0.0.1:8080", "192.0.2.7:8080": "192.0.2.7:8080"} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := browsableAddr(tcp); got != want {
			t.Errorf("browsableAddr(%s) = %s, want %s", addr, got, want)
		}
	}
}
