package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// What the server knows of the network in front of it: which peers are
// proxies whose forwarding headers it believes, and which host names it
// answers for.

// hstsValue asks browsers to use HTTPS only for a year; it is sent only
// on responses that came over HTTPS, as RFC 6797 requires.
var hstsValue = []string{"max-age=31536000"}

// forwardedHTTPS marks, in a request's context, a request that a trusted
// proxy received over HTTPS.
type forwardedHTTPS struct{}

// frontDoor runs before routing. It refuses a Host this server does not
// answer for (421: a DNS-rebinding page reaching a loopback server sends
// its own name), except /health asked with no Host at all (a load
// balancer's health check, as HAProxy's default option httpchk sends; no
// browser sends a request without Host), takes the client address and scheme from a trusted
// proxy's headers, and sends HSTS on HTTPS. It returns the request to
// serve, or nil once it has answered.
func (s *Server) frontDoor(w http.ResponseWriter, r *http.Request) *http.Request {
	if s.allowedHosts != nil && !s.allowedHosts[hostName(r.Host)] && (r.Host != "" || r.URL.Path != "/health") {
		s.writeError(w, r, newError(codeHostNotAllowed, "this server does not answer for the host %q (see -allowed-hosts)", truncate(r.Host, 100)))
		return nil
	}
	r = s.forwarded(r)
	if s.isHTTPS(r) {
		w.Header()["Strict-Transport-Security"] = hstsValue
	}
	return r
}

// hostName is a Host header's name, without port or brackets, lower-case,
// without a trailing dot.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

// hostSet is the set of allowed host names; nil (no check) when names is
// empty or holds "*".
func hostSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "*" {
			return nil
		}
		set[hostName(n)] = true
	}
	return set
}

// forwarded applies X-Forwarded-For and X-Forwarded-Proto when the peer is
// a trusted proxy: the client becomes the request's RemoteAddr (which the
// limiter and the audit log read), and HTTPS at the proxy is marked in the
// context (for the Secure cookie flag and HSTS). From anyone else the
// headers are ignored.
func (s *Server) forwarded(r *http.Request) *http.Request {
	if len(s.TrustedProxies) == 0 {
		return r
	}
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !s.trusts(peer.Addr()) {
		return r
	}
	ctx := r.Context()
	if proto := lastListItem(r.Header.Values("X-Forwarded-Proto")); strings.EqualFold(proto, "https") {
		ctx = context.WithValue(ctx, forwardedHTTPS{}, true)
	}
	r = r.WithContext(ctx) // a copy whose RemoteAddr is ours to change
	r.RemoteAddr = netip.AddrPortFrom(s.forwardedClient(peer.Addr(), r.Header.Values("X-Forwarded-For")), 0).String()
	return r
}

// forwardedClient walks X-Forwarded-For from the right, past trusted
// proxies, to the first address no trusted proxy owns: the one a client
// cannot have written itself. A malformed entry stops the walk.
func (s *Server) forwardedClient(peer netip.Addr, xff []string) netip.Addr {
	var hops []string
	for _, line := range xff {
		hops = append(hops, strings.Split(line, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0 && s.trusts(client); i-- {
		hop := strings.TrimSpace(hops[i])
		addr, err := netip.ParseAddr(hop)
		if err != nil {
			ap, err := netip.ParseAddrPort(hop)
			if err != nil {
				break
			}
			addr = ap.Addr()
		}
		client = addr.Unmap()
	}
	return client
}

func (s *Server) trusts(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range s.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// lastListItem is the last item of a comma-separated header: the one the
// nearest proxy wrote.
func lastListItem(values []string) string {
	if len(values) == 0 {
		return ""
	}
	last := values[len(values)-1]
	return strings.TrimSpace(last[strings.LastIndexByte(last, ',')+1:])
}

// isHTTPS reports a request that reached this server, or a trusted proxy
// in front of it, over TLS.
func (s *Server) isHTTPS(r *http.Request) bool {
	return r.TLS != nil || (len(s.TrustedProxies) > 0 && r.Context().Value(forwardedHTTPS{}) != nil)
}

// HostCheck gives a side listener's handler (-metrics-addr, -pprof-addr)
// the Host check the API's listener has: a request naming a host outside
// names answers 421 host_not_allowed, so a DNS-rebinding page that made its
// own name point at a loopback listener cannot read it. names are as in
// Deps.AllowedHosts: empty, or holding "*", checks nothing.
func HostCheck(names []string, next http.Handler) http.Handler {
	allowed := hostSet(names)
	if allowed == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[hostName(r.Host)] {
			msg := fmt.Sprintf("this listener does not answer for the host %q (see -allowed-hosts)", truncate(r.Host, 100))
			writeJSON(w, codeHostNotAllowed.Status, errorBody{Error: msg, Code: codeHostNotAllowed.Name})
			return
		}
		next.ServeHTTP(w, r)
	})
}
