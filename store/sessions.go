package store

import (
	"context"
	"time"
)

// CreateSession stores a session whose cookie value hashes to hash.
func (s *Store) CreateSession(ctx context.Context, hash []byte, accountID int64, ttl time.Duration) error {
	now := s.now()
	_, err := s.write.ExecContext(ctx, insertSession, hash, accountID, unix(now), unix(now.Add(ttl)))
	return wrap("create session", accountMissing(err))
}

// insertSession stores a session: its hash, account, creation and expiry.
const insertSession = `INSERT INTO sessions (hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`

// NewSession is a session to start: the hash of its cookie's value, and
// how long it lasts.
type NewSession struct {
	Hash []byte
	TTL  time.Duration
}

// SessionAccount returns the account of a live session.
func (s *Store) SessionAccount(ctx context.Context, hash []byte) (*Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx,
		`SELECT `+accountColumnsOf("a")+` FROM sessions s JOIN accounts a ON a.id = s.account_id
		  WHERE s.hash = $1 AND s.expires_at > $2`, hash, unix(s.now())))
	return a, wrap("session account", err)
}

// DeleteSession ends a session; ending an unknown session is not an error.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.write.ExecContext(ctx, `DELETE FROM sessions WHERE hash = $1`, hash)
	return wrap("delete session", err)
}

// DeleteExpiredSessions removes sessions past their expiry and returns how
// many it removed. SessionAccount already ignores them; deleting them keeps
// the table from growing with every login.
func (s *Store) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	return s.deleteWhere(ctx, "delete expired sessions", `DELETE FROM sessions WHERE expires_at <= $1`, unix(s.now()))
}
