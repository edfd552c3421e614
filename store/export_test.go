package store

import (
	"context"
	"time"
)

// SetCode and ConsumeCode are SetCodeFor and ConsumeCodeFrom with no
// client known, for tests that are not about the per-client limits: every
// such call shares one client's limits.
func (s *Store) SetCode(ctx context.Context, accountID int64, purpose string, codeHash []byte, ttl time.Duration) error {
	_, err := s.SetCodeFor(ctx, accountID, purpose, "", codeHash, ttl)
	return err
}

func (s *Store) ConsumeCode(ctx context.Context, accountID int64, purpose string, codeHash []byte) error {
	_, err := s.ConsumeCodeFrom(ctx, accountID, purpose, "", codeHash)
	return err
}
