package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"secutil/store"
)

// docPages are the documentation pages that need nothing but the view,
// each templates/docs/<name>.html, served at /docs/<name>. The errors page
// is rendered from the error vocabulary (handleErrorsPage).
var docPages = []string{"authentication", "getting_started", "hashes", "ip_info", "privacy", "rate_limits", "readme", "security", "terms"}

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

// loadPages parses base.html together with each page file, so every page
// is its own template set sharing one layout.
func loadPages(assets fs.FS) (*pages, error) {
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
	Version string
	Account *store.Account // nil when not logged in
	Error   string
	Notice  string
	Email   string // prefills the email field of a form
	Data    T
}

// noData is the Data of a page that shows only the view.
type noData struct{}

// notices are the messages a redirect may ask a page to show; only these
// fixed texts can appear, so a link cannot put words in our mouth.
var notices = map[string]string{
	"verified":         "Your account is verified: log in to continue.",
	"password_changed": "Your password was changed and every session was logged out: log in with the new one.",
	"key_revoked":      "The key was revoked: it stops working at once.",
}

// newView starts a page's view from the request: the logged-in account (if
// any), a notice named in the query and an email to prefill.
func newView[T any](s *Server, r *http.Request, data T) view[T] {
	v := view[T]{Path: r.URL.Path, Version: s.Version, Notice: notices[r.URL.Query().Get("notice")], Data: data}
	if a, err := s.sessionAccount(r); err == nil {
		v.Account = a
	}
	if email := r.URL.Query().Get("email"); len(email) <= 254 {
		v.Email = email
	}
	return v
}

// render executes a page into a buffer first, so a template error becomes a
// clean 500 rather than half a page.
func render[T any](s *Server, w http.ResponseWriter, r *http.Request, status int, name string, v view[T]) {
	var buf bytes.Buffer
	t, ok := s.pages.templates[name]
	if !ok {
		s.writeError(w, r, fmt.Errorf("no template %q", name))
		return
	}
	if err := t.ExecuteTemplate(&buf, "base", v); err != nil {
		s.writeError(w, r, fmt.Errorf("rendering %s: %w", name, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Pages show who is logged in (and sometimes a fresh key): never cache them.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// handlePage serves a page that needs nothing but the view.
func (s *Server) handlePage(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		render(s, w, r, http.StatusOK, name, newView(s, r, noData{}))
	})
}

// handleErrorsPage serves /docs/errors: every code of the vocabulary, with
// its status, from the table writeError uses.
func (s *Server) handleErrorsPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		render(s, w, r, http.StatusOK, "docs/errors", newView(s, r, errorCodes))
	})
}

// handleStatic serves an embedded asset. A URL carrying the asset's current
// hash is cached for a year; any other gets revalidated by ETag.
func (s *Server) handleStatic() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
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
		http.ServeContent(w, r, path.Base(name), time.Time{}, bytes.NewReader(f.body))
	})
}
