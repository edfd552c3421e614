package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"secutil/tools/emailaddr"
)

// Plans an account can be on. What a plan is lives here: the names, which
// are paid for, the caps and the plan in force (Account.EffectivePlan,
// Account.Cap); the rules of changing an account's plan live in
// server/account.
const (
	PlanStarter    = "starter"
	PlanPro        = "pro"
	PlanEnterprise = "enterprise"
)

// StarterCap is the starter plan's monthly allowance of metered calls.
const StarterCap = 100

// ValidPlan reports whether plan names a plan.
func ValidPlan(plan string) bool {
	return plan == PlanStarter || PaidPlan(plan)
}

// PaidPlan reports whether plan is one that is paid for: sold at checkout,
// with a paid_until; starter is free.
func PaidPlan(plan string) bool {
	return plan == PlanPro || plan == PlanEnterprise
}

// ErrEmailTaken is returned when creating an account whose email exists.
var ErrEmailTaken = errors.New("an account with this email already exists")

// ErrInvalidEmail is wrapped by the error of creating an account whose email
// emailaddr.Canonical refuses; callers check the address with it first, to
// answer with its reason.
var ErrInvalidEmail = errors.New("invalid email")

// Account is one user of the service.
type Account struct {
	ID           int64
	Email        string
	PasswordHash string
	Plan         string
	UsageCap     *int // enterprise cap; nil = none
	PaidUntil    *time.Time
	Verified     bool
	Admin        bool
	Disabled     bool // an administrator turned it off: no login, its keys refused
	// PlanByAdmin: an administrator set the plan, so only an
	// administrator changes it (account.SwitchOwnPlan).
	PlanByAdmin bool
	// PlanCancelled: the user left the paid plan, which stays in force
	// until PaidUntil; EffectivePlan is starter from then on.
	PlanCancelled bool
	CreatedAt     time.Time
}

// EffectivePlan is the plan in force at now: a paid plan whose paid_until
// has passed acts as starter until it is renewed.
func (a *Account) EffectivePlan(now time.Time) string {
	if a.Plan != PlanStarter && a.PaidUntil != nil && now.After(*a.PaidUntil) {
		return PlanStarter
	}
	return a.Plan
}

// Cap is the monthly cap of metered calls in force at now, nil for none.
func (a *Account) Cap(now time.Time) *int {
	switch a.EffectivePlan(now) {
	case PlanStarter:
		c := StarterCap
		return &c
	case PlanEnterprise:
		return a.UsageCap
	default:
		return nil
	}
}

// NewAccount describes an account to create.
type NewAccount struct {
	Email        string
	PasswordHash string
	Plan         string
	Verified     bool
	Admin        bool
}

// CreateAccount inserts an account and returns its id.
func (s *Store) CreateAccount(ctx context.Context, n NewAccount) (int64, error) {
	id, err := insertAccount(ctx, s.write, n, s.now())
	return id, wrap("create account", err)
}

