package store

import (
	"cmp"
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Purposes of a verification code.
const (
	PurposeRegister = "register"
	PurposeReset    = "reset"
)

// MaxCodeAttempts is how many wrong tries kill a code, from every client
// together. A stranger can kill the owner's code, but not the owner's
// next one: their own codes and tries count for them alone
// (MaxCodesPerHour, MaxCodeTriesPerHour), so the owner asks for another.
const MaxCodeAttempts = 5

// Limits per account (that is, per email) and client over an hour, across
// purposes and codes: how many codes may be sent, and how many wrong tries
// made. Sending a new code therefore gives a guesser no new tries. The
// limits count per client (the caller's key of it: an address, a /64), so
// that a stranger's requests and wrong codes use up the stranger's share,
// not the owner's; the account's limits over every client bound mail and
// guessing from many clients.
const (
	MaxCodesPerHour            = 5
	MaxCodeTriesPerHour        = 10
	MaxAccountCodesPerHour     = 4 * MaxCodesPerHour
	MaxAccountCodeTriesPerHour = 5 * MaxCodeTriesPerHour
	codeWindow                 = time.Hour
)

// A network an account logged in from (RememberClient) is known: it keeps
// its own share of codes and tries (MaxCodesPerHour, MaxCodeTriesPerHour)
// past the account's limits over every client, so that strangers on many
// networks cannot use those up and stop the owner's reset. An account
// keeps its MaxKnownClients newest, each for KnownClientsKept after its
// last login.
const (
	MaxKnownClients  = 10
	KnownClientsKept = 90 * 24 * time.Hour
)

// allClients is the client of the account's row of code_limits that
// counts every client's codes and tries; callers' client keys are
// addresses or prefixes, never this.
const allClients = "*"

var (
	// ErrCodeInvalid covers a wrong, expired, exhausted or absent code: the
	// caller learns only that the code did not work.
	ErrCodeInvalid = errors.New("the code is wrong or has expired; request a new one")
	// ErrTooManyCodes means the codes an account may get within the hour,
	// from this client or from all, went out: no other is made.
	ErrTooManyCodes = errors.New("too many codes were sent to this address in the last hour")
)

// WrongCodeError is the ErrCodeInvalid of a wrong try at a live code: it
// says how many more tries the client has at the code (0: none), the
// code's own or, if fewer, its hour's.
type WrongCodeError struct{ TriesLeft int }

func (e *WrongCodeError) Error() string {
	return fmt.Sprintf("wrong code: %d more tries at it", e.TriesLeft)
}

// Is makes a WrongCodeError an ErrCodeInvalid.
func (e *WrongCodeError) Is(target error) bool { return target == ErrCodeInvalid }

// codeLimits is an account's row of code_limits for one client, in its
// current window.
type codeLimits struct {
	windowStart  int64
	codes, tries int
	noticed      bool
}

// limitsOf reads an account's code limits for client, starting a new
// window when the last one is over.
func (s *Store) limitsOf(ctx context.Context, tx *sql.Tx, accountID int64, client string) (codeLimits, error) {
	now := unix(s.now())
	var l codeLimits
	err := tx.QueryRowContext(ctx, `SELECT window_start, codes, failures, noticed FROM code_limits WHERE account_id = $1 AND client = $2`,
		accountID, client).Scan(&l.windowStart, &l.codes, &l.tries, &l.noticed)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && l.windowStart <= now-int64(codeWindow.Seconds())) {
		return codeLimits{windowStart: now}, nil
	}
	return l, err
}

