package server

import (
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"secutil/tools/closest"

	"secutil/server/internal/accesslog"
)

// middleware wraps the mux in one adapter, the only level a request
// passes before its route's handler: panics become 500s, every response
// gets its security headers, requests pass the front door (allowed hosts,
// trusted proxies, HSTS: proxy.go), cross-site POSTs are refused (CSRF),
// unknown routes and wrong methods get JSON errors (noRoute), and each
// request is logged without its body or query string (either may hold a
// secret) and counted in the metrics.
func (s *Server) middleware(mux *http.ServeMux) http.Handler {
	csrf := http.NewCrossOriginProtection()
	// The payment provider's webhook is server-to-server and signed; it
	// never carries a browser's cookies.
	csrf.AddInsecureBypassPattern("POST /billing/payments/webhook")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		s.setSecurityHeaders(rec.Header(), r.URL.Path)
		// routed is the request the mux saw, which carries the route's
		// pattern: behind a trusted proxy, a copy of r.
		var routed *http.Request
		defer func() {
			if rec.body.s != nil {
				rec.body.finish()
			}
			if p := recover(); p != nil {
				s.Logger.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				if !rec.wrote {
					s.writeError(rec, r, errInternal)
				}
			}
			now := time.Now()
			took := now.Sub(start)
			s.accessLog(r, rec.status, now, took)
			pattern := ""
			if routed != nil {
				pattern = routed.Pattern
			}
			s.Metrics.request(pattern, rec.status, took)
		}()
		served := s.frontDoor(rec, r)
		if served == nil {
			return
		}
		// CrossOriginProtection's check without its Handler, one level
		// fewer: GET, HEAD and OPTIONS pass at once, a POST without
		// Sec-Fetch-Site or Origin (an API client) after two header reads.
		if err := csrf.Check(served); err != nil {
			s.writeError(rec, served, errCrossOrigin)
			return
		}
		routed = served
		if served.Body != nil && served.Body != http.NoBody {
			// In the recorder's allocation, not one of its own.
			rec.body.ReadCloser, rec.body.s, rec.body.req, rec.body.header, rec.body.arrived = served.Body, s, served, rec.Header(), start
			rec.body.conn, _ = w.(readDeadliner)
			served.Body = &rec.body
		}
		mux.ServeHTTP(rec, served)
	})
}

// accessLog writes a request's log line. With Deps.AccessLog set, a plain
// line (see accesslog.Plain) is formatted by accesslog, byte for byte as
// slog's handler would, and written with one Write; anything else goes through Logger. It
// builds slog's record itself rather than call Logger.LogAttrs, which looks
// up its caller's program counter on every call: the line always comes
// from here.
func (s *Server) accessLog(r *http.Request, status int, now time.Time, duration time.Duration) {
	if s.AccessLogOff && !accesslog.Always(status, duration) {
		return
	}
	ctx := r.Context()
	h := s.Logger.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	took := float64(duration.Microseconds()) / 1000
	if s.AccessLog != nil && accesslog.Plain(r.Method) && accesslog.Plain(r.URL.Path) {
		buf := getBuffer()
		buf.Write(accesslog.AppendLine(buf.AvailableBuffer(), s.LogFormat == "json", now, r.Method, r.URL.Path, status, took))
		s.AccessLog.Write(buf.Bytes()) // as in Logger.LogAttrs, a failed log write fails nothing
		putBuffer(buf)
		return
	}
	line := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	line.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Float64("duration_ms", took))
	_ = h.Handle(ctx, line)
}

// noRoute answers the requests no route matched: 405 with Allow when the
// path exists under another method, else 404. A browser asking for a page
// (Accept: text/html) gets it as a page in the site's style; API clients
// get JSON. It is registered as "/", the least specific pattern, so the mux
// matches each request once and only a miss pays for finding the allowed
// methods.
//
// A 404 names the route nearest to the path, when one is near enough
// ("did you mean POST /api/v1/base64?"): routes is every "METHOD /path"
// pattern the server has.
func (s *Server) noRoute(mux *http.ServeMux, routes []string) http.Handler {
	var paths []string
	methods := map[string]string{} // a path's first method, for the hint
	for _, pattern := range routes {
		method, path, _ := strings.Cut(pattern, " ")
		if _, seen := methods[path]; !seen && !strings.Contains(path, "{") {
			methods[path] = method
			paths = append(paths, path)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := newError(codeNotFound, "no route %s %s", r.Method, r.URL.Path)
		if near, ok := closest.Match(r.URL.Path, paths); ok {
			err = newError(codeNotFound, "no route %s %s; did you mean %s %s?", r.Method, r.URL.Path, methods[near], near)
		}
		if allow := allowedMethods(mux, r); allow != "" {
			w.Header().Set("Allow", allow)
			err = newError(codeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, allow)
		}
		if strings.Contains(r.Header.Get("Accept"), "text/html") {
			s.renderStatus(w, r, err)
			return
		}
		s.writeError(w, r, err)
	})
}