// insertAccount is CreateAccount on db, a connection or a transaction. The
// account keeps its email as typed (trimmed), to show and to mail, and is
// found by its canonical form, email_key, which is unique: two spellings of
// one address are one account, on either backend.
func insertAccount(ctx context.Context, db querier, n NewAccount, now time.Time) (int64, error) {
	if n.Plan == "" {
		n.Plan = PlanStarter
	}
	key, err := emailaddr.Canonical(n.Email)
	if err != nil {
		return 0, fmt.Errorf("%w: the email %v", ErrInvalidEmail, err)
	}
	if hasNUL(n.PasswordHash, n.Plan) {
		return 0, ErrInvalidText
	}
	var id int64
	err = db.QueryRowContext(ctx,
		`INSERT INTO accounts (email, email_key, password_hash, plan, verified, admin, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		strings.TrimSpace(n.Email), key, n.PasswordHash, n.Plan, n.Verified, n.Admin, unix(now)).Scan(&id)
	// email_key is unique, and so is email on SQLite (without regard to
	// ASCII case, which email_key folds too): either means the address has
	// an account.
	if violates(err, uniqueViolation) {
		return 0, ErrEmailTaken
	}
	return id, err
}

const accountColumns = `id, email, password_hash, plan, usage_cap, paid_until, verified, admin, disabled, plan_by_admin, plan_cancelled, created_at`

// accountColumnsOf qualifies accountColumns with a table alias for joins.
func accountColumnsOf(alias string) string {
	cols := strings.Split(accountColumns, ", ")
	for i := range cols {
		cols[i] = alias + "." + cols[i]
	}
	return strings.Join(cols, ", ")
}

// scanAccount scans accountColumns, after any leading columns given in lead.
func scanAccount(row interface{ Scan(...any) error }, lead ...any) (*Account, error) {
	var (
		a         Account
		usageCap  sql.NullInt64
		paidUntil sql.NullInt64
		created   int64
	)
	dest := append(lead, &a.ID, &a.Email, &a.PasswordHash, &a.Plan, &usageCap, &paidUntil, &a.Verified, &a.Admin, &a.Disabled, &a.PlanByAdmin, &a.PlanCancelled, &created)
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if usageCap.Valid {
		c := int(usageCap.Int64)
		a.UsageCap = &c
	}
	a.PaidUntil = fromUnix(paidUntil)
	a.CreatedAt = time.Unix(created, 0).UTC()
	return &a, nil
}

// AccountByEmail finds an account by email, by its canonical form
// (emailaddr.Canonical): case and surrounding space do not matter, and an
// address the policy refuses, such as a look-alike with an invisible or a
// fullwidth character, is ErrNotFound.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*Account, error) {
	key, err := emailaddr.Canonical(email)
	if err != nil {
		return nil, ErrNotFound // no account can have it
	}
	a, err := scanAccount(s.read.QueryRowContext(ctx,
		`SELECT `+accountColumns+` FROM accounts WHERE email_key = $1`, key))
	return a, wrap("account by email", err)
}

// AccountByID finds an account by id.
func (s *Store) AccountByID(ctx context.Context, id int64) (*Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
	return a, wrap("account by id", err)
}

// lockAccount locks the account's row until the transaction ends, so that
// two transactions about one account (on two servers) take turns; it
// reports whether the account exists. SQLite's write transaction already
// holds the whole file.
func (s *Store) lockAccount(ctx context.Context, tx *sql.Tx, accountID int64) (bool, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM accounts WHERE id = $1`+s.forUpdate, accountID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// SetPassword replaces an account's password hash and ends all its
// sessions, so a reset locks out whoever knew the old password; with
// revokeKeys it also deletes every API key of the account, in the same
// transaction.
func (s *Store) SetPassword(ctx context.Context, accountID int64, passwordHash string, revokeKeys bool) error {
	return s.ChangePassword(ctx, accountID, passwordHash, nil, revokeKeys)
}

// ChangePassword is SetPassword that starts session (nil: none) in the
// same change: the user who changes their own password gets a fresh
// session as every session, theirs too, ends, so that a copy of their
// cookie stops working with the others. It fails with ErrNotFound when
// the account is gone.
func (s *Store) ChangePassword(ctx context.Context, accountID int64, passwordHash string, session *NewSession, revokeKeys bool) error {
	defer s.auth.invalidate()
	return wrap("set password", s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET password_hash = $1 WHERE id = $2`, passwordHash, accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, ErrNotFound)
		}
		if err := s.endSessionsAndKeys(ctx, tx, accountID, revokeKeys); err != nil || session == nil {
			return err
		}
		now := s.now()
		_, err = tx.ExecContext(ctx, insertSession, session.Hash, accountID, unix(now), unix(now.Add(session.TTL)))
		return err
	}))
}

// endSessionsAndKeys deletes the account's sessions, and with revokeKeys
// its API keys (RevokedPasswordSet: every caller sets the account's
// password).
func (s *Store) endSessionsAndKeys(ctx context.Context, tx *sql.Tx, accountID int64, revokeKeys bool) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = $1`, accountID); err != nil {
		return err
	}
	if !revokeKeys {
		return nil
	}
	if err := s.retireKeysWhere(ctx, tx, RevokedPasswordSet, `account_id = $3`, accountID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE account_id = $1`, accountID)
	return err
}

// MarkVerified activates an account.
func (s *Store) MarkVerified(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	_, err := s.write.ExecContext(ctx, `UPDATE accounts SET verified = TRUE WHERE id = $1`, accountID)
	return wrap("mark verified", err)
}

// SetPlan changes an account's plan, paid_until and enterprise cap, as
// set by an administrator: a paid plan is then the administrator's to
// change (Account.PlanByAdmin), starter is the user's own again. A
// cancellation of the plan is forgotten.
func (s *Store) SetPlan(ctx context.Context, accountID int64, plan string, paidUntil *time.Time, usageCap *int) error {
	defer s.auth.invalidate()
	var paid, cap any
	if paidUntil != nil {
		paid = unix(*paidUntil)
	}
	if usageCap != nil {
		cap = *usageCap
	}
	res, err := s.write.ExecContext(ctx, `UPDATE accounts SET plan = $1, paid_until = $2, usage_cap = $3, plan_by_admin = $4, plan_cancelled = FALSE WHERE id = $5`,
		plan, paid, cap, plan != PlanStarter, accountID)
	if err != nil {
		return wrap("set plan", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// CancelPlan records that the user left their paid plan: it stays in
// force until its paid_until, then the account is on starter.
func (s *Store) CancelPlan(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	res, err := s.write.ExecContext(ctx, `UPDATE accounts SET plan_cancelled = TRUE WHERE id = $1`, accountID)
	if err != nil {
		return wrap("cancel plan", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// changeAccount runs query, a statement on the account with id whose only
// argument is that id, and tells why it changed no row: ErrNotFound, or
// ErrLastAdmin when spareLastAdmin kept it.
func changeAccount(ctx context.Context, tx *sql.Tx, query string, id int64) error {
	return changeAccountOr(ctx, tx, query, id, ErrLastAdmin)
}

// changeAccountOr is changeAccount whose query's WHERE clause keeps an
// existing account for the reason kept.
func changeAccountOr(ctx context.Context, tx *sql.Tx, query string, id int64, kept error) error {
	res, err := tx.ExecContext(ctx, query, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return cmp.Or(err, kept)
}

// SetDisabled disables or enables an account. Disabling ends its sessions,
// and its keys are refused (KeyByHash's callers check Account.Disabled)
// until it is enabled again; the last enabled administrator cannot be
// disabled (ErrLastAdmin).
func (s *Store) SetDisabled(ctx context.Context, accountID int64, disabled bool) error {
	defer s.auth.invalidate()
	return wrap("set disabled", s.inTx(ctx, func(tx *sql.Tx) error {
		if !disabled {
			return changeAccount(ctx, tx, `UPDATE accounts SET disabled = FALSE WHERE id = $1`, accountID)
		}
		if err := s.lockAdmins(ctx, tx); err != nil {
			return err
		}
		if err := changeAccount(ctx, tx, `UPDATE accounts SET disabled = TRUE WHERE id = $1`+spareLastAdmin, accountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = $1`, accountID)
		return err
	}))
}

