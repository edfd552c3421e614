// Package account makes the changes an operator makes to accounts: create
// one, set its plan, make it an administrator or not, verify, disable or
// enable it, set its password, reset its usage, delete it. The command line
// (secutil user ...) and the admin routes (POST /boss/accounts/..., the
// Admin page) both call it, so they check the same plan rules, make the
// same change in the store and record the same audit event. It speaks
// neither HTTP nor SQL: it sits below server/ as the code the server uses
// that needs no *Server does, and package main calls it too.
package account

import (
	"context"
	"fmt"
	"time"

	"secutil/store"
)

// Operator makes changes to accounts on behalf of one actor.
type Operator struct {
	Store *store.Store
	// By names the actor in the audit events' detail: "by the command
	// line", "by the admin token", "by boss@example.com".
	By string
	// Record writes an audit event; nil writes it with Store.AddAudit. The
	// admin routes add the client's IP, sealed.
	Record func(ctx context.Context, e store.AuditEvent) error
}

func (o Operator) record(ctx context.Context, kind string, a *store.Account, detail string) error {
	e := store.AuditEvent{Kind: kind, AccountID: a.ID, Email: a.Email, Detail: detail}
	if o.Record != nil {
		return o.Record(ctx, e)
	}
	return o.Store.AddAudit(ctx, e)
}

// Action is a change that takes nothing but the account.
type Action struct {
	// Name is the action's name on the admin routes:
	// POST /boss/accounts/<Name>.
	Name string
	// Kind is the audit event it records.
	Kind  string
	apply func(ctx context.Context, st *store.Store, accountID int64) error
	// onlyVerified refuses the action on an unverified account
	// (store.ErrUnverified): whoever registered it chose its password.
	// Operator.Activate does it with a new password.
	onlyVerified bool
}

// The actions. Removing, disabling or deleting the last verified, enabled
// administrator fails with store.ErrLastAdmin; verifying an unverified
// account or making it an administrator, with store.ErrUnverified (use
// Operator.Activate); an account deleted meanwhile, with
// store.ErrNotFound.
var (
	Verify = Action{"verify", store.AuditAccountVerified,
		func(ctx context.Context, st *store.Store, id int64) error { return st.MarkVerified(ctx, id) }, true}
	MakeAdmin = Action{"make_admin", store.AuditAdminGranted,
		func(ctx context.Context, st *store.Store, id int64) error { return st.SetAdmin(ctx, id, true) }, true}
	RemoveAdmin = Action{"remove_admin", store.AuditAdminRevoked,
		func(ctx context.Context, st *store.Store, id int64) error { return st.SetAdmin(ctx, id, false) }, false}
	Disable = Action{"disable", store.AuditAccountDisabled,
		func(ctx context.Context, st *store.Store, id int64) error { return st.SetDisabled(ctx, id, true) }, false}
	Enable = Action{"enable", store.AuditAccountEnabled,
		func(ctx context.Context, st *store.Store, id int64) error { return st.SetDisabled(ctx, id, false) }, false}
	ResetUsage = Action{"reset_usage", store.AuditUsageReset,
		func(ctx context.Context, st *store.Store, id int64) error { return st.ResetUsage(ctx, id) }, false}
	Delete = Action{"delete", store.AuditAccountDeleted,
		func(ctx context.Context, st *store.Store, id int64) error { return st.DeleteAccount(ctx, id) }, false}
)

// SetAdmin is MakeAdmin or RemoveAdmin.
func SetAdmin(admin bool) Action {
	if admin {
		return MakeAdmin
	}
	return RemoveAdmin
}

// SetDisabled is Disable or Enable.
func SetDisabled(disabled bool) Action {
	if disabled {
		return Disable
	}
	return Enable
}

// Apply makes act's change to a and records it.
func (o Operator) Apply(ctx context.Context, act Action, a *store.Account) error {
	if act.onlyVerified && !a.Verified {
		return store.ErrUnverified
	}
	if err := act.apply(ctx, o.Store, a.ID); err != nil {
		return err
	}
	return o.record(ctx, act.Kind, a, o.By)
}