func saveLimits(ctx context.Context, tx *sql.Tx, accountID int64, client string, l codeLimits) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO code_limits (account_id, client, window_start, codes, failures, noticed) VALUES ($1, $2, $3, $4, $5, $6)
		 ON CONFLICT (account_id, client) DO UPDATE SET window_start = excluded.window_start, codes = excluded.codes,
		   failures = excluded.failures, noticed = excluded.noticed`,
		accountID, client, l.windowStart, l.codes, l.tries, l.noticed)
	return err
}

// clientLimits are an account's limits for one client and for all.
type clientLimits struct {
	client      string
	mine, total codeLimits
	// known: the account logged in from the client; the limits over
	// every client do not stop it.
	known bool
}

// clientLimitsOf reads them; client "" is a client of its own, for a
// caller that knows none.
func (s *Store) clientLimitsOf(ctx context.Context, tx *sql.Tx, accountID int64, client string) (clientLimits, error) {
	mine, err := s.limitsOf(ctx, tx, accountID, client)
	if err != nil {
		return clientLimits{}, err
	}
	total, err := s.limitsOf(ctx, tx, accountID, allClients)
	if err != nil {
		return clientLimits{}, err
	}
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM known_clients WHERE account_id = $1 AND client = $2 AND seen_at > $3`,
		accountID, client, unix(s.now().Add(-KnownClientsKept))).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return clientLimits{client, mine, total, false}, nil
	}
	return clientLimits{client, mine, total, true}, err
}

// codesUsed reports that the client may be sent no more codes this hour.
func (l *clientLimits) codesUsed() bool {
	return l.mine.codes >= MaxCodesPerHour || (!l.known && l.total.codes >= MaxAccountCodesPerHour)
}

// triesUsed reports that no code works from the client this hour.
func (l *clientLimits) triesUsed() bool {
	return l.triesLeft() <= 0
}

// triesLeft is how many wrong tries the client has left this hour.
func (l *clientLimits) triesLeft() int {
	left := MaxCodeTriesPerHour - l.mine.tries
	if !l.known {
		left = min(left, MaxAccountCodeTriesPerHour-l.total.tries)
	}
	return left
}

func (l *clientLimits) save(ctx context.Context, tx *sql.Tx, accountID int64) error {
	if err := saveLimits(ctx, tx, accountID, l.client, l.mine); err != nil {
		return err
	}
	return saveLimits(ctx, tx, accountID, allClients, l.total)
}

// stopped marks the client as having hit a limit, and reports whether
// the owner should now be told: the first time in the client's window.
func (l *clientLimits) stopped() (notify bool) {
	notify = !l.mine.noticed
	l.mine.noticed = true
	return notify
}

// SetCodeFor stores a fresh code for the account and purpose, asked for by
// client, replacing any earlier one, unless MaxCodesPerHour codes went to
// the account at this client's request within the hour, or
// MaxAccountCodesPerHour at anyone's (ErrTooManyCodes). notifyOwner is
// true once per client and hour, when that client is first stopped: the
// caller tells the owner that someone is asking for codes, and that their
// own request from elsewhere still works.
func (s *Store) SetCodeFor(ctx context.Context, accountID int64, purpose, client string, codeHash []byte, ttl time.Duration) (notifyOwner bool, err error) {
	var refused bool
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		// The account first, so that its code limits count exactly when
		// requests for it reach several servers at once.
		if found, err := s.lockAccount(ctx, tx, accountID); !found {
			return cmp.Or(err, ErrNotFound)
		}
		refused, notifyOwner, err = s.setCode(ctx, tx, accountID, purpose, client, codeHash, ttl)
		return err
	})
	if err == nil && refused {
		err = ErrTooManyCodes
	}
	return notifyOwner, wrap("set code", err)
}

