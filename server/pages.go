package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"net/http"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"secutil/server/internal/apiref"
	"secutil/tools/plural"

	"secutil/store"
)

// docPages are the documentation pages that need nothing but the view,
// each templates/docs/<name>.html, served at /docs/<name>. The errors page
// is rendered from the error vocabulary (handleErrorsPage).
var docPages = []string{"authentication", "getting_started", "hashes", "ip_info", "operating", "privacy", "rate_limits", "readme", "security", "terms"}

// pages holds the templates, parsed once at start, and the static assets
// with their content hashes (the hash versions the URL and is the ETag).
type pages struct {
	templates map[string]*template.Template // "login", "docs/errors", ...
	static    map[string]staticFile         // "app.css" → file
	openAPI   []byte
	reference *apiReference
}

type staticFile struct {
	body []byte
	hash string
}

// parsedPages are the pages last loaded, by the digest of the assets they
// came from. Parsing the templates and the API reference costs tens of
// milliseconds and megabytes of garbage; a process that makes many servers
// from the same assets (the tests make hundreds) does it once. Nothing
// changes pages once loaded, and templates execute concurrently.
var parsedPages struct {
	sync.Mutex
	digest [sha256.Size]byte
	pages  *pages
}

// loadPages returns the pages of assets, parsed once for the same content.
func loadPages(assets fs.FS) (*pages, error) {
	digest, err := assetsDigest(assets)
	if err != nil {
		return nil, err
	}
	parsedPages.Lock()
	defer parsedPages.Unlock()
	if parsedPages.pages != nil && parsedPages.digest == digest {
		return parsedPages.pages, nil
	}
	p, err := parsePages(assets)
	if err != nil {
		return nil, err
	}
	parsedPages.digest, parsedPages.pages = digest, p
	return p, nil
}

// assetsDigest hashes the name and content of every file under templates/
// and static/, everything parsePages reads.
func assetsDigest(assets fs.FS) ([sha256.Size]byte, error) {
	sum := sha256.New()
	buf := make([]byte, 32<<10)
	for _, dir := range []string{"templates", "static"} {
		err := fs.WalkDir(assets, dir, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			// Streamed, not read whole: ReadFile copies each file, which
			// touched half a megabyte at every start just to compare.
			info, err := d.Info()
			if err != nil {
				return err
			}
			f, err := assets.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			fmt.Fprintf(sum, "%s\x00%d\x00", name, info.Size())
			_, err = io.CopyBuffer(sum, f, buf)
			return err
		})
		if err != nil {
			return [sha256.Size]byte{}, err
		}
	}
	return [sha256.Size]byte(sum.Sum(nil)), nil
}

// parsePages parses base.html together with each page file, so every page
// is its own template set sharing one layout.
func parsePages(assets fs.FS) (*pages, error) {
	p := &pages{templates: map[string]*template.Template{}, static: map[string]staticFile{}}
	err := fs.WalkDir(assets, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(assets, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		p.static[strings.TrimPrefix(name, "static/")] = staticFile{body: body, hash: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		return nil, err
	}
	funcs := template.FuncMap{
		"asset": func(name string) (string, error) {
			f, ok := p.static[name]
			if !ok {
				return "", fmt.Errorf("no static asset %q", name)
			}
			return "/static/" + name + "?v=" + f.hash, nil
		},
		"sentence":  sentence,
		"count":     plural.Count[int],
		"decimal":   decimal,
		"percent":   func(fraction float64) string { return strconv.Itoa(int(math.Round(fraction*100))) + "%" },
		"thousands": thousands,
		"datetime":  func(t *time.Time) string { return t.UTC().Format("2 Jan 2006 15:04 UTC") },
		"date": func(t any) string {
			switch v := t.(type) {
			case time.Time:
				return v.UTC().Format("2 Jan 2006")
			case *time.Time:
				if v != nil {
					return v.UTC().Format("2 Jan 2006")
				}
			}
			return ""
		},
	}
	base, err := template.New("base.html").Funcs(funcs).ParseFS(assets, "templates/base.html")
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	docs, err := fs.Glob(assets, "templates/docs/*.html")
	if err != nil {
		return nil, err
	}
	for _, file := range append(files, docs...) {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "templates/"), ".html")
		if name == "base" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(assets, file)
		if err != nil {
			return nil, err
		}
		p.templates[name] = t
	}
	for _, name := range append(docPages, "errors") {
		if p.templates["docs/"+name] == nil {
			return nil, fmt.Errorf("missing template docs/%s.html", name)
		}
	}
	if p.openAPI, err = fs.ReadFile(assets, "static/openapi.json"); err != nil {
		return nil, err
	}
	if p.reference, err = newAPIReference(p.openAPI); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	return p, nil
}