// RuleError is a value a rule refuses, named as the admin routes' JSON
// names it (plan, usage_cap, paid_until); the command line names it as
// its flag (-plan).
type RuleError struct {
	Field   string
	Problem string // "must be starter, pro or enterprise"
}

func (e *RuleError) Error() string { return e.Field + " " + e.Problem }

// The plan rules: what may be set on an account, and which changes are
// made, refused or asked to be confirmed. The plans themselves (names,
// caps, the plan in force) are store's: store.ValidPlan, store.PaidPlan,
// store.Account.Cap. Every caller (the command line, the admin routes,
// the user's plan buttons, products and payment events) asks these.

// CheckPlan applies the plan rules: the plan is one of the three, a usage
// cap (1 or more) only on the enterprise plan, paid_until only on a paid
// plan.
func CheckPlan(plan string, usageCap *int, paidUntil bool) error {
	switch {
	case !store.ValidPlan(plan):
		return &RuleError{"plan", "must be starter, pro or enterprise"}
	case usageCap != nil && plan != store.PlanEnterprise:
		return &RuleError{"usage_cap", "applies only to the enterprise plan"}
	case usageCap != nil && *usageCap < 1:
		return &RuleError{"usage_cap", "must be 1 or more (omit it for no cap)"}
	case paidUntil && !store.PaidPlan(plan):
		return &RuleError{"paid_until", "applies only to paid plans"}
	}
	return nil
}

// CheckPaidPlan refuses a plan that is not sold, where one is bought: a
// product's plan, a payment's. field names it as the request does.
func CheckPaidPlan(field, plan string) error {
	if !store.PaidPlan(plan) {
		return &RuleError{field, "must be pro or enterprise"}
	}
	return nil
}

// SetByAdmin reports whether the plan in force on a at now is one an
// administrator set, which only an administrator changes (SwitchOwnPlan).
func SetByAdmin(a *store.Account, now time.Time) bool {
	return a.PlanByAdmin && a.EffectivePlan(now) != store.PlanStarter
}

// LeavingNeedsConfirmation reports whether a user's move of a to plan
// gives up a plan they chose, which they confirm first: a move to starter
// from a paid plan in force. A plan an administrator set is refused
// instead (SwitchOwnPlan), and a plan already cancelled has nothing more
// to give up.
func LeavingNeedsConfirmation(a *store.Account, plan string, now time.Time) bool {
	return plan == store.PlanStarter && a.EffectivePlan(now) != store.PlanStarter && !a.PlanByAdmin && !a.PlanCancelled
}

// checkPaidUntil refuses a new paid_until that is not after now.
func checkPaidUntil(a *store.Account, paidUntil *time.Time, now time.Time) error {
	if paidUntil == nil || paidUntil.After(now) || (a.PaidUntil != nil && a.PaidUntil.Equal(*paidUntil)) {
		return nil
	}
	return &RuleError{"paid_until", fmt.Sprintf("is in the past (%s): give a date to come, or set the starter plan to end the paid one now",
		paidUntil.UTC().Format(AuditTime))}
}

// Plan is a plan to set on an account.
type Plan struct {
	Name      string
	UsageCap  *int       // the enterprise plan's monthly cap; nil: none
	PaidUntil *time.Time // nil: a paid plan that never expires
}

// Unchanged reports whether setting p on a would leave it as it is: the
// same plan, cap and paid_until (to the second), set by an administrator
// and not cancelled. Such a change is not made, nor recorded.
func (p Plan) Unchanged(a *store.Account) bool {
	sameCap := (a.UsageCap == nil) == (p.UsageCap == nil) && (p.UsageCap == nil || *a.UsageCap == *p.UsageCap)
	samePaid := (a.PaidUntil == nil) == (p.PaidUntil == nil) && (p.PaidUntil == nil || a.PaidUntil.Unix() == p.PaidUntil.Unix())
	return a.Plan == p.Name && a.PlanByAdmin == store.PaidPlan(p.Name) && !a.PlanCancelled && sameCap && samePaid
}

