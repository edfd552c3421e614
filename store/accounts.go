package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// Plans an account can be on.
const (
	PlanStarter    = "starter"
	PlanPro        = "pro"
	PlanEnterprise = "enterprise"
)

// StarterCap is the starter plan's monthly allowance of metered calls.
const StarterCap = 100

// ValidPlan reports whether plan names a plan.
func ValidPlan(plan string) bool {
	return plan == PlanStarter || plan == PlanPro || plan == PlanEnterprise
}

// ErrEmailTaken is returned when creating an account whose email exists.
var ErrEmailTaken = errors.New("an account with this email already exists")

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
	CreatedAt    time.Time
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

// insertAccount is CreateAccount on db, a connection or a transaction.
func insertAccount(ctx context.Context, db execer, n NewAccount, now time.Time) (int64, error) {
	if n.Plan == "" {
		n.Plan = PlanStarter
	}
	res, err := db.ExecContext(ctx,
		`INSERT INTO accounts (email, password_hash, plan, verified, admin, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		strings.TrimSpace(n.Email), n.PasswordHash, n.Plan, n.Verified, n.Admin, unix(now))
	if violates(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) { // email is the only unique column
		return 0, ErrEmailTaken
	}
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// execer is what *sql.DB and *sql.Tx share for statements without rows.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

const accountColumns = `id, email, password_hash, plan, usage_cap, paid_until, verified, admin, disabled, created_at`

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
	dest := append(lead, &a.ID, &a.Email, &a.PasswordHash, &a.Plan, &usageCap, &paidUntil, &a.Verified, &a.Admin, &a.Disabled, &created)
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

// AccountByEmail finds an account by email, case-insensitively.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx,
		`SELECT `+accountColumns+` FROM accounts WHERE email = ?`, strings.TrimSpace(email)))
	return a, wrap("account by email", err)
}

// AccountByID finds an account by id.
func (s *Store) AccountByID(ctx context.Context, id int64) (*Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id))
	return a, wrap("account by id", err)
}

// SetPassword replaces an account's password hash and ends all its
// sessions, so a reset locks out whoever knew the old password; with
// revokeKeys it also deletes every API key of the account, in the same
// transaction.
func (s *Store) SetPassword(ctx context.Context, accountID int64, passwordHash string, revokeKeys bool) error {
	defer s.auth.invalidate()
	return wrap("set password", s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET password_hash = ? WHERE id = ?`, passwordHash, accountID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = ?`, accountID); err != nil {
			return err
		}
		if !revokeKeys {
			return nil
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE account_id = ?`, accountID)
		return err
	}))
}

// MarkVerified activates an account.
func (s *Store) MarkVerified(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	_, err := s.write.ExecContext(ctx, `UPDATE accounts SET verified = 1 WHERE id = ?`, accountID)
	return wrap("mark verified", err)
}

// SetPlan changes an account's plan, paid_until and enterprise cap.
func (s *Store) SetPlan(ctx context.Context, accountID int64, plan string, paidUntil *time.Time, usageCap *int) error {
	defer s.auth.invalidate()
	var paid, cap any
	if paidUntil != nil {
		paid = unix(*paidUntil)
	}
	if usageCap != nil {
		cap = *usageCap
	}
	res, err := s.write.ExecContext(ctx, `UPDATE accounts SET plan = ?, paid_until = ?, usage_cap = ? WHERE id = ?`, plan, paid, cap, accountID)
	if err != nil {
		return wrap("set plan", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
