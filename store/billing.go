package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"secutil/tools/emailaddr"
)

// PlanChange is what a payment event does to an account.
type PlanChange struct {
	Plan      string     // the new plan; "" keeps the current one
	PaidUntil *time.Time // the new paid_until; nil clears it
}

// PaymentEvent is one verified billing event. Change nil records the event
// without acting on it (a type this version does not handle).
type PaymentEvent struct {
	ID     string
	Type   string
	Email  string
	Change *PlanChange
}

// Outcomes of ApplyPaymentEvent.
const (
	PaymentApplied        = "applied"
	PaymentDuplicate      = "duplicate"       // this event id was seen before; nothing changed
	PaymentIgnored        = "ignored"         // Change was nil
	PaymentUnknownAccount = "unknown_account" // no account has the email
)

// PaymentResult says what ApplyPaymentEvent did.
type PaymentResult struct {
	Outcome   string
	AccountID int64  // when applied
	OldPlan   string // when applied
	NewPlan   string // when applied
}

// ApplyPaymentEvent records the event id and applies its change in one
// transaction. The id is inserted first, doing nothing on a conflict: of any
// number of concurrent deliveries of one event exactly one inserts it and
// applies the change; the others see a duplicate. Every event is recorded,
// also an ignored one, so an id means the same thing forever.
func (s *Store) ApplyPaymentEvent(ctx context.Context, ev PaymentEvent) (PaymentResult, error) {
	if hasNUL(ev.ID, ev.Type) || ev.Change != nil && hasNUL(ev.Change.Plan) {
		return PaymentResult{}, ErrInvalidText
	}
	defer s.auth.invalidate() // the event may change a plan the auth cache holds
	var result PaymentResult
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		result = PaymentResult{}
		var account *Account
		key, err := emailaddr.Canonical(ev.Email)
		switch {
		case ev.Change == nil:
			result.Outcome = PaymentIgnored
		case err != nil: // no account can have it
			result.Outcome = PaymentUnknownAccount
		default:
			account, err = scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email_key = $1`+s.forUpdate, key))
			switch {
			case errors.Is(err, ErrNotFound):
				result.Outcome = PaymentUnknownAccount
			case err != nil:
				return err
			default:
				result.Outcome = PaymentApplied
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, type, outcome, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
			ev.ID, ev.Type, result.Outcome, unix(s.now()))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			result = PaymentResult{Outcome: PaymentDuplicate}
			return nil
		}
		if result.Outcome != PaymentApplied {
			return nil
		}
		plan := account.Plan
		if ev.Change.Plan != "" {
			plan = ev.Change.Plan
		}
		var paid, usageCap any
		if ev.Change.PaidUntil != nil {
			paid = unix(*ev.Change.PaidUntil)
		}
		// An admin's enterprise cap belongs to the account, not to the
		// subscription: it survives renewals, a cancellation and a later
		// re-activation (Account.Cap applies it only on the enterprise plan).
		// A payment ends a cancellation of the plan: it was renewed.
		if account.UsageCap != nil {
			usageCap = *account.UsageCap
		}
		// A plan the event names (bought, or ended) is the user's own, no
		// longer one an administrator set (Account.PlanByAdmin), so the user
		// may leave it as any plan they chose. A renewal names none: it
		// extends the plan in force and leaves its mark as it is, so that a
		// subscription renewing under an administrator's plan does not free
		// the account from it.
		byAdmin := account.PlanByAdmin && ev.Change.Plan == ""
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET plan = $1, paid_until = $2, usage_cap = $3, plan_cancelled = FALSE, plan_by_admin = $4 WHERE id = $5`,
			plan, paid, usageCap, byAdmin, account.ID); err != nil {
			return err
		}
		result.AccountID, result.OldPlan, result.NewPlan = account.ID, account.Plan, plan
		return nil
	})
	return result, wrap("apply payment event", err)
}