// setCode is SetCodeFor in tx, which holds the account's lock. Refused,
// it changes nothing but the notice it keeps: the caller commits tx all
// the same, or the owner would be told again.
func (s *Store) setCode(ctx context.Context, tx *sql.Tx, accountID int64, purpose, client string, codeHash []byte, ttl time.Duration) (refused, notifyOwner bool, err error) {
	limits, err := s.clientLimitsOf(ctx, tx, accountID, client)
	if err != nil {
		return false, false, err
	}
	if limits.codesUsed() {
		notifyOwner = limits.stopped()
		return true, notifyOwner, limits.save(ctx, tx, accountID)
	}
	limits.mine.codes++
	limits.total.codes++
	if err := limits.save(ctx, tx, accountID); err != nil {
		return false, false, err
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO verification_codes (account_id, purpose, code_hash, expires_at, attempts) VALUES ($1, $2, $3, $4, 0)
		 ON CONFLICT (account_id, purpose) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, attempts = 0`,
		accountID, purpose, codeHash, unix(s.now().Add(ttl)))
	return false, false, err
}

// ConsumeCodeFrom checks codeHash, sent by client, against the stored
// code. A match deletes the code; a miss counts a try against the code
// (the MaxCodeAttempts-th kills it), against the client's hour and the
// account's (after MaxCodeTriesPerHour from the client, or
// MaxAccountCodeTriesPerHour from all, no code works from it, right or
// wrong, until the hour is over). Every failure is ErrCodeInvalid; a miss
// at a live code is a *WrongCodeError, which says how many tries the
// client has left at it. notifyOwner is as for SetCodeFor: true the first
// time in the hour the client is stopped.
func (s *Store) ConsumeCodeFrom(ctx context.Context, accountID int64, purpose, client string, codeHash []byte) (notifyOwner bool, err error) {
	var matched bool
	var wrong *WrongCodeError
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if found, err := s.lockAccount(ctx, tx, accountID); !found {
			return err // no account, no code
		}
		limits, err := s.clientLimitsOf(ctx, tx, accountID, client)
		if err != nil {
			return err
		}
		if limits.triesUsed() {
			notifyOwner = limits.stopped()
			return limits.save(ctx, tx, accountID)
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
		limits.mine.tries++
		limits.total.tries++
		if err := limits.save(ctx, tx, accountID); err != nil {
			return err
		}
		wrong = &WrongCodeError{TriesLeft: max(0, min(MaxCodeAttempts-attempts-1, limits.triesLeft()))}
		_, err = tx.ExecContext(ctx,
			`UPDATE verification_codes SET attempts = attempts + 1 WHERE account_id = $1 AND purpose = $2`, accountID, purpose)
		return err
	})
	switch {
	case err != nil:
		return notifyOwner, wrap("consume code", err)
	case wrong != nil:
		return notifyOwner, wrong
	case !matched:
		return notifyOwner, ErrCodeInvalid
	}
	return false, nil
}

// DeleteExpiredCodes removes codes that can no longer be used, expired or
// out of attempts, the code limits of hours that are over and the known
// networks not seen for KnownClientsKept, and returns how many codes it
// removed. ConsumeCode already refuses them; deleting them keeps the
// tables small.
func (s *Store) DeleteExpiredCodes(ctx context.Context) (int64, error) {
	n, err := s.deleteWhere(ctx, "delete expired codes",
		`DELETE FROM verification_codes WHERE expires_at <= $1 OR attempts >= $2`, unix(s.now()), MaxCodeAttempts)
	if err == nil {
		_, err = s.deleteWhere(ctx, "delete expired code limits",
			`DELETE FROM code_limits WHERE window_start <= $1`, unix(s.now().Add(-codeWindow)))
	}
	if err == nil {
		_, err = s.deleteWhere(ctx, "delete old known clients",
			`DELETE FROM known_clients WHERE seen_at <= $1`, unix(s.now().Add(-KnownClientsKept)))
	}
	return n, err
}

// RememberClient records that the account logged in from client (the
// caller's key of it, as SetCodeFor takes it), which makes the client
// known for KnownClientsKept, and forgets the account's known clients
// past its MaxKnownClients newest. An account deleted meanwhile is
// ErrNotFound.
func (s *Store) RememberClient(ctx context.Context, accountID int64, client string) error {
	return wrap("remember client", s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO known_clients (account_id, client, seen_at) VALUES ($1, $2, $3)
			ON CONFLICT (account_id, client) DO UPDATE SET seen_at = excluded.seen_at`, accountID, client, unix(s.now()))
		if err != nil {
			return accountMissing(err)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM known_clients WHERE account_id = $1 AND client NOT IN
			(SELECT client FROM known_clients WHERE account_id = $1 ORDER BY seen_at DESC, client LIMIT $2)`, accountID, MaxKnownClients)
		return err
	}))
}
