package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/tools/seal"
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
	// Deletable: neither the viewer nor the last verified, enabled
	// administrator.
	Deletable bool
}

// accountButton is a button of an account's row on the admin page.
// Password asks for the account's new password with it (verifying an
// unverified account, or making it an administrator).
type accountButton struct {
	Email, Action, Label string
	Password             bool
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
		password := !a.Verified && (act.Name == account.Verify.Name || act.Name == account.MakeAdmin.Name)
		row.Buttons = append(row.Buttons, accountButton{Email: a.Email, Action: act.Name, Label: act.label, Password: password})
	}
	return row
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

// handleAdminPage serves GET /admin: a login is needed (303 to /login
// without one) and the account must be an administrator (403 otherwise).
// It shows once what the last form left in the flash cookie: its error, or
// the invite link it created.
func (s *Server) handleAdminPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viewer, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		if !viewer.Admin {
			v := newView(s, r, adminPageData{})
			v.Account = viewer
			v.Error = errForbidden.msg
			render(s, w, r, http.StatusForbidden, "admin", v)
			return
		}
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
		flash := s.takeAdminFlash(w, r, viewer.ID)
		if flash.InviteURL != "" {
			expires := time.Unix(flash.InviteExpires, 0).UTC()
			d.NewInvite = &newInvite{URL: flash.InviteURL, Expires: &expires}
		}
		v := newView(s, r, d)
		v.Notice = adminNotice(r.URL.Query().Get("done"))
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
		Invites: s.Registration == RegistrationInvite, activeAdmins: activeAdmins,
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

// handleAdminForm serves a form of the admin page with the action of the
// /boss/ JSON route it mirrors, so the checks and the audit stay in one
// place: parse reads the form into that route's request, which is checked
// as the JSON one is. Either way the answer is 303 to the admin page
// (POST/redirect/GET: a reload posts nothing again): with the notice done
// on success, and with the error, carried in the flash cookie, on a
// refusal. adminOnly guards the route like every /boss/ route.
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
			s.redirectToAdmin(w, r, "", adminFlash{Error: s.publicError(r, err).msg})
			return
		}
		s.redirectToAdmin(w, r, done, adminFlash{})
	}))
}

// handleAdminInvite serves the admin page's invite button: the new link
// goes to the admin page in the flash cookie, never in a URL that would
// keep it, and a reload of that page shows it no more and mints none.
func (s *Server) handleAdminInvite() http.Handler {
	return s.adminOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, invite, err := runAction(s, w, r, decodeRequest[noRequest], s.createInvite)
		if err != nil {
			s.redirectToAdmin(w, r, "", adminFlash{Error: s.publicError(r, err).msg})
			return
		}
		expires, err := time.Parse(time.RFC3339, invite.ExpiresAt)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.redirectToAdmin(w, r, "invite_created", adminFlash{InviteURL: invite.URL, InviteExpires: expires.Unix()})
	}))
}

// The flash cookie of the admin page: what a form's POST leaves for the
// GET it redirects to (its error, or an invite link), sealed as the
// dashboard's fresh-key cookie is (flash.go), so every instance can open
// it and no one else can read or forge it. The page clears it as it shows
// it.
const (
	adminFlashCookie  = "admin_flash"
	adminFlashTTL     = 2 * time.Minute
	adminFlashPurpose = "admin page"
	// maxFlashMessage bounds an error in the cookie, which must stay
	// under a browser's 4 KiB once sealed.
	maxFlashMessage = 1000
)

type adminFlash struct {
	// Purpose is adminFlashPurpose: a value sealed for another cookie
	// (a fresh key) never opens as this one.
	Purpose       string `json:"purpose"`
	Account       int64  `json:"account"`
	Expires       int64  `json:"expires"`
	Error         string `json:"error,omitempty"`
	InviteURL     string `json:"invite_url,omitempty"`
	InviteExpires int64  `json:"invite_expires,omitempty"`
}

// redirectToAdmin answers a form with 303 to the admin page, with the
// notice done if not empty, leaving f for it unless f is empty.
func (s *Server) redirectToAdmin(w http.ResponseWriter, r *http.Request, done string, f adminFlash) {
	if f != (adminFlash{}) {
		if a, err := s.sessionAccount(r); err == nil {
			f.Account = a.ID
		}
		f.Purpose, f.Expires = adminFlashPurpose, time.Now().Add(adminFlashTTL).Unix()
		if len(f.Error) > maxFlashMessage {
			f.Error = strings.ToValidUTF8(f.Error[:maxFlashMessage], "") + "…"
		}
		raw, err := json.Marshal(f)
		if err == nil {
			var sealed string
			if sealed, err = seal.Seal(s.flashKey, raw); err == nil {
				http.SetCookie(w, s.adminFlashCookie(s.isHTTPS(r), sealed, int(adminFlashTTL.Seconds())))
			}
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	target := "/admin"
	if done != "" {
		target += "?done=" + url.QueryEscape(done)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// takeAdminFlash returns what the last form left for the account's admin
// page (empty for nothing), and clears the cookie that carried it.
func (s *Server) takeAdminFlash(w http.ResponseWriter, r *http.Request, accountID int64) adminFlash {
	c, err := r.Cookie(adminFlashCookie)
	if err != nil {
		return adminFlash{}
	}
	http.SetCookie(w, s.adminFlashCookie(s.isHTTPS(r), "", -1))
	raw, err := seal.Open(s.flashKey, c.Value)
	if err != nil {
		return adminFlash{}
	}
	var f adminFlash
	if json.Unmarshal(raw, &f) != nil || f.Purpose != adminFlashPurpose || f.Account != accountID || time.Now().Unix() > f.Expires {
		return adminFlash{}
	}
	return f
}

// adminFlashCookie is Secure as the session cookie is.
func (s *Server) adminFlashCookie(https bool, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: adminFlashCookie, Value: value, Path: "/admin", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || https,
	}
}

// accountForm reads the form of an account action's button. The new
// password is taken as typed: spaces may belong to it.
func accountForm(form url.Values) (accountRequest, error) {
	return accountRequest{Email: formText(form, "email"), Confirm: formText(form, "confirm"), NewPassword: form.Get("new_password")}, nil
}

// inviteForm reads the revoke button of a live invite.
func inviteForm(form url.Values) (inviteIDRequest, error) {
	return inviteIDRequest{ID: formText(form, "id")}, nil
}

// productIDForm reads the delete button of a product.
func productIDForm(form url.Values) (productIDRequest, error) {
	id, err := formNumber(form, "id")
	if err != nil {
		return productIDRequest{}, err
	}
	if id == nil {
		return productIDRequest{}, missingField("id")
	}
	return productIDRequest{ID: *id}, nil
}

// productChangeForm reads the edit form of a product.
func productChangeForm(form url.Values) (productChange, error) {
	id, err := productIDForm(form)
	if err != nil {
		return productChange{}, err
	}
	product, err := productForm(form)
	return productChange{ID: id.ID, productRequest: product}, err
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
