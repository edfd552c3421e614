package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// ErrInviteInvalid is an invite that is unknown, used or expired.
var ErrInviteInvalid = errors.New("this invite is unknown, used or expired: ask an administrator for a new one")

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
	return wrap("check invite", checkInvite(ctx, s.read, hash, s.now()))
}

// checkInvite is CheckInvite on db, a connection or a transaction.
func checkInvite(ctx context.Context, db querier, hash []byte, now time.Time) error {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM invites WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`,
		hash, unix(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrInviteInvalid
	}
	return err
}

// Invite is a live invite: not used, not expired.
type Invite struct {
	Hash      []byte // its id on the admin routes (RevokeInvite); the token itself is not kept
	CreatedBy string // the creator's email; "" for the admin token or a deleted account
	CreatedAt time.Time
	ExpiresAt time.Time
	Pending   int // accounts registered with it and not verified yet
}

// Invites lists the live invites, the one expiring first first, at most
// limit.
func (s *Store) Invites(ctx context.Context, limit int) ([]Invite, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT i.hash, coalesce(a.email, ''), i.created_at, i.expires_at,
		        (SELECT count(*) FROM accounts p WHERE p.invite_hash = i.hash)
		   FROM invites i LEFT JOIN accounts a ON a.id = i.created_by
		  WHERE i.used_at IS NULL AND i.expires_at > $1
		  ORDER BY i.expires_at, i.hash LIMIT $2`, unix(s.now()), limit)
	if err != nil {
		return nil, wrap("invites", err)
	}
	defer rows.Close()
	var out []Invite
	for rows.Next() {
		var in Invite
		var created, expires int64
		if err := rows.Scan(&in.Hash, &in.CreatedBy, &created, &expires, &in.Pending); err != nil {
			return nil, wrap("invites", err)
		}
		in.CreatedAt, in.ExpiresAt = time.Unix(created, 0).UTC(), time.Unix(expires, 0).UTC()
		out = append(out, in)
	}
	return out, wrap("invites", rows.Err())
}

// RevokeInvite deletes a live invite: it no longer registers anyone, and
// the pending accounts registered with it cannot be verified
// (VerifyRegistration: ErrInviteInvalid). An invite that is unknown, used
// or expired is ErrNotFound.
func (s *Store) RevokeInvite(ctx context.Context, hash []byte) error {
	n, err := s.deleteWhere(ctx, "revoke invite", `DELETE FROM invites WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`, hash, unix(s.now()))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}
