package server

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/store"
	"secutil/tools/passhash"
)

// Accounts as administrators see and change them: POST /boss/accounts/list,
// set_plan and the account actions (verify, make_admin, disable, delete...),
// each also a form of the admin page.

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
	if p := (account.Plan{Name: req.Plan, UsageCap: req.UsageCap, PaidUntil: paidUntil}); !p.Unchanged(a) {
		if err := s.operator(ctx).SetPlan(ctx, a, p); err != nil {
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

func rfc3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
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

// accountForm reads the form of an account action's button. The new
// password is taken as typed: spaces may belong to it.
func accountForm(form url.Values) (accountRequest, error) {
	return accountRequest{Email: formText(form, "email"), Confirm: formText(form, "confirm"), NewPassword: form.Get("new_password")}, nil
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
