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

// Limits per account (that is, per email) over an hour, across purposes
// and codes: how many codes may be sent, and how many wrong tries made.
// Sending a new code therefore gives a guesser no new tries.
const (
	MaxCodesPerHour     = 5
	MaxCodeTriesPerHour = 10
	codeWindow          = time.Hour
)

var (
	// ErrCodeInvalid covers a wrong, expired, exhausted or absent code: the
	// caller learns only that the code did not work.
	ErrCodeInvalid = errors.New("the code is wrong or has expired; request a new one")
	// ErrTooManyCodes means MaxCodesPerHour codes went to the account within
	// the hour: no other is made.
	ErrTooManyCodes = errors.New("too many codes were sent to this address in the last hour")
)

// codeLimits is an account's row of code_limits, in its current window.
type codeLimits struct {
	windowStart  int64
	codes, tries int
}

// limitsOf reads an account's code limits, starting a new window when the
// last one is over.
func (s *Store) limitsOf(ctx context.Context, tx *sql.Tx, accountID int64) (codeLimits, error) {
	now := unix(s.now())
	var l codeLimits
	err := tx.QueryRowContext(ctx, `SELECT window_start, codes, failures FROM code_limits WHERE account_id = $1`,
		accountID).Scan(&l.windowStart, &l.codes, &l.tries)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && l.windowStart <= now-int64(codeWindow.Seconds())) {
		return codeLimits{windowStart: now}, nil
	}
	return l, err
}

func saveLimits(ctx context.Context, tx *sql.Tx, accountID int64, l codeLimits) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO code_limits (account_id, window_start, codes, failures) VALUES ($1, $2, $3, $4)
		 ON CONFLICT (account_id) DO UPDATE SET window_start = excluded.window_start, codes = excluded.codes, failures = excluded.failures`,
		accountID, l.windowStart, l.codes, l.tries)
	return err
}

// SetCode stores a fresh code for the account and purpose, replacing any
// earlier one, unless MaxCodesPerHour codes went to the account within the
// hour (ErrTooManyCodes).
func (s *Store) SetCode(ctx context.Context, accountID int64, purpose string, codeHash []byte, ttl time.Duration) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// The account first, so that its code limits count exactly when
		// requests for it reach several servers at once.
		if found, err := s.lockAccount(ctx, tx, accountID); !found {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		limits, err := s.limitsOf(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if limits.codes >= MaxCodesPerHour {
			return ErrTooManyCodes
		}
		limits.codes++
		if err := saveLimits(ctx, tx, accountID, limits); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO verification_codes (account_id, purpose, code_hash, expires_at, attempts) VALUES ($1, $2, $3, $4, 0)
			 ON CONFLICT (account_id, purpose) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, attempts = 0`,
			accountID, purpose, codeHash, unix(s.now().Add(ttl)))
		return err
	})
	return wrap("set code", err)
}

// ConsumeCode checks codeHash against the stored code. A match deletes the
// code; a miss counts a try against the code (the fifth kills it) and
// against the account's hour (after MaxCodeTriesPerHour no code works,
// right or wrong, until the hour is over).
func (s *Store) ConsumeCode(ctx context.Context, accountID int64, purpose string, codeHash []byte) error {
	var matched bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if found, err := s.lockAccount(ctx, tx, accountID); !found {
			return err // no account, no code
		}
		limits, err := s.limitsOf(ctx, tx, accountID)
		if err != nil || limits.tries >= MaxCodeTriesPerHour {
			return err
		}
		var stored []byte
		var expires int64
		var attempts int
		err = tx.QueryRowContext(ctx,
			`SELECT code_hash, expires_at, attempts FROM verification_codes WHERE account_id = $1 AND purpose = $2`,
			accountID, purpose).Scan(&stored, &expires, &attempts)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if expires <= unix(s.now()) || attempts >= MaxCodeAttempts {
			_, err := tx.ExecContext(ctx, `DELETE FROM verification_codes WHERE account_id = $1 AND purpose = $2`, accountID, purpose)
			return err
		}
		if subtle.ConstantTimeCompare(stored, codeHash) == 1 {
			matched = true
			_, err := tx.ExecContext(ctx, `DELETE FROM verification_codes WHERE account_id = $1 AND purpose = $2`, accountID, purpose)
			return err
		}
		limits.tries++
		if err := saveLimits(ctx, tx, accountID, limits); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE verification_codes SET attempts = attempts + 1 WHERE account_id = $1 AND purpose = $2`, accountID, purpose)
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
// out of attempts, and the code limits of hours that are over, and returns
// how many codes it removed. ConsumeCode already refuses them; deleting
// them keeps the tables small.
func (s *Store) DeleteExpiredCodes(ctx context.Context) (int64, error) {
	n, err := s.deleteWhere(ctx, "delete expired codes",
		`DELETE FROM verification_codes WHERE expires_at <= $1 OR attempts >= $2`, unix(s.now()), MaxCodeAttempts)
	if err == nil {
		_, err = s.deleteWhere(ctx, "delete expired code limits",
			`DELETE FROM code_limits WHERE window_start <= $1`, unix(s.now().Add(-codeWindow)))
	}
	return n, err
}
