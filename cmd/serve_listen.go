package cmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"secutil/server"
)

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
				return nil, fmt.Errorf("%w: -trusted-proxies: %q is not a CIDR or an IP address", ErrUsage, item)
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

// sideListenerHosts is what a side listener (-metrics-addr, -pprof-addr)
// answers for: the names of -allowed-hosts and, on loopback, the loopback
// names, as the API's listener does, and its own listen address. On
// another address without -allowed-hosts it answers any Host (nil).
func sideListenerHosts(given, listen string) []string {
	hosts := allowedHosts("", listen)
	if given == "" {
		return hosts
	}
	hosts = append(hosts, strings.Split(given, ",")...)
	if host, _ := loopbackHost(listen); host != "" {
		hosts = append(hosts, host)
	}
	return hosts
}

// listeners are serve's: the API's, and the metrics' and the profiler's
// when asked for, with the hosts each side listener answers for.
type listeners struct {
	api, metrics, pprof      net.Listener // nil when not asked for
	scheme                   string       // of the API: http or https
	metricsHosts, pprofHosts []string     // nil: any
}

// listen opens serve's listeners. A busy port fails here, before the
// database is created; connections wait in the backlog until the server
// is ready.
func listen(c serveConfig, tlsConfig *tls.Config) (_ *listeners, err error) {
	l := &listeners{
		scheme:       "http",
		metricsHosts: sideListenerHosts(c.allowedHosts, c.metricsAddr),
		pprofHosts:   sideListenerHosts(c.allowedHosts, c.pprofAddr),
	}
	defer func() {
		if err != nil {
			l.close() // those opened before the one that failed
		}
	}()
	l.api, err = net.Listen("tcp", c.addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("-addr %s is in use (by another secutil?): stop it or choose another port: %w", c.addr, err)
	}
	if err != nil {
		return nil, fmt.Errorf("-addr %s: %w", c.addr, err)
	}
	if c.metricsAddr != "" {
		if l.metrics, err = net.Listen("tcp", c.metricsAddr); err != nil {
			return nil, fmt.Errorf("-metrics-addr: %w", err)
		}
	}
	if c.pprofAddr != "" {
		if l.pprof, err = net.Listen("tcp", c.pprofAddr); err != nil {
			return nil, fmt.Errorf("-pprof-addr: %w", err)
		}
	}
	if tlsConfig != nil {
		l.api = tls.NewListener(l.api, tlsConfig)
		l.scheme = "https"
	}
	return l, nil
}

func (l *listeners) close() {
	for _, ln := range []net.Listener{l.api, l.metrics, l.pprof} {
		if ln != nil {
			ln.Close()
		}
	}
}

// listening is an HTTP server and the listener it serves.
type listening struct {
	srv *http.Server
	ln  net.Listener
}

// servers are the HTTP servers of the listeners: the API's handler, GET
// /metrics and the profiler. It tells the operator where the last two are.
func (l *listeners) servers(handler http.Handler, metrics *server.Metrics, tlsConfig *tls.Config, logger *slog.Logger, stdout io.Writer) []listening {
	api := newHTTPServer(handler, logger)
	api.ConnState = metrics.ConnState
	api.TLSConfig = tlsConfig
	out := []listening{{api, l.api}}
	if l.metrics != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		out = append(out, listening{newHTTPServer(server.HostCheck(l.metricsHosts, mux), logger), l.metrics})
		fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", l.metrics.Addr())
	}
	if l.pprof != nil {
		psrv := newHTTPServer(server.HostCheck(l.pprofHosts, profiler()), logger)
		psrv.WriteTimeout = 0 // a CPU profile or trace streams for as long as it was asked to
		out = append(out, listening{psrv, l.pprof})
		fmt.Fprintf(stdout, "profiler on http://%s/debug/pprof/\n", l.pprof.Addr())
	}
	return out
}

// shutdownTimeout bounds how long in-flight requests may take to finish
// once serve is told to stop.
const shutdownTimeout = 30 * time.Second

// serveUntil serves every listener until ctx ends or one of them fails,
// drains when SIGTERM ended ctx (drain.run), then shuts them all down:
// each stops accepting and lets its in-flight requests finish (their usage
// commits included). It returns once every Serve has returned.
func serveUntil(ctx context.Context, servers []listening, d *drain, logger *slog.Logger) error {
	errc := make(chan error, len(servers)) // one send per server: none blocks
	var serving sync.WaitGroup
	for _, s := range servers {
		serving.Go(func() { errc <- s.srv.Serve(s.ln) })
	}
	var failed error
	select {
	case failed = <-errc:
	case <-ctx.Done():
		failed = d.run(ctx, errc, logger)
		logger.Info("shutting down")
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.srv.Shutdown(shutdownCtx))
	}
	serving.Wait()
	if failed != nil {
		return failed
	}
	return errors.Join(errs...)
}
