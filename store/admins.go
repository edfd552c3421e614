package store

import (
	"cmp"
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
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
	// ErrUnverified refuses to make an administrator of an account whose
	// email was never verified: whoever registered it chose its password,
	// and that may not be the owner of the address. Setting a new password
	// in the same change (Activate) is the way.
	ErrUnverified = errors.New("this account's email is not verified: set a new password for it in the same change")
)

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

// ActiveAdmins counts the verified, enabled administrators: the ones the
// last-admin rule keeps (spareLastAdmin), so the admin page offers no
// action that rule would refuse.
func (s *Store) ActiveAdmins(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE admin = TRUE AND verified = TRUE AND disabled = FALSE`).Scan(&n)
	return n, wrap("active admins", err)
}
