package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"secutil/tools/emailaddr"
)

// Product is a paid plan offered at a price; the checkout provider sells it.
type Product struct {
	ID         int64
	Name       string
	Plan       string // pro or enterprise
	PriceCents int64
	Currency   string // ISO 4217, e.g. EUR
	Interval   string // month or year
	CreatedAt  time.Time
}

// CreateProduct stores a product and returns its id. Validation is the
// caller's; the table's CHECKs are the last line.
func (s *Store) CreateProduct(ctx context.Context, p Product) (int64, error) {
	if hasNUL(p.Name, p.Plan, p.Currency, p.Interval) {
		return 0, ErrInvalidText
	}
	var id int64
	err := s.write.QueryRowContext(ctx,
		`INSERT INTO products (name, plan, price_cents, currency, interval, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		p.Name, p.Plan, p.PriceCents, p.Currency, p.Interval, unix(s.now())).Scan(&id)
	return id, wrap("create product", err)
}

// ProductForPlan returns the newest product of plan, or ErrNotFound.
func (s *Store) ProductForPlan(ctx context.Context, plan string) (*Product, error) {
	var p Product
	var created int64
	err := s.read.QueryRowContext(ctx,
		`SELECT id, name, plan, price_cents, currency, interval, created_at FROM products WHERE plan = $1 ORDER BY id DESC LIMIT 1`, plan).
		Scan(&p.ID, &p.Name, &p.Plan, &p.PriceCents, &p.Currency, &p.Interval, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, wrap("product for plan", err)
	}
	p.CreatedAt = time.Unix(created, 0).UTC()
	return &p, nil
}

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

// AccountUsage is an account with its metered calls this month.
type AccountUsage struct {
	Account
	Usage int
}

// Accounts lists accounts by id, at most limit from offset, each with its
// usage in the current period.
func (s *Store) Accounts(ctx context.Context, limit, offset int) ([]AccountUsage, error) {
	accounts, err := s.accounts(ctx, limit, offset)
	return accounts, wrap("accounts", err)
}

func (s *Store) accounts(ctx context.Context, limit, offset int) ([]AccountUsage, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT coalesce(u.count, 0), `+accountColumnsOf("a")+` FROM accounts a
		 LEFT JOIN usage u ON u.account_id = a.id AND u.period = $1
		 ORDER BY a.id LIMIT $2 OFFSET $3`, Period(s.now()), limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AccountUsage
	for rows.Next() {
		var used int
		a, err := scanAccount(rows, &used)
		if err != nil {
			return nil, err
		}
		out = append(out, AccountUsage{Account: *a, Usage: used})
	}
	return out, rows.Err()
}