// DeleteAccount deletes an account with its keys (recorded as revoked,
// RevokedAccountDeleted), sessions, codes and usage by day; its monthly
// usage moves to deleted_usage (DeletedUsage), kept for the operator, and
// its suggestions and audit events stay, without the link. The last
// verified, enabled administrator cannot be deleted (ErrLastAdmin). A
// charge of the account still under way then fails with ErrNotFound.
func (s *Store) DeleteAccount(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	return wrap("delete account", s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockAdmins(ctx, tx); err != nil {
			return err
		}
		if err := changeAccount(ctx, tx, `UPDATE accounts SET disabled = disabled WHERE id = $1`+spareLastAdmin, accountID); err != nil {
			return err
		}
		// A kept month of the same id adds up: a database from before ids
		// were never reused can hold one of an earlier holder's.
		if _, err := tx.ExecContext(ctx, `INSERT INTO deleted_usage (account_id, period, count, deleted_at)
			SELECT account_id, period, count, $2 FROM usage WHERE account_id = $1 AND count > 0
			ON CONFLICT (account_id, period) DO UPDATE SET count = deleted_usage.count + excluded.count, deleted_at = excluded.deleted_at`,
			accountID, unix(s.now())); err != nil {
			return err
		}
		if err := s.retireKeysWhere(ctx, tx, RevokedAccountDeleted, `account_id = $3`, accountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM accounts WHERE id = $1`, accountID)
		return err
	}))
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
