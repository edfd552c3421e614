package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"secutil/tools/emailaddr"
)

// pendingByEmail finds the account with email's canonical form, locking
// its row on PostgreSQL: found reports whether one exists.
func (s *Store) pendingByEmail(ctx context.Context, tx *sql.Tx, email string) (id int64, verified, found bool, err error) {
	key, err := emailaddr.Canonical(email)
	if err != nil {
		return 0, false, false, fmt.Errorf("%w: the email %v", ErrInvalidEmail, err)
	}
	err = tx.QueryRowContext(ctx, `SELECT id, verified FROM accounts WHERE email_key = $1`+s.forUpdate, key).Scan(&id, &verified)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, false, nil
	}
	return id, verified, err == nil, err
}

// createOrTakeOver is CreateOrTakeOver in tx.
func (s *Store) createOrTakeOver(ctx context.Context, tx *sql.Tx, n NewAccount) (id int64, tookOver bool, err error) {
	id, verified, found, err := s.pendingByEmail(ctx, tx, n.Email)
	switch {
	case err != nil:
		return 0, false, err
	case !found:
		id, err = insertAccount(ctx, tx, n, s.now())
		return id, false, err
	case verified:
		return 0, false, ErrEmailTaken
	}
	if hasNUL(n.PasswordHash, n.Plan) {
		return 0, false, ErrInvalidText
	}
	if _, err := s.spendInvite(ctx, tx, id); err != nil {
		return 0, false, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE accounts SET password_hash = $1, plan = $2, verified = $3, admin = $4, plan_by_admin = $5,
		usage_cap = NULL, paid_until = NULL, plan_cancelled = FALSE, invite_hash = NULL WHERE id = $6`,
		n.PasswordHash, cmp.Or(n.Plan, PlanStarter), n.Verified, n.Admin, cmp.Or(n.Plan, PlanStarter) != PlanStarter, id)
	if err == nil {
		err = s.endSessionsAndKeys(ctx, tx, id, true)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, `DELETE FROM verification_codes WHERE account_id = $1`, id)
	}
	return id, true, err
}

// CreateOrTakeOver creates the account n describes, as CreateAccount does,
// or takes over a pending (unverified) registration of its email: that
// account gets n's password, plan, verification and admin rights, and
// loses whatever its registration left (sessions, keys, codes); the
// invite it registered with, if still live, is spent. Only an operator
// may call it (the setup link's holder, the command line): whoever
// registered the email chose the old password, and may not own the
// address. tookOver says which happened; a verified account with the
// email is ErrEmailTaken.
func (s *Store) CreateOrTakeOver(ctx context.Context, n NewAccount) (id int64, tookOver bool, err error) {
	defer s.auth.invalidate()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		id, tookOver, err = s.createOrTakeOver(ctx, tx, n)
		return err
	})
	return id, tookOver, wrap("create or take over account", err)
}

// Activate sets an account's password, marks it verified and, with admin,
// makes it an administrator, in one change; its sessions end, and the
// invite it registered with, if still live, is spent (an account got in
// with it). It is how an operator verifies an unverified account, or
// makes one an administrator: the new password shuts out whoever
// registered the email.
func (s *Store) Activate(ctx context.Context, accountID int64, passwordHash string, admin bool) error {
	defer s.auth.invalidate()
	return wrap("activate", s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.spendInvite(ctx, tx, accountID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET password_hash = $1, verified = TRUE, invite_hash = NULL, admin = (admin OR $2) WHERE id = $3`,
			passwordHash, admin, accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM verification_codes WHERE account_id = $1 AND purpose = $2`, accountID, PurposeRegister); err != nil {
			return err
		}
		return s.endSessionsAndKeys(ctx, tx, accountID, false)
	}))
}

// Registration is a registration to record (RegisterPending): the
// account (its email and password hash), the invite it came with (its
// hash, nil for none) and the code to mail for it.
type Registration struct {
	Account NewAccount
	Invite  []byte
	// Client is who registers, as SetCodeFor takes it: the code counts
	// against its codes for the hour.
	Client string
	// Code gives the keyed hash of the code to mail, for the account's id
	// (a new account has none before it is made); CodeTTL is its life.
	Code    func(accountID int64) []byte
	CodeTTL time.Duration
}

// Registered is what RegisterPending did: the account's id, and whether
// it is new (else a pending one got the new password). NotifyOwner goes
// with ErrTooManyCodes, as SetCodeFor's.
type Registered struct {
	ID          int64
	Created     bool
	NotifyOwner bool
}

// RegisterPending records a registration and its code in one
// transaction: it creates a pending (unverified) account with r's email
// and password, or gives a pending one with that email the new password,
// and stores r's code for it (purpose PurposeRegister). A pending
// account's password changes only together with a fresh code, which its
// caller mails: past the client's codes for the hour (ErrTooManyCodes,
// with NotifyOwner as SetCodeFor's) nothing changes, so nobody replaces
// it without the mailbox hearing of it. With an invite (registration by
// invite) the invite must be live, and the account keeps it until it is
// verified (VerifyRegistration spends it): registering again with the
// same invite works until then, also with another email. Errors:
// ErrInviteInvalid, an invite unknown, spent, revoked or expired;
// ErrEmailTaken, a verified account has the email (or a concurrent
// registration just created it); ErrInvalidEmail; ErrTooManyCodes.
func (s *Store) RegisterPending(ctx context.Context, r Registration) (Registered, error) {
	if hasNUL(r.Account.PasswordHash) {
		return Registered{}, ErrInvalidText
	}
	var out Registered
	var refused bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if r.Invite != nil {
			if err := checkInvite(ctx, tx, r.Invite, s.now()); err != nil {
				return err
			}
		}
		id, verified, found, err := s.pendingByEmail(ctx, tx, r.Account.Email)
		switch {
		case err != nil:
			return err
		case verified:
			return ErrEmailTaken
		case !found:
			n := r.Account
			n.Verified, n.Admin, n.Plan = false, false, PlanStarter
			if id, err = insertAccount(ctx, tx, n, s.now()); err != nil {
				return err
			}
			out.Created = true
		}
		out.ID = id
		// The code first: refused, the pending account stays as it was.
		refused, out.NotifyOwner, err = s.setCode(ctx, tx, id, PurposeRegister, r.Client, r.Code(id), r.CodeTTL)
		if err != nil || refused {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE accounts SET password_hash = $1, invite_hash = $2 WHERE id = $3`, r.Account.PasswordHash, r.Invite, id)
		return err
	})
	if err == nil && refused {
		err = ErrTooManyCodes
	}
	return out, wrap("register pending", err)
}