// errCrossOrigin refuses a browser's POST from another site. A web app's
// page cannot call the API with a key (the key would sit in every
// visitor's browser), so the message says where the call belongs.
var errCrossOrigin = newError(codeCrossOrigin, "cross-origin request refused: a web page on another site cannot call this API from the browser, because an API key in a page is a key given to every visitor; call the API from your own server with the key, and have your page ask your server")

// recordingMux is the server's mux, keeping the patterns registered on it
// for noRoute's hints.
type recordingMux struct {
	*http.ServeMux
	routes []string
}

func (m *recordingMux) Handle(pattern string, handler http.Handler) {
	m.routes = append(m.routes, pattern)
	m.ServeMux.Handle(pattern, handler)
}

// probeMethods are the methods tried for a 405's Allow header, sorted as
// the mux sorts its own.
var probeMethods = []string{
	http.MethodConnect, http.MethodDelete, http.MethodGet, http.MethodHead, http.MethodOptions,
	http.MethodPatch, http.MethodPost, http.MethodPut, http.MethodTrace,
}

// allowedMethods lists the methods under which a route other than noRoute
// serves r's path.
func allowedMethods(mux *http.ServeMux, r *http.Request) string {
	var allow []string
	for _, method := range probeMethods {
		probe := r.WithContext(r.Context()) // a shallow copy
		probe.Method = method
		if _, pattern := mux.Handler(probe); pattern != "/" {
			allow = append(allow, method)
		}
	}
	return strings.Join(allow, ", ")
}

// Header values are built once; every response shares these slices, which
// nothing modifies (a handler replacing a header replaces the slice). They
// are lists, not maps: ranging over a slice is cheaper, on every request.
type header struct {
	key   string // in canonical form
	value []string
}

// An API answer carries what an API client reads: nosniff (a JSON answer is
// never rendered as a page), the API version, and, set by the handlers,
// Content-Type and the RateLimit-* fields. A page's headers (CSP, framing,
// referrer) govern what a browser does with a document and go on pages
// only. Every /api route is a POST, whose answer no cache stores without
// explicit freshness, so API answers need no Cache-Control either.
var (
	commonHeaders = []header{
		{"X-Content-Type-Options", []string{"nosniff"}},
	}
	apiHeaders = []header{
		{"X-Api-Version", []string{APIVersion}},
	}
)

// pageHeaders are the headers of pages: only our own embedded scripts,
// styles and images, no inline script. Forms post to this server, and to
// the payment provider's origin when there is one: the plan form's answer
// is a redirect there, which form-action governs too.
func pageHeaders(checkoutOrigin string) []header {
	formAction := "'self'"
	if checkoutOrigin != "" {
		formAction += " " + checkoutOrigin
	}
	return []header{
		{"Referrer-Policy", []string{"no-referrer"}},
		{"X-Frame-Options", []string{"DENY"}},
		{"Content-Security-Policy", []string{"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src 'self'; form-action " + formAction + "; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"}},
	}
}

func (s *Server) setSecurityHeaders(h http.Header, path string) {
	setHeaders(h, commonHeaders)
	if strings.HasPrefix(path, "/api/") {
		setHeaders(h, apiHeaders)
	} else {
		setHeaders(h, s.pageHeaders)
	}
}

func setHeaders(h http.Header, list []header) {
	for _, kv := range list {
		h[kv.key] = kv.value
	}
}

// statusRecorder is the response writer handlers see: it notes the status
// for the log and the metrics, and holds the request's clientBody
// (decode.go).
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
	body   clientBody
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

// ReadFrom copies what http.ServeContent sends (a range answer, a static
// file: always bytes in memory) through one pooled buffer that holds a
// whole range answer, so that it reaches the connection in one Write.
// The connection's own ReadFrom can only splice or sendfile from files and
// sockets; for anything else it allocated a 32 KiB buffer a call and
// wrote the body in pieces after the headers and the first 512 bytes.
func (r *statusRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.wrote = true
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	return io.CopyBuffer(struct{ io.Writer }{r.ResponseWriter}, src, *buf)
}

// copyBuffers are ReadFrom's: 64 KiB, more than a padded range answer of a
// Pwned Passwords file (about 43 KB).
var copyBuffers = sync.Pool{New: func() any {
	buf := make([]byte, 64<<10)
	return &buf
}}
