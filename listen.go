package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"secutil/server"
)

// profiler serves net/http/pprof's handlers on a mux of its own, never
// the API's: -pprof-addr is a separate listener, on loopback only.
func profiler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// newHTTPServer has the timeouts every listener gets. Slow-client
// protection: a client may not hold a connection open by trickling headers
// or a body, nor keep an idle one forever.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// defaultRegistration is open on a loopback address, where only this
// machine can register, and closed on any other.
func defaultRegistration(addr string) string {
	if _, loopback := loopbackHost(addr); loopback {
		return server.RegistrationOpen
	}
	return server.RegistrationClosed
}

// loopbackHost is the host of a listen address, and whether it is a
// loopback name or address, which only this machine can reach.
func loopbackHost(listen string) (host string, loopback bool) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "", false
	}
	addr, err := netip.ParseAddr(host)
	return host, host == "localhost" || (err == nil && addr.IsLoopback())
}

// browsableAddr is the listening address as a browser on this machine
// reaches it: an unspecified address (":8080", "0.0.0.0") as 127.0.0.1.
func browsableAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// parsePrefixes reads -trusted-proxies: CIDRs, or addresses standing for
// themselves.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			addr, addrErr := netip.ParseAddr(item)
			if addrErr != nil {
				return nil, fmt.Errorf("%w: -trusted-proxies: %q is not a CIDR or an IP address", errUsage, item)
			}
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// allowedHosts is -allowed-hosts as a list. Without one, a server listening
// on loopback answers only to loopback names and its listen address, which
// a DNS-rebinding page cannot send; one listening elsewhere answers any Host.
func allowedHosts(given, listen string) []string {
	if given != "" {
		return strings.Split(given, ",")
	}
	host, loopback := loopbackHost(listen)
	if !loopback {
		return nil
	}
	return []string{"localhost", "127.0.0.1", "::1", host}
}