// KeepingCap is the plan named, keeping a's usage cap if the plan is the
// one that takes a cap, never expiring: a plan changed by hand.
func KeepingCap(a *store.Account, plan string) Plan {
	p := Plan{Name: plan}
	if plan == store.PlanEnterprise {
		p.UsageCap = a.UsageCap
	}
	return p
}

// AuditTime is how audit details write a time: as the admin page shows
// dates, so an audit line reads like the rest of the page.
const AuditTime = "2 Jan 2006 15:04 UTC"

// SetPlan checks p against the plan rules, sets it on a and records the
// change. A paid_until that has passed is refused (the account would fall
// to starter at once, without a word), unless it is the one a has already:
// a change of the cap alone keeps it.
func (o Operator) SetPlan(ctx context.Context, a *store.Account, p Plan) error {
	if err := CheckPlan(p.Name, p.UsageCap, p.PaidUntil != nil); err != nil {
		return err
	}
	if err := checkPaidUntil(a, p.PaidUntil, o.Store.Now()); err != nil {
		return err
	}
	if err := o.Store.SetPlan(ctx, a.ID, p.Name, p.PaidUntil, p.UsageCap); err != nil {
		return err
	}
	detail := fmt.Sprintf("%s -> %s", a.Plan, p.Name)
	if p.PaidUntil != nil {
		detail += ", paid until " + p.PaidUntil.UTC().Format(AuditTime)
	}
	return o.record(ctx, store.AuditPlanChanged, a, detail+", "+o.By)
}

// SetPassword sets a's password to the hash given, which ends its
// sessions, and with revokeKeys deletes its API keys too; it records the
// change.
func (o Operator) SetPassword(ctx context.Context, a *store.Account, passwordHash string, revokeKeys bool) error {
	if err := o.Store.SetPassword(ctx, a.ID, passwordHash, revokeKeys); err != nil {
		return err
	}
	return o.record(ctx, store.AuditPasswordSet, a, o.By)
}

// New is an account an operator creates: verified at once, with its
// password already checked against the policy and hashed.
type New struct {
	Email, PasswordHash, Plan string
	Admin                     bool
}

// Create checks n's plan, creates the account and records it (and, for an
// administrator, the grant); it returns the account. A pending
// (unverified) registration of the email is taken over: it gets n's
// password, plan and rights (store.CreateOrTakeOver), and the audit event
// says so. A verified account with the email is store.ErrEmailTaken.
func (o Operator) Create(ctx context.Context, n New) (*store.Account, error) {
	if err := CheckPlan(n.Plan, nil, false); err != nil {
		return nil, err
	}
	id, tookOver, err := o.Store.CreateOrTakeOver(ctx, store.NewAccount{Email: n.Email, PasswordHash: n.PasswordHash, Plan: n.Plan, Verified: true, Admin: n.Admin})
	if err != nil {
		return nil, err
	}
	a := &store.Account{ID: id, Email: n.Email, Plan: n.Plan, Verified: true, Admin: n.Admin, PlanByAdmin: n.Plan != store.PlanStarter}
	detail := o.By
	if tookOver {
		detail = "took over the pending registration, " + o.By
	}
	if err := o.record(ctx, store.AuditRegistered, a, detail); err != nil {
		return nil, err
	}
	if n.Admin {
		if err := o.record(ctx, store.AuditAdminGranted, a, o.By); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Activate sets a's password to the hash given and marks it verified,
// and with admin makes it an administrator, in one change that ends its
// sessions; it records each change made. It is how an operator verifies
// an unverified account or makes it an administrator: Verify and
// MakeAdmin refuse one (store.ErrUnverified), whose password whoever
// registered the email chose.
func (o Operator) Activate(ctx context.Context, a *store.Account, passwordHash string, admin bool) error {
	if err := o.Store.Activate(ctx, a.ID, passwordHash, admin); err != nil {
		return err
	}
	if err := o.record(ctx, store.AuditPasswordSet, a, o.By); err != nil {
		return err
	}
	if !a.Verified {
		if err := o.record(ctx, store.AuditAccountVerified, a, o.By); err != nil {
			return err
		}
	}
	if admin && !a.Admin {
		return o.record(ctx, store.AuditAdminGranted, a, o.By)
	}
	return nil
}
