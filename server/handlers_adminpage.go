package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sizes of the admin page's lists: accounts page by ?offset=, the other two
// show only the latest entries (the /boss/ list routes page through all).
const (
	adminPageAccounts    = defaultPageLimit
	adminPageSuggestions = 10
	adminPageAuditEvents = 20
)

// adminPageData is what templates/admin.html shows.
type adminPageData struct {
	Accounts    []adminAccount
	Suggestions []adminSuggestion
	AuditEvents []adminAuditEvent
	Plans       []string
	Offset      int
	PrevOffset  int
	HasPrev     bool
	HasNext     bool
	NextOffset  int
}

// adminNotices are the admin page's fixed success messages, named by ?done=.
var adminNotices = map[string]string{
	"plan_set":        "The plan was set.",
	"product_created": "The product was created.",
}

// handleAdminPage serves GET /admin: a login is needed (303 to /login
// without one) and the account must be an administrator (403 otherwise).
func (s *Server) handleAdminPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		v := s.newView(r)
		v.Account = a
		if !a.Admin {
			v.Error = errForbidden.msg
			s.render(w, r, http.StatusForbidden, "admin", v)
			return
		}
		offset, err := strconv.Atoi(r.URL.Query().Get("offset"))
		if err != nil || offset < 0 {
			offset = 0
		}
		s.renderAdminPage(w, r, http.StatusOK, offset, "")
	})
}

// renderAdminPage shows the admin page from offset into the accounts, with
// a failure message if one is given.
func (s *Server) renderAdminPage(w http.ResponseWriter, r *http.Request, status, offset int, failure string) {
	// One more than a page tells whether a next page exists.
	accounts, err := s.listAccounts(r, adminPageAccounts+1, offset)
	var suggestions, events any
	if err == nil {
		suggestions, err = s.listSuggestions(r, adminPageSuggestions, 0)
	}
	if err == nil {
		events, err = s.listAuditEvents(r, adminPageAuditEvents, 0)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d := adminPageData{
		Accounts: accounts.([]adminAccount), Suggestions: suggestions.([]adminSuggestion),
		AuditEvents: events.([]adminAuditEvent), Offset: offset,
		HasPrev: offset > 0, PrevOffset: max(offset-adminPageAccounts, 0), NextOffset: offset + adminPageAccounts,
	}
	for _, p := range planBlurbs {
		d.Plans = append(d.Plans, p.Name)
	}
	if len(d.Accounts) > adminPageAccounts {
		d.Accounts, d.HasNext = d.Accounts[:adminPageAccounts], true
	}
	v := s.newView(r)
	v.Notice = adminNotices[r.URL.Query().Get("done")]
	v.Error = failure
	v.Data = d
	s.render(w, r, status, "admin", v)
}

// formToJSON turns an admin form's fields into the JSON body of a /boss/
// route: empty fields are left out (optional), numbers become numbers and
// a date (YYYY-MM-DD) becomes the last second of that day in UTC.
func formToJSON(form url.Values, numbers, dates []string) ([]byte, error) {
	body := map[string]any{}
	for name := range form {
		value := strings.TrimSpace(form.Get(name))
		if value == "" {
			continue
		}
		switch {
		case slices.Contains(numbers, name):
			i, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return nil, badRequest("field %q must be a whole number", name)
			}
			body[name] = i
		case slices.Contains(dates, name):
			day, err := time.Parse(time.DateOnly, value)
			if err != nil {
				return nil, badRequest("field %q must be a date like 2026-12-31", name)
			}
			body[name] = day.Add(24*time.Hour - time.Second).Format(time.RFC3339)
		default:
			body[name] = value
		}
	}
	return json.Marshal(body)
}

// capturedResponse holds what a JSON handler answered, so a form route can
// turn it into a redirect or an error on the page.
type capturedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *capturedResponse) Header() http.Header { return c.header }
func (c *capturedResponse) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(p)
}
func (c *capturedResponse) WriteHeader(status int) { c.status = status }

// adminForm serves an admin page form by way of the JSON route h, so the
// checks and the audit stay in one place: success is 303 to the admin page
// with the notice done, a refusal shows the page again with the message.
// adminOnly guards the route like every /boss/ route.
func (s *Server) adminForm(h http.Handler, done string, numbers, dates []string) http.Handler {
	return s.adminOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		var form url.Values
		if err == nil {
			form, err = url.ParseQuery(string(raw))
			if err != nil {
				err = badRequest("malformed form body")
			}
		}
		var body []byte
		if err == nil {
			body, err = formToJSON(form, numbers, dates)
		}
		if err != nil {
			ae := s.publicError(r, err)
			s.renderAdminPage(w, r, ae.status(), 0, ae.msg)
			return
		}
		inner := r.Clone(r.Context())
		inner.Body = io.NopCloser(bytes.NewReader(body))
		inner.ContentLength = int64(len(body))
		inner.Header.Set("Content-Type", "application/json")
		answer := &capturedResponse{header: http.Header{}}
		h.ServeHTTP(answer, inner)
		if answer.status == http.StatusOK {
			http.Redirect(w, r, "/admin?done="+done, http.StatusSeeOther)
			return
		}
		var failure errorBody
		if json.Unmarshal(answer.body.Bytes(), &failure) != nil || failure.Error == "" {
			failure.Error = errInternal.msg
		}
		s.renderAdminPage(w, r, answer.status, 0, failure.Error)
	}))
}
