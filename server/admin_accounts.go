package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"secutil/server/account"
	"secutil/store"
	"secutil/tools/passhash"
)

var (
	errAdminUnauthorized = newError(codeUnauthorized, "admin routes need an admin account's session or the header Authorization: Bearer <admin token>")
	errForbidden         = newError(codeForbidden, "this account is not an administrator")
)

// adminOnly lets through an admin account's session, or the admin bearer
// token. A wrong or unconfigured token, or no credential at all, is 401; a
// session of a non-admin account is 403.
func (s *Server) adminOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			if !s.validAdminToken(token) {
				s.writeError(w, r, errAdminUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		a, err := s.sessionAccount(r)
		switch {
		case errors.Is(err, errLoginRequired):
			s.writeError(w, r, errAdminUnauthorized)
		case err != nil:
			s.writeError(w, r, err)
		case !a.Admin:
			s.writeError(w, r, errForbidden)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

func (s *Server) validAdminToken(token string) bool { return secretMatches(token, s.AdminToken) }

// secretMatches compares hashes in constant time, so neither the secret's
// content nor its length leaks through timing. No configured secret means
// nothing matches.
func secretMatches(given, configured string) bool {
	if configured == "" {
		return false
	}
	got, want := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(configured))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// currencyPattern is compiled on first use, not at start.
var currencyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z]{3}$`) })

// maxProductNameChars bounds a product name.
const maxProductNameChars = 200

type productRequest struct {
	Name       string `json:"name"`
	Plan       string `json:"plan"`
	PriceCents int64  `json:"price_cents" required:"true"`
	Currency   string `json:"currency"`
	Interval   string `json:"interval"`
}

func (p *productRequest) check() error {
	p.Name = strings.TrimSpace(p.Name)
	for _, f := range [][2]string{{"name", p.Name}, {"plan", p.Plan}, {"currency", p.Currency}, {"interval", p.Interval}} {
		if err := required(f[0], f[1]); err != nil {
			return err
		}
	}
	switch {
	case len(p.Name) > maxProductNameChars:
		return badRequest("field \"name\" must be at most %d bytes", maxProductNameChars)
	case p.Plan != store.PlanPro && p.Plan != store.PlanEnterprise:
		return badRequest("field \"plan\" must be pro or enterprise")
	case p.PriceCents <= 0:
		return badRequest("field \"price_cents\" must be a whole number of cents above 0")
	case !currencyPattern().MatchString(p.Currency):
		return badRequest("field \"currency\" must be an ISO 4217 code of 3 upper-case letters, like EUR")
	case p.Interval != "month" && p.Interval != "year":
		return badRequest("field \"interval\" must be month or year")
	}
	return nil
}

type productResponse struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Plan       string `json:"plan"`
	PriceCents int64  `json:"price_cents"`
	Currency   string `json:"currency"`
	Interval   string `json:"interval"`
}

func toProductResponse(p store.Product) productResponse {
	return productResponse{ID: p.ID, Name: p.Name, Plan: p.Plan, PriceCents: p.PriceCents, Currency: p.Currency, Interval: p.Interval}
}

// product is the store's product of req, with the id given.
func (p productRequest) product(id int64) store.Product {
	return store.Product{ID: id, Name: p.Name, Plan: p.Plan, PriceCents: p.PriceCents, Currency: p.Currency, Interval: p.Interval}
}

// productLine is how the audit log names a product.
func productLine(p store.Product) string {
	return fmt.Sprintf("product %d %q (%s, %s)", p.ID, p.Name, p.Plan, price(&p))
}

// createProduct adds a product a checkout can sell, and records it.
func (s *Server) createProduct(ctx context.Context, req productRequest) (productResponse, error) {
	id, err := s.Store.CreateProduct(ctx, req.product(0))
	if err != nil {
		return productResponse{}, err
	}
	s.adminAudit(ctx, store.AuditProductCreated, productLine(req.product(id)))
	return toProductResponse(req.product(id)), nil
}

// maxListedItems bounds the lists that have no pages (products, live
// invites): both are short by nature.
const maxListedItems = maxPageLimit

type itemsResponse[T any] struct {
	Items []T `json:"items"`
}

// listProducts lists every product, the newest first: a checkout sells the
// newest of each plan.
func (s *Server) listProducts(ctx context.Context, _ noRequest) (itemsResponse[productResponse], error) {
	list, err := s.Store.Products(ctx, maxListedItems)
	if err != nil {
		return itemsResponse[productResponse]{}, err
	}
	out := make([]productResponse, 0, len(list))
	for _, p := range list {
		out = append(out, toProductResponse(p))
	}
	return itemsResponse[productResponse]{Items: out}, nil
}

// productChange names a product and gives all its new fields.
type productChange struct {
	ID int64 `json:"id" required:"true"`
	productRequest
}

func (p *productChange) check() error {
	if p.ID <= 0 {
		return badRequest("field \"id\" must be a product's id")
	}
	return p.productRequest.check()
}

type productIDRequest struct {
	ID int64 `json:"id" required:"true"`
}

func (s *Server) productByID(ctx context.Context, id int64) (*store.Product, error) {
	p, err := s.Store.ProductByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, newError(codeProductNotFound, "no product has the id %d", id)
	}
	return p, err
}

// updateProduct changes a product's fields; a change that changes nothing
// is not recorded.
func (s *Server) updateProduct(ctx context.Context, req productChange) (productResponse, error) {
	old, err := s.productByID(ctx, req.ID)
	if err != nil {
		return productResponse{}, err
	}
	changed := req.product(req.ID)
	changed.CreatedAt = old.CreatedAt
	if changed == *old {
		return toProductResponse(changed), nil
	}
	if err := s.Store.UpdateProduct(ctx, changed); errors.Is(err, store.ErrNotFound) {
		return productResponse{}, newError(codeProductNotFound, "no product has the id %d", req.ID)
	} else if err != nil {
		return productResponse{}, err
	}
	s.adminAudit(ctx, store.AuditProductChanged, productLine(*old)+" -> "+productLine(changed))
	return toProductResponse(changed), nil
}

// deleteProduct deletes a product: checkouts stop selling it.
func (s *Server) deleteProduct(ctx context.Context, req productIDRequest) (statusResponse, error) {
	p, err := s.productByID(ctx, req.ID)
	if err != nil {
		return statusResponse{}, err
	}
	if err := s.Store.DeleteProduct(ctx, req.ID); errors.Is(err, store.ErrNotFound) {
		return statusResponse{}, newError(codeProductNotFound, "no product has the id %d", req.ID)
	} else if err != nil {
		return statusResponse{}, err
	}
	s.adminAudit(ctx, store.AuditProductDeleted, productLine(*p))
	return statusResponse{Status: store.AuditProductDeleted, Message: fmt.Sprintf("Product %d was deleted.", p.ID)}, nil
}

// adminAudit records an administrator's change that belongs to no
// account, under the acting administrator, in the format of the account
// actions' lines: what changed, then "by" whom.
func (s *Server) adminAudit(ctx context.Context, kind, what string) {
	by, actor := s.adminActor(ctx)
	s.audit(ctx, kind, by, what+", by "+actor)
}

// adminInvite is a live invite as the admin routes list it. Its id is the
// hex of the hash the store keeps: the link itself is never kept.
type adminInvite struct {
	ID        string     `json:"id"`
	CreatedBy string     `json:"created_by"` // "" for the admin token or a deleted account
	CreatedAt string     `json:"created_at"`
	ExpiresAt string     `json:"expires_at"`
	Pending   int        `json:"pending"` // accounts registered with it, not verified yet
	Expires   *time.Time `json:"-"`       // for the admin page
}

// listInvites lists the live invites, the one expiring first first.
func (s *Server) listInvites(ctx context.Context, _ noRequest) (itemsResponse[adminInvite], error) {
	list, err := s.Store.Invites(ctx, maxListedItems)
	if err != nil {
		return itemsResponse[adminInvite]{}, err
	}
	out := make([]adminInvite, 0, len(list))
	for _, in := range list {
		out = append(out, adminInvite{ID: hex.EncodeToString(in.Hash), CreatedBy: in.CreatedBy,
			CreatedAt: in.CreatedAt.Format(time.RFC3339), ExpiresAt: in.ExpiresAt.Format(time.RFC3339),
			Pending: in.Pending, Expires: &in.ExpiresAt})
	}
	return itemsResponse[adminInvite]{Items: out}, nil
}

type inviteIDRequest struct {
	ID string `json:"id"`
}

func (q *inviteIDRequest) check() error {
	q.ID = strings.TrimSpace(q.ID)
	return required("id", q.ID)
}

// revokeInvite deletes a live invite: its link registers no one from now
// on, and accounts registered with it and not verified yet cannot be.
func (s *Server) revokeInvite(ctx context.Context, req inviteIDRequest) (statusResponse, error) {
	gone := newError(codeInviteNotFound, "no live invite has the id %q: it was used, revoked or expired", req.ID)
	hash, err := hex.DecodeString(req.ID)
	if err != nil || len(hash) == 0 || len(hash) > 64 {
		return statusResponse{}, gone
	}
	if err := s.Store.RevokeInvite(ctx, hash); errors.Is(err, store.ErrNotFound) {
		return statusResponse{}, gone
	} else if err != nil {
		return statusResponse{}, err
	}
	s.adminAudit(ctx, store.AuditInviteRevoked, "invite "+req.ID[:min(len(req.ID), 12)])
	return statusResponse{Status: store.AuditInviteRevoked, Message: "The invite was revoked: its link registers no one."}, nil
}

// Page sizes of the admin lists.
const (
	defaultPageLimit = 50
	maxPageLimit     = 500
)

type pageRequest struct {
	Limit  *int `json:"limit"`
	Offset int  `json:"offset"`
}

func (p *pageRequest) check() error {
	if p.Limit != nil && (*p.Limit < 1 || *p.Limit > maxPageLimit) {
		return badRequest("field \"limit\" must be 1 to %d", maxPageLimit)
	}
	if p.Offset < 0 {
		return badRequest("field \"offset\" must be 0 or more")
	}
	return nil
}

// decodePage reads an optional {"limit","offset"} body; no body means the
// first page of defaultPageLimit.
func decodePage(w http.ResponseWriter, r *http.Request) (pageRequest, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return pageRequest{}, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return pageRequest{}, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decode[pageRequest](w, r)
}

type listResponse[T any] struct {
	Items  []T `json:"items"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// handleAdminList serves one paginated admin list.
func handleAdminList[T any](s *Server, list func(ctx context.Context, limit, offset int) ([]T, error)) http.Handler {
	return handleJSONFrom(s, decodePage, func(ctx context.Context, req pageRequest) (listResponse[T], error) {
		limit := defaultPageLimit
		if req.Limit != nil {
			limit = *req.Limit
		}
		items, err := list(ctx, limit, req.Offset)
		if err != nil {
			return listResponse[T]{}, err
		}
		return listResponse[T]{Items: items, Limit: limit, Offset: req.Offset}, nil
	})
}

type adminAccount struct {
	Email           string  `json:"email"`
	Plan            string  `json:"plan"`
	EffectivePlan   string  `json:"effective_plan"`
	APIUsage        int     `json:"api_usage"`
	MaxUsageForPlan *int    `json:"max_usage_for_plan"`
	UsageCap        *int    `json:"usage_cap"`
	PaidUntil       *string `json:"paid_until"`
	CreatedAt       string  `json:"created_at"`
	Admin           bool    `json:"admin"`
	Verified        bool    `json:"verified"`
	Disabled        bool    `json:"disabled"`
	// For the admin page, which shows dates as dates.
	PaidUntilTime *time.Time `json:"-"`
	Created       time.Time  `json:"-"`
}

func toAdminAccount(a *store.Account, used int, now time.Time) adminAccount {
	return adminAccount{
		Email: a.Email, Plan: a.Plan, EffectivePlan: a.EffectivePlan(now), APIUsage: used,
		MaxUsageForPlan: a.Cap(now), UsageCap: a.UsageCap, PaidUntil: rfc3339(a.PaidUntil),
		CreatedAt: a.CreatedAt.Format(time.RFC3339), Admin: a.Admin, Verified: a.Verified, Disabled: a.Disabled,
		PaidUntilTime: a.PaidUntil, Created: a.CreatedAt,
	}
}

func (s *Server) listAccounts(ctx context.Context, limit, offset int) ([]adminAccount, error) {
	list, err := s.Store.Accounts(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	now := s.Store.Now()
	out := make([]adminAccount, 0, len(list))
	for _, a := range list {
		out = append(out, toAdminAccount(&a.Account, a.Usage, now))
	}
	return out, nil
}

type adminSuggestion struct {
	ID        int64      `json:"id"`
	AccountID int64      `json:"account_id"`
	Email     string     `json:"email"`
	Message   string     `json:"message"`
	CreatedAt string     `json:"created_at"`
	Created   *time.Time `json:"-"` // for the admin page
}

func (s *Server) listSuggestions(ctx context.Context, limit, offset int) ([]adminSuggestion, error) {
	list, err := s.Store.Suggestions(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]adminSuggestion, 0, len(list))
	for _, sg := range list {
		out = append(out, adminSuggestion{ID: sg.ID, AccountID: sg.AccountID, Email: sg.Email,
			Message: sg.Message, CreatedAt: sg.CreatedAt.Format(time.RFC3339), Created: &sg.CreatedAt})
	}
	return out, nil
}

type adminAuditEvent struct {
	ID        int64      `json:"id"`
	At        string     `json:"at"`
	Kind      string     `json:"kind"`
	AccountID int64      `json:"account_id"`
	Email     string     `json:"email"`     // the account's email when the event happened
	SealedIP  string     `json:"sealed_ip"` // open with POST /boss/decrypt_geoinfo2
	Detail    string     `json:"detail"`
	When      *time.Time `json:"-"` // for the admin page
}

func (s *Server) listAuditEvents(ctx context.Context, limit, offset int) ([]adminAuditEvent, error) {
	list, err := s.Store.AuditEvents(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]adminAuditEvent, 0, len(list))
	for _, e := range list {
		out = append(out, adminAuditEvent{ID: e.ID, At: e.At.Format(time.RFC3339), Kind: e.Kind,
			AccountID: e.AccountID, Email: e.Email, SealedIP: e.SealedIP, Detail: e.Detail, When: &e.At})
	}
	return out, nil
}

type setPlanRequest struct {
	Email     string  `json:"email"`
	Plan      string  `json:"plan"`
	UsageCap  *int    `json:"usage_cap"`
	PaidUntil *string `json:"paid_until"`
}

func (q *setPlanRequest) check() error {
	if err := required("email", q.Email); err != nil {
		return err
	}
	if err := required("plan", q.Plan); err != nil {
		return err
	}
	return ruleError(account.CheckPlan(q.Plan, q.UsageCap, q.PaidUntil != nil))
}

// ruleError is an account rule's refusal as a 400 naming the field.
func ruleError(err error) error {
	var rule *account.RuleError
	if errors.As(err, &rule) {
		return badRequest("field %q %s", rule.Field, rule.Problem)
	}
	return err
}

// operator makes account changes as the administrator of the exchange in
// ctx, recorded with its client IP.
func (s *Server) operator(ctx context.Context) account.Operator {
	_, actor := s.adminActor(ctx)
	return account.Operator{Store: s.Store, By: "by " + actor, Record: func(ctx context.Context, e store.AuditEvent) error {
		s.auditEvent(ctx, e)
		return nil
	}}
}

// setPlan sets an account's plan, enterprise cap and paid_until. A paid
// plan without paid_until never expires (air-gapped installations grant
// plans by hand).
func (s *Server) setPlan(ctx context.Context, req setPlanRequest) (adminAccount, error) {
	var paidUntil *time.Time
	if req.PaidUntil != nil {
		t, err := parseTime("paid_until", *req.PaidUntil)
		if err != nil {
			return adminAccount{}, err
		}
		paidUntil = &t
	}
	a, err := s.Store.AccountByEmail(ctx, req.Email)
	if errors.Is(err, store.ErrNotFound) {
		return adminAccount{}, newError(codeAccountNotFound, "no account has the email %q", req.Email)
	}
	if err != nil {
		return adminAccount{}, err
	}
	if !planUnchanged(a, req.Plan, req.UsageCap, paidUntil) {
		if err := s.operator(ctx).SetPlan(ctx, a, account.Plan{Name: req.Plan, UsageCap: req.UsageCap, PaidUntil: paidUntil}); err != nil {
			return adminAccount{}, ruleError(err)
		}
	}
	if a, err = s.Store.AccountByID(ctx, a.ID); err != nil {
		return adminAccount{}, err
	}
	used, err := s.Store.Usage(ctx, a.ID)
	if err != nil {
		return adminAccount{}, err
	}
	return toAdminAccount(a, used, s.Store.Now()), nil
}

// activate verifies an unverified account, and with admin makes it an
// administrator, setting its password to password in the same change.
func (s *Server) activate(ctx context.Context, a *store.Account, password string, admin bool) error {
	if password == "" {
		return newError(codeMissingField, "field %q is required: %s's email is not verified, so whoever registered it chose its password; set a new one", "new_password", a.Email)
	}
	if err := s.checkPassword(password, a.Email); err != nil {
		return err
	}
	hash, err := passhash.Hash(password, s.PasswordParams)
	if err != nil {
		return err
	}
	return s.operator(ctx).Activate(ctx, a, hash, admin)
}

// planUnchanged reports whether setting plan, usageCap and paidUntil would
// leave a as it is, set by an administrator and not cancelled: such a
// change is not made, nor recorded.
func planUnchanged(a *store.Account, plan string, usageCap *int, paidUntil *time.Time) bool {
	sameCap := (a.UsageCap == nil) == (usageCap == nil) && (usageCap == nil || *a.UsageCap == *usageCap)
	samePaid := (a.PaidUntil == nil) == (paidUntil == nil) && (paidUntil == nil || a.PaidUntil.Unix() == paidUntil.Unix())
	return a.Plan == plan && a.PlanByAdmin == (plan != store.PlanStarter) && !a.PlanCancelled && sameCap && samePaid
}

func rfc3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// adminActor names who is using an admin route, for the audit log: the
// admin account of the session (and its id), or the admin token (id 0).
func (s *Server) adminActor(ctx context.Context) (accountID int64, name string) {
	ex := exchangeOf(ctx)
	if ex.bearer {
		return 0, "the admin token"
	}
	a, err := s.accountOfSession(ctx, ex.session)
	if err != nil { // adminOnly let the request in: the session ended since
		return 0, "an administrator"
	}
	return a.ID, a.Email
}

// accountRequest names the account of an administrator's action; a
// deletion repeats the email in confirm. Verifying an unverified account
// or making it an administrator sets its password to new_password in the
// same change: whoever registered the email chose the old one.
type accountRequest struct {
	Email       string `json:"email"`
	Confirm     string `json:"confirm"`
	NewPassword string `json:"new_password"`
}

func (q *accountRequest) check() error {
	q.Email = strings.TrimSpace(q.Email)
	return required("email", q.Email)
}

// accountAction is one administrator action on an account (package
// account makes the change and records it as its Kind): the route
// POST /boss/accounts/<Name> and a button of the admin page.
type accountAction struct {
	account.Action
	label string // the admin page's button
	done  string // what the admin page says afterwards
}

var accountActions = []accountAction{
	{account.Verify, "Verify", "The account was verified."},
	{account.MakeAdmin, "Make admin", "The account is now an administrator."},
	{account.RemoveAdmin, "Remove admin", "The account is no longer an administrator."},
	{account.Disable, "Disable", "The account was disabled: its keys and sessions stopped working."},
	{account.Enable, "Enable", "The account was enabled: its keys work again."},
	{account.ResetUsage, "Reset usage", "The account's usage this month was reset to 0."},
	{account.Delete, "Delete", "The account was deleted."},
}

// changes reports whether the action named would change the account: an
// action that would not is not offered, and not recorded.
func (a adminAccount) changes(action string) bool {
	switch action {
	case account.Verify.Name:
		return !a.Verified
	case account.MakeAdmin.Name:
		return !a.Admin
	case account.RemoveAdmin.Name:
		return a.Admin
	case account.Disable.Name:
		return !a.Disabled
	case account.Enable.Name:
		return a.Disabled
	case account.ResetUsage.Name:
		return a.APIUsage > 0
	}
	return true
}

// spared reports the actions the last-admin rule and the rule on one's own
// account always refuse: removing admin from, disabling or deleting the
// last verified, enabled administrator or oneself.
func spared(action string) bool {
	return action == account.RemoveAdmin.Name || action == account.Disable.Name || action == account.Delete.Name
}

// lastAdmin reports whether a is the last verified, enabled administrator
// when activeAdmins of them exist.
func (a adminAccount) lastAdmin(activeAdmins int) bool {
	return a.Admin && a.Verified && !a.Disabled && activeAdmins <= 1
}

// errOwnAccount refuses an action on the acting administrator's own
// account that would lock them out.
var errOwnAccount = newError(codeInvalidRequest, "you cannot remove admin from, disable or delete your own account: another administrator can")

// runAccountAction applies act to the account named in the request and
// records it with the acting administrator.
func (s *Server) runAccountAction(act accountAction) func(ctx context.Context, req accountRequest) (statusResponse, error) {
	return func(ctx context.Context, req accountRequest) (statusResponse, error) {
		if act.Name == account.Delete.Name && !strings.EqualFold(strings.TrimSpace(req.Confirm), req.Email) {
			return statusResponse{}, badRequest("field \"confirm\" must repeat the email of the account to delete")
		}
		noAccount := newError(codeAccountNotFound, "no account has the email %q", req.Email)
		a, err := s.Store.AccountByEmail(ctx, req.Email)
		if errors.Is(err, store.ErrNotFound) {
			return statusResponse{}, noAccount
		}
		if err != nil {
			return statusResponse{}, err
		}
		if actorID, _ := s.adminActor(ctx); actorID == a.ID && spared(act.Name) {
			return statusResponse{}, errOwnAccount
		}
		activates := !a.Verified && (act.Name == account.Verify.Name || act.Name == account.MakeAdmin.Name)
		if req.NewPassword != "" && !activates {
			return statusResponse{}, badRequest("field \"new_password\" is only for verifying an unverified account or making it an administrator")
		}
		used, err := s.Store.Usage(ctx, a.ID)
		if err != nil {
			return statusResponse{}, err
		}
		if !toAdminAccount(a, used, s.Store.Now()).changes(act.Name) {
			return statusResponse{Status: "unchanged", Message: a.Email + ": nothing to change."}, nil
		}
		if activates {
			err = s.activate(ctx, a, req.NewPassword, act.Name == account.MakeAdmin.Name)
		} else {
			err = s.operator(ctx).Apply(ctx, act.Action, a)
		}
		if errors.Is(err, store.ErrNotFound) { // deleted in the meantime
			return statusResponse{}, noAccount
		}
		if err != nil {
			return statusResponse{}, err
		}
		return statusResponse{Status: act.Kind, Message: a.Email + ": " + act.done}, nil
	}
}