// view is what every page template sees; Data is the page's own, typed
// per page (noData for the pages that have none).
type view[T any] struct {
	Path    string
	Origin  string // scheme://host of the request, for ready-to-run curl lines
	Version string
	Account *store.Account // nil when not logged in
	Error   string
	Notice  string
	Email   string // prefills the email field of a form
	Next    string // the page a login goes back to (login.html)
	Token   string // the hidden token of a setup or invite form, kept when the form is shown again
	// Registration is the server's policy: pages offer to create an
	// account only when it is open.
	Registration RegistrationPolicy
	// CodesInLog is set on a server without mail: codes are in its log, so
	// the pages tell users to ask the operator.
	CodesInLog bool
	Data       T
}

// noData is the Data of a page that shows only the view.
type noData struct{}

// notices are the messages a redirect may ask a page to show; only these
// fixed texts can appear, so a link cannot put words in our mouth.
var notices = map[string]string{
	"verified":         "Your account is verified and you are logged in: create an API key to call the API.",
	"logged_out":       "You are logged out.",
	"password_changed": "Your password was changed and every session was logged out: log in with the new one.",
	"key_revoked":      "The key was revoked: it stops working at once.",
	"plan_starter":     "You are on the starter plan now: 100 metered items a month.",
	"plan_cancelled":   "Your paid plan is cancelled: it stays until its paid-until date, then you are on starter.",
	"account_deleted":  "Your account was deleted and you are logged out.",

	"own_password_changed":              "Your password was changed: every other session was logged out, your API keys still work.",
	"own_password_changed_keys_revoked": "Your password was changed: every other session was logged out and every API key revoked.",
}

// newView starts a page's view from the request: the logged-in account (if
// any), a notice named in the query and an email to prefill.
func newView[T any](s *Server, r *http.Request, data T) view[T] {
	v := view[T]{Path: r.URL.Path, Origin: s.requestOrigin(r), Version: s.Version, Notice: notices[r.URL.Query().Get("notice")], Data: data,
		Registration: s.registration, CodesInLog: s.codesInLog}
	if a, err := s.sessionAccount(r); err == nil {
		v.Account = a
	}
	if email := r.URL.Query().Get("email"); len(email) <= 254 {
		v.Email = email
	}
	if next := r.URL.Query().Get("next"); localPath(next) {
		v.Next = next
	}
	return v
}

// render executes a page into a buffer first, so a template error becomes a
// clean 500 rather than half a page.
func render[T any](s *Server, w http.ResponseWriter, r *http.Request, status int, name string, v view[T]) {
	var page, alerts bytes.Buffer
	t, ok := s.pages.templates[name]
	if !ok {
		s.writeError(w, r, fmt.Errorf("no template %q", name))
		return
	}
	if err := t.ExecuteTemplate(&page, "base", v); err != nil {
		s.writeError(w, r, fmt.Errorf("rendering %s: %w", name, err))
		return
	}
	if err := t.ExecuteTemplate(&alerts, "alerts", v); err != nil {
		s.writeError(w, r, fmt.Errorf("rendering the alerts of %s: %w", name, err))
		return
	}
	h := w.Header()
	// A page can answer under /api/ too (a browser's 404): it gets the
	// page's policy, which lets it load its stylesheet.
	setHeaders(h, s.pageHeaders)
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Pages show who is logged in (and sometimes a fresh key): never cache them.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(placeAlerts(page.Bytes(), bytes.TrimSpace(alerts.Bytes())))
}

// mainStart opens the content of every page (templates/base.html).
const mainStart = `<main><div class="wrap">`

// placeAlerts puts a page's alerts under its heading: after the first
// </h1> of its content, or at the top of the content when it has none.
// Pages keep headings of their own (a hero, a badge), and none can forget
// where its alerts go.
func placeAlerts(page, alerts []byte) []byte {
	if len(alerts) == 0 {
		return page
	}
	main := bytes.Index(page, []byte(mainStart))
	if main < 0 {
		return page
	}
	at := main + len(mainStart)
	if h1 := bytes.Index(page[at:], []byte("</h1>")); h1 >= 0 {
		at += h1 + len("</h1>")
	}
	return slices.Concat(page[:at], []byte("\n"), alerts, page[at:])
}

// sentence makes a message a sentence: a capital letter first and a full
// stop last (unless it ends in one, or in "?" or "!"). The API's messages
// are written to go after a colon ("error: no API key: ..."), so they start
// in lower case and end without one; a page shows them on their own.
func sentence(msg string) string {
	if msg == "" {
		return ""
	}
	first, size := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(first)) + msg[size:]
	if !strings.ContainsAny(msg[len(msg)-1:], ".?!") {
		msg += "."
	}
	return msg
}

