package server

import (
	"context"
	"io"
	"net/http"
	"net/url"
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
	// Invites is set when the server's registration needs invites: the
	// page then offers to create one.
	Invites bool
	// NewInvite is an invite link just created, shown once.
	NewInvite *inviteResponse
	// ConfirmDelete is the account a delete button asked about: the page
	// asks to confirm.
	ConfirmDelete *adminAccount
}

// adminNotices are the admin page's fixed success messages, named by
// ?done=; the account actions add theirs (adminNotice).
var adminNotices = map[string]string{
	"plan_set":        "The plan was set.",
	"product_created": "The product was created.",
	"setup":           "Welcome: you are this server's first administrator. Your dashboard has your API keys; here you manage accounts.",
}

// adminNotice is the success message named done, "" for none.
func adminNotice(done string) string {
	for _, act := range accountActions {
		if act.Name == done {
			return act.done
		}
	}
	return adminNotices[done]
}

// handleAdminPage serves GET /admin: a login is needed (303 to /login
// without one) and the account must be an administrator (403 otherwise).
func (s *Server) handleAdminPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		if !a.Admin {
			v := newView(s, r, adminPageData{})
			v.Account = a
			v.Error = errForbidden.msg
			render(s, w, r, http.StatusForbidden, "admin", v)
			return
		}
		offset, err := strconv.Atoi(r.URL.Query().Get("offset"))
		if err != nil || offset < 0 {
			offset = 0
		}
		var confirm *adminAccount
		if email := r.URL.Query().Get("delete"); email != "" {
			if a, err := s.Store.AccountByEmail(r.Context(), email); err == nil {
				c := toAdminAccount(a, 0, s.Store.Now())
				confirm = &c
			}
		}
		s.renderAdminPage(w, r, http.StatusOK, offset, "", func(d *adminPageData) { d.ConfirmDelete = confirm })
	})
}

// adminPage gathers the admin page's lists from offset into the accounts.
func (s *Server) adminPage(ctx context.Context, offset int) (adminPageData, error) {
	// One more than a page tells whether a next page exists.
	accounts, err := s.listAccounts(ctx, adminPageAccounts+1, offset)
	if err != nil {
		return adminPageData{}, err
	}
	suggestions, err := s.listSuggestions(ctx, adminPageSuggestions, 0)
	if err != nil {
		return adminPageData{}, err
	}
	events, err := s.listAuditEvents(ctx, adminPageAuditEvents, 0)
	if err != nil {
		return adminPageData{}, err
	}
	d := adminPageData{
		Accounts: accounts, Suggestions: suggestions, AuditEvents: events, Offset: offset,
		HasPrev: offset > 0, PrevOffset: max(offset-adminPageAccounts, 0), NextOffset: offset + adminPageAccounts,
	}
	for _, p := range planBlurbs {
		d.Plans = append(d.Plans, p.Name)
	}
	if len(d.Accounts) > adminPageAccounts {
		d.Accounts, d.HasNext = d.Accounts[:adminPageAccounts], true
	}
	return d, nil
}

// renderAdminPage shows the admin page from offset into the accounts, with
// a failure message if one is given; more, if not nil, adds to the page.
func (s *Server) renderAdminPage(w http.ResponseWriter, r *http.Request, status, offset int, failure string, more func(*adminPageData)) {
	d, err := s.adminPage(r.Context(), offset)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d.Invites = s.Registration == RegistrationInvite
	if more != nil {
		more(&d)
	}
	v := newView(s, r, d)
	v.Notice = adminNotice(r.URL.Query().Get("done"))
	v.Error = failure
	render(s, w, r, status, "admin", v)
}

// handleAdminForm serves a form of the admin page with the action of the /boss/
// JSON route it mirrors, so the checks and the audit stay in one place:
// parse reads the form into that route's request, which is checked as the
// JSON one is. Success is 303 to the admin page with the notice done; a
// refusal shows the page again with the message. adminOnly guards the
// route like every /boss/ route.
func handleAdminForm[Q, T any](s *Server, done string, parse func(url.Values) (Q, error), act action[Q, T]) http.Handler {
	readRequest := func(w http.ResponseWriter, r *http.Request) (Q, error) {
		form, err := readForm(w, r)
		if err != nil {
			var zero Q
			return zero, err
		}
		req, err := parse(form)
		if err != nil {
			return req, err
		}
		return req, check(&req)
	}
	return s.adminOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, err := runAction(s, w, r, readRequest, act); err != nil {
			s.renderAdminFailure(w, r, err)
			return
		}
		http.Redirect(w, r, "/admin?done="+done, http.StatusSeeOther)
	}))
}

// handleAdminInvite serves the admin page's invite button: the new link is
// shown on the page that answers (never cached), not behind a redirect
// whose URL would keep it.
func (s *Server) handleAdminInvite() http.Handler {
	return s.adminOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, invite, err := runAction(s, w, r, decodeRequest[noRequest], s.createInvite)
		if err != nil {
			s.renderAdminFailure(w, r, err)
			return
		}
		s.renderAdminPage(w, r, http.StatusOK, 0, "", func(d *adminPageData) { d.NewInvite = &invite })
	}))
}

// renderAdminFailure shows the admin page again with a form's error and
// its status.
func (s *Server) renderAdminFailure(w http.ResponseWriter, r *http.Request, err error) {
	ae := s.publicError(r, err)
	s.renderAdminPage(w, r, ae.status(), 0, ae.msg, nil)
}

// accountForm reads the form of an account action's button.
func accountForm(form url.Values) (accountRequest, error) {
	return accountRequest{Email: formText(form, "email"), Confirm: formText(form, "confirm")}, nil
}

// readForm reads a urlencoded body, bounded like every body.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, badRequest("malformed form body")
	}
	return form, nil
}

// setPlanForm reads the admin page's set-plan form: an empty usage cap or
// date is left out, and a date (YYYY-MM-DD) is paid until the last second
// of that day in UTC.
func setPlanForm(form url.Values) (setPlanRequest, error) {
	req := setPlanRequest{Email: formText(form, "email"), Plan: formText(form, "plan")}
	usageCap, err := formNumber(form, "usage_cap")
	if err != nil {
		return req, err
	}
	if usageCap != nil {
		n := int(*usageCap)
		req.UsageCap = &n
	}
	if day := formText(form, "paid_until"); day != "" {
		t, err := time.Parse(time.DateOnly, day)
		if err != nil {
			return req, badRequest("field %q must be a date like 2026-12-31", "paid_until")
		}
		until := t.Add(24*time.Hour - time.Second).Format(time.RFC3339)
		req.PaidUntil = &until
	}
	return req, nil
}

// productForm reads the admin page's new-product form.
func productForm(form url.Values) (productRequest, error) {
	req := productRequest{Name: formText(form, "name"), Plan: formText(form, "plan"),
		Currency: formText(form, "currency"), Interval: formText(form, "interval")}
	price, err := formNumber(form, "price_cents")
	if price != nil {
		req.PriceCents = *price
	}
	return req, err
}

func formText(form url.Values, name string) string { return strings.TrimSpace(form.Get(name)) }

// formNumber reads an optional whole-number field; empty is nil.
func formNumber(form url.Values, name string) (*int64, error) {
	text := formText(form, name)
	if text == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, badRequest("field %q must be a whole number", name)
	}
	return &n, nil
}
