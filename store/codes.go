package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"time"
)

// Purposes of a verification code.
const (
	PurposeRegister = "register"
	PurposeReset    = "reset"
)

// MaxCodeAttempts is how many wrong tries kill a code.
const MaxCodeAttempts = 5

// ErrCodeInvalid covers a wrong, expired, exhausted or absent code: the
// caller learns only that the code did not work.
var ErrCodeInvalid = errors.New("the code is wrong or has expired; request a new one")

// SetCode stores a fresh code for the account and purpose, replacing any
// earlier one.
func (s *Store) SetCode(ctx context.Context, accountID int64, purpose string, codeHash []byte, ttl time.Duration) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO verification_codes (account_id, purpose, code_hash, expires_at, attempts) VALUES (?, ?, ?, ?, 0)
		 ON CONFLICT (account_id, purpose) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, attempts = 0`,
		accountID, purpose, codeHash, unix(s.now().Add(ttl)))
	return wrap("set code", accountMissing(err))
}

// ConsumeCode checks codeHash against the stored code. A match deletes the
// code; a miss counts an attempt, and the fifth miss deletes it.
func (s *Store) ConsumeCode(ctx context.Context, accountID int64, purpose string, codeHash []byte) error {
	var matched bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var stored []byte
		var expires int64
		var attempts int
		err := tx.QueryRowContext(ctx,
			`SELECT code_hash, expires_at, attempts FROM verification_codes WHERE account_id = ? AND purpose = ?`,
			accountID, purpose).Scan(&stored, &expires, &attempts)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if expires <= unix(s.now()) || attempts >= MaxCodeAttempts {
			_, err := tx.ExecContext(ctx, `DELETE FROM verification_codes WHERE account_id = ? AND purpose = ?`, accountID, purpose)
			return err
		}
		if subtle.ConstantTimeCompare(stored, codeHash) == 1 {
			matched = true
			_, err := tx.ExecContext(ctx, `DELETE FROM verification_codes WHERE account_id = ? AND purpose = ?`, accountID, purpose)
			return err
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE verification_codes SET attempts = attempts + 1 WHERE account_id = ? AND purpose = ?`, accountID, purpose)
		return err
	})
	if err != nil {
		return wrap("consume code", err)
	}
	if !matched {
		return ErrCodeInvalid
	}
	return nil
}

// DeleteExpiredCodes removes codes that can no longer be used, expired or
// out of attempts, and returns how many it removed. ConsumeCode already
// refuses them; deleting them keeps the table small.
func (s *Store) DeleteExpiredCodes(ctx context.Context) (int64, error) {
	return s.deleteWhere(ctx, "delete expired codes",
		`DELETE FROM verification_codes WHERE expires_at <= ? OR attempts >= ?`, unix(s.now()), MaxCodeAttempts)
}
