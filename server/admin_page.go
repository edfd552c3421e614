package server

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"secutil/server/account"
)

// The admin page (GET /admin): its lists, the buttons an account's row
// offers, and its notices.

// Sizes of the admin page's lists: accounts page by ?offset=, the other two
// show only the latest entries (the /boss/ list routes page through all).
const (
	adminPageAccounts    = defaultPageLimit
	adminPageSuggestions = 10
	adminPageAuditEvents = 20
)

// adminPageData is what templates/admin.html shows.
type adminPageData struct {
	Accounts    []adminRow
	Suggestions []adminSuggestion
	AuditEvents []adminAuditEvent
	Plans       []string
	Products    []productResponse
	// Payments: the server takes payments (a checkout is configured), so
	// users see the products' prices.
	Payments   bool
	Offset     int
	PrevOffset int
	HasPrev    bool
	HasNext    bool
	NextOffset int
	// Invites is set when the server's registration needs invites: the
	// page then offers to create one and lists the live ones.
	Invites     bool
	LiveInvites []adminInvite
	// NewInvite is an invite link just created, shown once.
	NewInvite *newInvite
	// ConfirmDelete is the account a delete button asked about: the page
	// asks to confirm.
	ConfirmDelete *adminAccount
	// PlanOf is the account a row's "Set plan" asked about (?email=): the
	// set-plan form starts from its plan, cap and paid_until.
	PlanOf *adminAccount
	// activeAdmins counts the verified, enabled administrators.
	activeAdmins int
}

// newInvite is an invite link on its way to the one admin page that shows
// it.
type newInvite struct {
	URL     string
	Expires *time.Time
}

// adminRow is an account's row of the admin page, with the actions that
// can succeed on it.
type adminRow struct {
	adminAccount
	Buttons []accountButton
	// Activate are the buttons of an unverified account that set its
	// password in the same step (verify, make admin): one form, one
	// password field, a button each.
	Activate []accountButton
	// Deletable: neither the viewer nor the last verified, enabled
	// administrator.
	Deletable bool
}

// accountButton is a button of an account's row on the admin page.
type accountButton struct {
	Email, Action, Label string
}

// adminRowOf is a's row for the administrator self, when activeAdmins
// verified, enabled administrators exist: an action that changes nothing,
// or that the last-admin rule or the rule on one's own account refuses, is
// not offered.
func adminRowOf(a adminAccount, self string, activeAdmins int) adminRow {
	kept := a.Email == self || a.lastAdmin(activeAdmins)
	row := adminRow{adminAccount: a, Deletable: !kept}
	for _, act := range accountActions {
		if act.Name == account.Delete.Name || !a.changes(act.Name) || (kept && spared(act.Name)) {
			continue
		}
		button := accountButton{Email: a.Email, Action: act.Name, Label: act.label}
		if !a.Verified && (act.Name == account.Verify.Name || act.Name == account.MakeAdmin.Name) {
			row.Activate = append(row.Activate, button)
		} else {
			row.Buttons = append(row.Buttons, button)
		}
	}
	return row
}

// PaidUntilDay is the account's paid_until as the set-plan form's date
// field takes it (the form pays until the end of that day), "" for none.
func (a adminAccount) PaidUntilDay() string {
	if a.PaidUntilTime == nil {
		return ""
	}
	return a.PaidUntilTime.UTC().Format(time.DateOnly)
}

