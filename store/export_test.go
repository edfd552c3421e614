package store

import (
	"context"
	"fmt"
	"strings"
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

// RestartWALAt replaces the checkpointer with one that restarts the WAL
// past bytes and leaves half as much again of its file, as the store's own
// does past walRestartBytes: a test cannot write that much in a few
// seconds.
func (s *Store) RestartWALAt(bytes int64) error {
	limit := bytes + bytes/2
	if _, err := s.write.Exec(fmt.Sprintf("PRAGMA journal_size_limit = %d", limit)); err != nil {
		return err
	}
	path := strings.TrimSuffix(s.checkpoints.walPath, "-wal")
	if err := s.checkpoints.close(); err != nil {
		return err
	}
	c, err := startCheckpointer(s.dsn, path, s.write, bytes, limit)
	s.checkpoints = c
	return err
}
