package server

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// middleware wraps the mux: panics become 500s, every response gets the
// security headers, cross-site POSTs are refused (CSRF), unknown routes and
// wrong methods get JSON errors, and each request is logged without its
// body or query string (either may hold a secret).
func (s *Server) middleware(mux *http.ServeMux) http.Handler {
	csrf := http.NewCrossOriginProtection()
	// The payment provider's webhook is server-to-server and signed; it
	// never carries a browser's cookies.
	csrf.AddInsecureBypassPattern("POST /billing/payments/webhook")
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, newError(http.StatusForbidden, "cross_origin_request", "cross-origin request refused"))
	}))
	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			s.routeError(w, r, mux)
			return
		}
		mux.ServeHTTP(w, r)
	})
	inner := csrf.Handler(routed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		setSecurityHeaders(rec.Header(), r.URL.Path)
		defer func() {
			if p := recover(); p != nil {
				s.Logger.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				if !rec.wrote {
					s.writeError(rec, r, errInternal)
				}
			}
			s.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
		}()
		inner.ServeHTTP(rec, r)
	})
}

// routeError answers a request no route matched: 405 with Allow when the
// path exists under another method, else 404, both as JSON.
func (s *Server) routeError(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) {
	probe := &statusRecorder{ResponseWriter: discardWriter{header: http.Header{}}}
	h, _ := mux.Handler(r)
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.Header().Get("Allow"))
		s.writeError(w, r, newError(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, probe.Header().Get("Allow")))
		return
	}
	s.writeError(w, r, newError(http.StatusNotFound, "not_found", "no route %s %s", r.Method, r.URL.Path))
}

// Header values are built once; every response shares these slices, which
// nothing modifies (a handler replacing a header replaces the slice).
var (
	commonHeaders = map[string][]string{
		"X-Content-Type-Options": {"nosniff"},
		"Referrer-Policy":        {"no-referrer"},
		"X-Frame-Options":        {"DENY"},
	}
	apiHeaders = map[string][]string{
		"X-Api-Version":           {APIVersion},
		"Cache-Control":           {"no-store"},
		"Content-Security-Policy": {"default-src 'none'; frame-ancestors 'none'"},
	}
	// Pages: only our own embedded scripts, styles and images; no inline script.
	pageHeaders = map[string][]string{
		"Content-Security-Policy": {"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"},
	}
)

func setSecurityHeaders(h http.Header, path string) {
	for k, v := range commonHeaders {
		h[k] = v
	}
	extra := pageHeaders
	if strings.HasPrefix(path, "/api/") {
		extra = apiHeaders
	}
	for k, v := range extra {
		h[k] = v
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(status int) {
	if !r.wrote {
		r.status = status
		r.wrote = true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