// thousands writes n with a thin space between groups of three digits.
func thousands(n int64) string {
	digits := strconv.FormatInt(n, 10)
	var out strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 && digits[i-1] != '-' {
			out.WriteString("\u202f")
		}
		out.WriteRune(d)
	}
	return out.String()
}

// validHost is a host name or address with an optional port: what the
// pages may put in a curl line someone pastes into a shell. It is compiled
// on first use, so that a process that serves no page (secutil version)
// does not pay for it at start.
var validHost = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9.-]+(:[0-9]+)?$|^\[[0-9A-Fa-f:.]+\](:[0-9]+)?$`)
})

// requestOrigin is the scheme and host this request reached the server
// by, for the curl lines of the pages: http://127.0.0.1:8080 on a laptop,
// the public name behind a proxy (HTTPS as a trusted proxy says). A host
// that is not a plain name or address (the Host header is the client's to
// write) falls back to localhost rather than reach a shell.
func (s *Server) requestOrigin(r *http.Request) string {
	scheme := "http"
	if s.isHTTPS(r) {
		scheme = "https"
	}
	host := r.Host
	if !validHost().MatchString(host) {
		host = "localhost"
	}
	return scheme + "://" + host
}

// handlePage serves a page that needs nothing but the view.
func (s *Server) handlePage(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		render(s, w, r, http.StatusOK, name, newView(s, r, noData{}))
	})
}

// statusPage is what templates/status.html shows: a request that has no
// page, for a browser.
type statusPage struct {
	Status  int
	Title   string
	Message string
}

// renderStatus shows a browser the error err as a page with its status.
func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, err *apiError) {
	v := newView(s, r, statusPage{Status: err.status(), Title: http.StatusText(err.status()), Message: err.msg})
	render(s, w, r, err.status(), "status", v)
}

// errorsPage is what /docs/errors shows: every code of the vocabulary,
// with its status, from the table writeError uses; and the utilities whose
// own answer has an "error" field, as their declarations' response types
// say.
type errorsPage struct {
	Codes          []*errorCode
	WithErrorField []string // paths, in the order of the declarations
}

// handleErrorsPage serves /docs/errors.
func (s *Server) handleErrorsPage() http.Handler {
	page := errorsPage{Codes: errorCodes}
	for _, u := range utilities {
		if hasJSONField(u.response, "error") {
			page.WithErrorField = append(page.WithErrorField, u.path)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		render(s, w, r, http.StatusOK, "docs/errors", newView(s, r, page))
	})
}

// hasJSONField reports whether the struct type t encodes a field named
// name at its top level.
func hasJSONField(t reflect.Type, name string) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for f := range t.Fields() {
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name {
			return true
		}
	}
	return false
}

// handleStatic serves an embedded asset. A URL carrying the asset's current
// hash is cached for a year; any other gets revalidated by ETag.
func (s *Server) handleStatic() http.Handler {
	return s.serveStatic(func(r *http.Request) string { return r.PathValue("name") })
}

// handleFavicon serves the site's SVG icon at /favicon.ico, where browsers
// look for an icon when a page names none (and for anything not a page).
func (s *Server) handleFavicon() http.Handler {
	return s.serveStatic(func(*http.Request) string { return "favicon.svg" })
}

// serveStatic serves the static asset that nameOf names.
func (s *Server) serveStatic(nameOf func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := nameOf(r)
		f, ok := s.pages.static[name]
		if !ok {
			s.writeError(w, r, newError(codeNotFound, "no route %s %s", r.Method, r.URL.Path))
			return
		}
		if r.URL.Query().Get("v") == f.hash {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("ETag", `"`+f.hash+`"`)
		serveContent(w, r, path.Base(name), time.Time{}, f.body)
	})
}

// apiReference is the readable form of openapi.json that /docs shows
// (read by apiref).
type apiReference = apiref.Reference

func newAPIReference(openAPI []byte) (*apiReference, error) { return apiref.Parse(openAPI) }

// handleOpenAPI serves the OpenAPI document the reference is made from.
func (s *Server) handleOpenAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(s.pages.openAPI)
	})
}

// handleReference renders the API reference at /docs.
func (s *Server) handleReference() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := newView(s, r, s.pages.reference)
		v.Path = "/docs"
		render(s, w, r, http.StatusOK, "docs_index", v)
	})
}

const robotsTxt = `User-agent: *
Disallow: /api/
Disallow: /dashboard
Disallow: /boss/
Disallow: /billing/
Allow: /
`

func handleRobots() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, robotsTxt)
	})
}
