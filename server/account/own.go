package account

import (
	"context"
	"errors"
	"time"

	"secutil/store"
	"secutil/tools/passhash"
)

// Changes a user makes to their own account (the Account page, the plan
// buttons). An Operator makes them too, so that they are recorded alike:
// By names the user ("by the account's owner").

var (
	// ErrWrongPassword is a current password that does not match: the
	// change or the deletion is not made.
	ErrWrongPassword = errors.New("the current password is wrong")
	// ErrPlanSetByAdmin refuses a user's change of a plan an administrator
	// set.
	ErrPlanSetByAdmin = errors.New("an administrator set this account's plan: ask an administrator to change it")
)

// checkPassword returns ErrWrongPassword unless password is a's.
func checkPassword(a *store.Account, password string) error {
	ok, err := passhash.Verify(password, a.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return ErrWrongPassword
	}
	return nil
}

// ChangeOwnPassword changes a's password once current is checked: newHash
// applies the password policy to the new password and hashes it (its
// error is returned as it is). Every session of a ends, the user's own
// too, and session starts in its place, in the same change: a copy of
// the user's cookie stops working. With revokeKeys, a's API keys end as
// well. It records store.AuditPasswordSet.
func (o Operator) ChangeOwnPassword(ctx context.Context, a *store.Account, current string, newHash func() (string, error), session *store.NewSession, revokeKeys bool) error {
	if err := checkPassword(a, current); err != nil {
		return err
	}
	hash, err := newHash()
	if err != nil {
		return err
	}
	if err := o.Store.ChangePassword(ctx, a.ID, hash, session, revokeKeys); err != nil {
		return err
	}
	detail := o.By
	if revokeKeys {
		detail += ", every API key revoked"
	}
	return o.record(ctx, store.AuditPasswordSet, a, detail)
}

// DeleteOwnAccount deletes a once password is checked, with its keys,
// sessions and pending codes; its monthly usage is kept for the operator
// (store.DeleteAccount). The last verified, enabled administrator is
// store.ErrLastAdmin. It records store.AuditAccountDeleted.
func (o Operator) DeleteOwnAccount(ctx context.Context, a *store.Account, password string) error {
	if err := checkPassword(a, password); err != nil {
		return err
	}
	return o.Apply(ctx, Delete, a)
}

// PlanSwitch is what SwitchOwnPlan did or asks for.
type PlanSwitch struct {
	// Checkout: the plan is a paid one, which the user buys; the caller
	// sends them to checkout. Nothing changed.
	Checkout bool
	// Changed: the account's plan changed now, or its paid plan was
	// cancelled; the caller records it (AuditPlanChanged).
	Changed bool
	// Plan is the plan in force after the switch; Until, when the user
	// left a paid plan, when it ends (then starter).
	Plan  string
	Until *time.Time
}

// SwitchOwnPlan applies the user's choice of plan to a. A plan an
// administrator set (and still in force) is the administrator's to change:
// ErrPlanSetByAdmin. A paid plan is bought (Checkout). Starter, from a paid
// plan with a paid_until still ahead, cancels it: the paid plan stays until
// then (Until); from a paid plan without one, it is at once (the account
// keeps an admin's enterprise cap for a later upgrade). A plan that is not
// one is a *RuleError.
func (o Operator) SwitchOwnPlan(ctx context.Context, a *store.Account, plan string) (PlanSwitch, error) {
	if err := CheckPlan(plan, nil, false); err != nil {
		return PlanSwitch{}, err
	}
	now := o.Store.Now()
	if SetByAdmin(a, now) {
		return PlanSwitch{}, ErrPlanSetByAdmin
	}
	current := a.EffectivePlan(now)
	switch {
	case plan != store.PlanStarter:
		return PlanSwitch{Checkout: true, Plan: current}, nil
	case current == store.PlanStarter:
		return PlanSwitch{Plan: current}, nil
	case a.PaidUntil != nil:
		if a.PlanCancelled {
			return PlanSwitch{Plan: current, Until: a.PaidUntil}, nil
		}
		if err := o.Store.CancelPlan(ctx, a.ID); err != nil {
			return PlanSwitch{}, err
		}
		return PlanSwitch{Changed: true, Plan: current, Until: a.PaidUntil}, nil
	}
	if err := o.Store.SetPlan(ctx, a.ID, store.PlanStarter, nil, a.UsageCap); err != nil {
		return PlanSwitch{}, err
	}
	return PlanSwitch{Changed: true, Plan: store.PlanStarter}, nil
}
