package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/store"
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

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

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
	case !currencyPattern.MatchString(p.Currency):
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

// createProduct adds a product a checkout can sell.
func (s *Server) createProduct(ctx context.Context, req productRequest) (productResponse, error) {
	id, err := s.Store.CreateProduct(ctx, store.Product{Name: req.Name, Plan: req.Plan,
		PriceCents: req.PriceCents, Currency: req.Currency, Interval: req.Interval})
	if err != nil {
		return productResponse{}, err
	}
	return productResponse{ID: id, Name: req.Name, Plan: req.Plan,
		PriceCents: req.PriceCents, Currency: req.Currency, Interval: req.Interval}, nil
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
}

func toAdminAccount(a *store.Account, used int, now time.Time) adminAccount {
	return adminAccount{
		Email: a.Email, Plan: a.Plan, EffectivePlan: a.EffectivePlan(now), APIUsage: used,
		MaxUsageForPlan: a.Cap(now), UsageCap: a.UsageCap, PaidUntil: rfc3339(a.PaidUntil),
		CreatedAt: a.CreatedAt.Format(time.RFC3339), Admin: a.Admin, Verified: a.Verified, Disabled: a.Disabled,
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
	ID        int64  `json:"id"`
	AccountID int64  `json:"account_id"`
	Email     string `json:"email"`
	Message   string `json:"message"`
	CreatedAt string `json:"created_at"`
}

func (s *Server) listSuggestions(ctx context.Context, limit, offset int) ([]adminSuggestion, error) {
	list, err := s.Store.Suggestions(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]adminSuggestion, 0, len(list))
	for _, sg := range list {
		out = append(out, adminSuggestion{ID: sg.ID, AccountID: sg.AccountID, Email: sg.Email,
			Message: sg.Message, CreatedAt: sg.CreatedAt.Format(time.RFC3339)})
	}
	return out, nil
}

type adminAuditEvent struct {
	ID        int64  `json:"id"`
	At        string `json:"at"`
	Kind      string `json:"kind"`
	AccountID int64  `json:"account_id"`
	Email     string `json:"email"`     // the account's email when the event happened
	SealedIP  string `json:"sealed_ip"` // open with POST /boss/decrypt_geoinfo2
	Detail    string `json:"detail"`
}

func (s *Server) listAuditEvents(ctx context.Context, limit, offset int) ([]adminAuditEvent, error) {
	list, err := s.Store.AuditEvents(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]adminAuditEvent, 0, len(list))
	for _, e := range list {
		out = append(out, adminAuditEvent{ID: e.ID, At: e.At.Format(time.RFC3339), Kind: e.Kind,
			AccountID: e.AccountID, Email: e.Email, SealedIP: e.SealedIP, Detail: e.Detail})
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
	if err := s.operator(ctx).SetPlan(ctx, a, account.Plan{Name: req.Plan, UsageCap: req.UsageCap, PaidUntil: paidUntil}); err != nil {
		return adminAccount{}, ruleError(err)
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
// deletion repeats the email in confirm.
type accountRequest struct {
	Email   string `json:"email"`
	Confirm string `json:"confirm"`
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

// accountButton is a button of an account's row on the admin page.
type accountButton struct{ Email, Action, Label string }

// Buttons are the actions the admin page offers on the account's row
// (delete asks first, with a link of its own).
func (a adminAccount) Buttons() []accountButton {
	offered := map[string]bool{"verify": !a.Verified, "make_admin": !a.Admin, "remove_admin": a.Admin,
		"disable": !a.Disabled, "enable": a.Disabled, "reset_usage": a.APIUsage > 0}
	var out []accountButton
	for _, act := range accountActions {
		if offered[act.Name] {
			out = append(out, accountButton{Email: a.Email, Action: act.Name, Label: act.label})
		}
	}
	return out
}

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
		err = s.operator(ctx).Apply(ctx, act.Action, a)
		if errors.Is(err, store.ErrNotFound) { // deleted in the meantime
			return statusResponse{}, noAccount
		}
		if err != nil {
			return statusResponse{}, err
		}
		return statusResponse{Status: act.Kind, Message: a.Email + ": " + act.done}, nil
	}
}