// adminNotices are the admin page's fixed success messages, named by
// ?done=; the account actions add theirs (adminNotice).
var adminNotices = map[string]string{
	"plan_set":        "The plan was set.",
	"product_created": "The product was created.",
	"product_updated": "The product was saved.",
	"product_deleted": "The product was deleted: checkouts no longer sell it.",
	"invite_created":  "The invite link was created. Copy it now: it is shown only this once.",
	"invite_revoked":  "The invite was revoked: its link registers no one.",
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

// handleAdminPage serves GET /admin to the administrator adminPageOnly
// let in. It shows once what the last form left in the flash cookie: its
// error, or the invite link it created.
func (s *Server) handleAdminPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viewer := pageAdminOf(r.Context())
		offset, err := strconv.Atoi(r.URL.Query().Get("offset"))
		if err != nil || offset < 0 {
			offset = 0
		}
		d, err := s.adminPage(r.Context(), offset, viewer.Email)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if email := r.URL.Query().Get("delete"); email != "" {
			if a, err := s.Store.AccountByEmail(r.Context(), email); err == nil {
				if row := adminRowOf(toAdminAccount(a, 0, s.Store.Now()), viewer.Email, d.activeAdmins); row.Deletable {
					d.ConfirmDelete = &row.adminAccount
				}
			}
		}
		if email := r.URL.Query().Get("email"); email != "" {
			if a, err := s.Store.AccountByEmail(r.Context(), email); err == nil {
				planOf := toAdminAccount(a, 0, s.Store.Now())
				d.PlanOf = &planOf
			}
		}
		flash := s.takeAdminFlash(w, r, viewer.ID)
		if flash.InviteURL != "" {
			expires := time.Unix(flash.InviteExpires, 0).UTC()
			d.NewInvite = &newInvite{URL: flash.InviteURL, Expires: &expires}
		}
		v := newView(s, r, d)
		v.Notice = cmp.Or(flash.Notice, adminNotice(r.URL.Query().Get("done")))
		v.Error = flash.Error
		render(s, w, r, http.StatusOK, "admin", v)
	})
}

// adminPage gathers the admin page's lists from offset into the accounts,
// for the administrator whose email is self.
func (s *Server) adminPage(ctx context.Context, offset int, self string) (adminPageData, error) {
	// One more than a page tells whether a next page exists.
	accounts, err := s.listAccounts(ctx, adminPageAccounts+1, offset)
	if err != nil {
		return adminPageData{}, err
	}
	activeAdmins, err := s.Store.ActiveAdmins(ctx)
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
	products, err := s.listProducts(ctx, noRequest{})
	if err != nil {
		return adminPageData{}, err
	}
	d := adminPageData{
		Suggestions: suggestions, AuditEvents: events, Products: products.Items, Payments: s.Checkout != nil,
		Offset: offset, HasPrev: offset > 0, PrevOffset: max(offset-adminPageAccounts, 0), NextOffset: offset + adminPageAccounts,
		Invites: s.registration.ByInvite(), activeAdmins: activeAdmins,
	}
	if d.Invites {
		invites, err := s.listInvites(ctx, noRequest{})
		if err != nil {
			return adminPageData{}, err
		}
		d.LiveInvites = invites.Items
	}
	for _, p := range planBlurbs {
		d.Plans = append(d.Plans, p.Name)
	}
	if len(accounts) > adminPageAccounts {
		accounts, d.HasNext = accounts[:adminPageAccounts], true
	}
	for _, a := range accounts {
		d.Accounts = append(d.Accounts, adminRowOf(a, self, activeAdmins))
	}
	return d, nil
}

// planSet is the set-plan form's result: its notice names the account
// and what it got ("The account ann@example.com is now on the pro
// plan."), from the sealed flash cookie; the fixed notice of ?done=, which
// a reload shows again, cannot name it.
type planSet struct{ adminAccount }

func (p planSet) flash() adminFlash {
	msg := "The account " + p.Email + " is now on the " + p.Plan + " plan"
	if p.UsageCap != nil {
		msg += fmt.Sprintf(", capped at %d items a month", *p.UsageCap)
	}
	if p.PaidUntilTime != nil {
		msg += ", paid until " + p.PaidUntilTime.UTC().Format(account.AuditTime)
	}
	return adminFlash{Notice: msg + "."}
}

// setPlanFromPage is setPlan for the admin page's form.
func (s *Server) setPlanFromPage(ctx context.Context, req setPlanRequest) (planSet, error) {
	a, err := s.setPlan(ctx, req)
	return planSet{a}, err
}

// decodeAdminForm is the decoder of an admin page's form: parse reads the
// form into the request of the /boss/ route it mirrors, which is then
// checked as the JSON one is.
func decodeAdminForm[Q any](parse func(url.Values) (Q, error)) decoder[Q] {
	return func(w http.ResponseWriter, r *http.Request) (Q, error) {
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
}
