package store

import "context"

// ActiveAdmins counts the verified, enabled administrators: the ones the
// last-admin rule keeps (spareLastAdmin), so the admin page offers no
// action that rule would refuse.
func (s *Store) ActiveAdmins(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE admin = TRUE AND verified = TRUE AND disabled = FALSE`).Scan(&n)
	return n, wrap("active admins", err)
}
