package store

import (
	"cmp"
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"time"
)

// Kinds of audit event of the first start and of account administration.
const (
	AuditSetupCompleted  = "setup_completed"
	AuditAccountVerified = "account_verified"
	AuditAdminGranted    = "admin_granted"
	AuditAdminRevoked    = "admin_revoked"
	AuditAccountDisabled = "account_disabled"
	AuditAccountEnabled  = "account_enabled"
	AuditAccountDeleted  = "account_deleted"
	AuditUsageReset      = "usage_reset"
	AuditInviteCreated   = "invite_created"
	AuditPasswordSet     = "password_set" // by an operator, with secutil user passwd
)

var (
	// ErrLastAdmin refuses to revoke, disable or delete the last enabled
	// administrator, which would leave nobody to run the server.
	ErrLastAdmin = errors.New("this is the last enabled administrator: make another account an administrator first")
	// ErrSetupToken is a setup link that is wrong or was replaced by the
	// link of a later start.
	ErrSetupToken = errors.New("this setup link is not valid: the server prints a new one each time it starts without an administrator")
	// ErrSetupDone is a setup link used once an administrator exists.
	ErrSetupDone = errors.New("setup is done: an administrator exists, so the setup link no longer works")
	// ErrInviteInvalid is an invite that is unknown, used or expired.
	ErrInviteInvalid = errors.New("this invite is unknown, used or expired: ask an administrator for a new one")
	// ErrUnverified refuses to make an administrator of an account whose
	// email was never verified: whoever registered it chose its password,
	// and that may not be the owner of the address. Setting a new password
	// in the same change (Activate) is the way.
	ErrUnverified = errors.New("this account's email is not verified: set a new password for it in the same change")
)

// querier is what *sql.DB and *sql.Tx share for reading one row.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// HasAdmin reports whether any account is an administrator.
func (s *Store) HasAdmin(ctx context.Context) (bool, error) {
	has, err := hasAdmin(ctx, s.read)
	return has, wrap("has admin", err)
}

func hasAdmin(ctx context.Context, db querier) (bool, error) {
	var has bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE admin = TRUE)`).Scan(&has)
	return has, err
}

// setupTokenSetting names the setting that holds the hash of the setup
// link's token.
const setupTokenSetting = "setup_token"

// SetSetupToken stores the hash of the one-time setup link's token,
// replacing any earlier one.
func (s *Store) SetSetupToken(ctx context.Context, hash []byte) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
		setupTokenSetting, hash)
	return wrap("set setup token", err)
}

// CheckSetupToken returns nil when hash is the current setup token and no
// administrator exists yet, else ErrSetupDone or ErrSetupToken.
func (s *Store) CheckSetupToken(ctx context.Context, hash []byte) error {
	return wrap("check setup token", checkSetupToken(ctx, s.read, hash))
}

func checkSetupToken(ctx context.Context, db querier, hash []byte) error {
	if has, err := hasAdmin(ctx, db); err != nil || has {
		return cmp.Or(err, ErrSetupDone)
	}
	var stored []byte
	err := db.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, setupTokenSetting).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrSetupToken
	}
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(stored, hash) != 1 {
		return ErrSetupToken
	}
	return nil
}

// CreateFirstAdmin creates the first administrator with the setup token
// and retires the token, in one transaction, so two uses of one link
// cannot both succeed. A pending registration of the email is taken over
// (CreateOrTakeOver); a verified account with it is ErrEmailTaken.
func (s *Store) CreateFirstAdmin(ctx context.Context, tokenHash []byte, n NewAccount) (int64, error) {
	defer s.auth.invalidate()
	n.Admin = true
	var id int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// On PostgreSQL, a concurrent use of the link waits here for this
		// one, and then finds an administrator.
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM settings WHERE name = $1`+s.forUpdate, setupTokenSetting); err != nil {
			return err
		}
		if err := checkSetupToken(ctx, tx, tokenHash); err != nil {
			return err
		}
		var err error
		if id, _, err = s.createOrTakeOver(ctx, tx, n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE name = $1`, setupTokenSetting)
		return err
	})
	return id, wrap("create first admin", err)
}

// spareLastAdmin ends a WHERE clause on accounts so that it never matches
// the only verified, enabled administrator: an unverified one cannot log
// in, so it runs nothing.
const spareLastAdmin = ` AND NOT (admin = TRUE AND verified = TRUE AND disabled = FALSE AND (SELECT count(*) FROM accounts WHERE admin = TRUE AND verified = TRUE AND disabled = FALSE) = 1)`

// lockAdmins locks the enabled administrators' rows on PostgreSQL, where
// two servers could otherwise each demote one of the last two, each
// counting two; on SQLite the write transaction holds the lock already.
func (s *Store) lockAdmins(ctx context.Context, tx *sql.Tx) error {
	if s.backend != Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT id FROM accounts WHERE admin = TRUE AND verified = TRUE AND disabled = FALSE FOR UPDATE`)
	return err
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