// VerifyRegistration marks a pending account verified, after its code
// matched, and spends the invite it registered with, in one transaction:
// of any number of accounts registered with one invite, only the first to
// be verified is; the others fail with ErrInviteInvalid and stay pending,
// as does an account whose invite was revoked or expired meanwhile. An
// account registered without an invite is just verified. An account
// deleted meanwhile is ErrNotFound.
func (s *Store) VerifyRegistration(ctx context.Context, accountID int64) error {
	defer s.auth.invalidate()
	return wrap("verify registration", s.inTx(ctx, func(tx *sql.Tx) error {
		spent, err := s.spendInvite(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if !spent {
			return ErrInviteInvalid
		}
		_, err = tx.ExecContext(ctx, `UPDATE accounts SET verified = TRUE, invite_hash = NULL WHERE id = $1`, accountID)
		return err
	}))
}

// spendInvite marks the invite the account registered with as used, when
// it is live: spent is false for one used by another account, revoked or
// expired. An account registered without one spends nothing (spent is
// true); a missing account is ErrNotFound. The account keeps the invite's
// hash: its caller clears it.
func (s *Store) spendInvite(ctx context.Context, tx *sql.Tx, accountID int64) (spent bool, err error) {
	var invite []byte
	err = tx.QueryRowContext(ctx, `SELECT invite_hash FROM accounts WHERE id = $1`+s.forUpdate, accountID).Scan(&invite)
	if errors.Is(err, sql.ErrNoRows) {
		return false, ErrNotFound
	}
	if err != nil || invite == nil {
		return err == nil, err
	}
	// One statement decides, under the invite row's lock on PostgreSQL: a
	// second account waits, then finds it used.
	now := unix(s.now())
	res, err := tx.ExecContext(ctx, `UPDATE invites SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND expires_at > $1`, now, invite)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// PendingRegistrationsKept is how long a pending registration stays once
// made, even without a live code: an operator may still activate it by
// hand (Activate). After that, one without a live code is abandoned.
const PendingRegistrationsKept = 24 * time.Hour

// DeleteAbandonedRegistrations deletes the pending (unverified) accounts
// made PendingRegistrationsKept ago or more that have no live code: their
// codes expired or took their wrong tries, so nobody can verify them, and
// registering again makes a new one. A disabled one stays, as an
// administrator chose. It returns how many it deleted; the sweep calls
// it, so that abandoned registrations do not hold their emails and grow
// the table.
func (s *Store) DeleteAbandonedRegistrations(ctx context.Context) (int64, error) {
	defer s.auth.invalidate()
	now := s.now()
	return s.deleteWhere(ctx, "delete abandoned registrations",
		`DELETE FROM accounts WHERE verified = FALSE AND disabled = FALSE AND admin = FALSE AND created_at <= $1
		   AND NOT EXISTS (SELECT 1 FROM verification_codes c
		                    WHERE c.account_id = accounts.id AND c.expires_at > $2 AND c.attempts < $3)`,
		unix(now.Add(-PendingRegistrationsKept)), unix(now), MaxCodeAttempts)
}