// SetAdmin grants or revokes administrator rights. Granting them to an
// unverified account fails with ErrUnverified (Activate does it with a new
// password); revoking those of the last verified, enabled administrator
// fails with ErrLastAdmin.
func (s *Store) SetAdmin(ctx context.Context, accountID int64, admin bool) error {
	defer s.auth.invalidate()
	query, kept := `UPDATE accounts SET admin = TRUE WHERE id = $1 AND verified = TRUE`, ErrUnverified
	if !admin {
		query, kept = `UPDATE accounts SET admin = FALSE WHERE id = $1`+spareLastAdmin, ErrLastAdmin
	}
	return wrap("set admin", s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockAdmins(ctx, tx); err != nil {
			return err
		}
		return changeAccountOr(ctx, tx, query, accountID, kept)
	}))
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
		if _, err := tx.ExecContext(ctx, `INSERT INTO deleted_usage (account_id, period, count, deleted_at)
			SELECT account_id, period, count, $2 FROM usage WHERE account_id = $1 AND count > 0`, accountID, unix(s.now())); err != nil {
			return err
		}
		if err := s.retireKeysWhere(ctx, tx, RevokedAccountDeleted, `account_id = $3`, accountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM accounts WHERE id = $1`, accountID)
		return err
	}))
}

// DeletedUsage is the monthly usage of a deleted account.
type DeletedUsage struct {
	AccountID int64
	Period    string
	Count     int64
	DeletedAt time.Time
}

// DeletedUsages lists the kept usage of deleted accounts, newest deletion
// first, at most limit.
func (s *Store) DeletedUsages(ctx context.Context, limit int) ([]DeletedUsage, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT account_id, period, count, deleted_at FROM deleted_usage ORDER BY deleted_at DESC, account_id, period LIMIT $1`, limit)
	if err != nil {
		return nil, wrap("deleted usages", err)
	}
	defer rows.Close()
	var out []DeletedUsage
	for rows.Next() {
		var d DeletedUsage
		var at int64
		if err := rows.Scan(&d.AccountID, &d.Period, &d.Count, &at); err != nil {
			return nil, wrap("deleted usages", err)
		}
		d.DeletedAt = time.Unix(at, 0).UTC()
		out = append(out, d)
	}
	return out, wrap("deleted usages", rows.Err())
}

// ResetUsage sets the account's count of metered calls this month to 0.
// It moves the auth generation, which makes every server's meter read the
// count again rather than trust the one it last saw.
func (s *Store) ResetUsage(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	return wrap("reset usage", s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1`+s.forUpdate, accountID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE usage SET count = 0 WHERE account_id = $1 AND period = $2`, accountID, Period(s.now()))
		}
		if err == nil {
			err = s.bumpAuthGeneration(ctx, tx)
		}
		return err
	}))
}

// CreateInvite stores a one-time registration invite whose token hashes to
// hash, made by the account createdBy (0: with the admin token), and
// returns when it expires.
func (s *Store) CreateInvite(ctx context.Context, hash []byte, createdBy int64, ttl time.Duration) (time.Time, error) {
	now := s.now()
	var by any
	if createdBy != 0 {
		by = createdBy
	}
	_, err := s.write.ExecContext(ctx, `INSERT INTO invites (hash, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		hash, by, unix(now), unix(now.Add(ttl)))
	return time.Unix(unix(now.Add(ttl)), 0).UTC(), wrap("create invite", err)
}

// CheckInvite returns nil when the invite can be used, else ErrInviteInvalid.
func (s *Store) CheckInvite(ctx context.Context, hash []byte) error {
	var one int
	err := s.read.QueryRowContext(ctx, `SELECT 1 FROM invites WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`,
		hash, unix(s.now())).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrInviteInvalid
	}
	return wrap("check invite", err)
}

// ActiveAdmins counts the verified, enabled administrators: the ones the
// last-admin rule keeps (spareLastAdmin), so the admin page offers no
// action that rule would refuse.
func (s *Store) ActiveAdmins(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE admin = TRUE AND verified = TRUE AND disabled = FALSE`).Scan(&n)
	return n, wrap("active admins", err)
}
