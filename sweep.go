package main

import (
	"context"
	"log/slog"
	"time"

	"secutil/store"
)

// sweepInterval is how often serve deletes expired sessions and codes.
const sweepInterval = 5 * time.Minute

// sweepExpired deletes expired sessions and verification codes at once and
// then every interval until ctx ends. Neither is accepted once expired; the
// sweep keeps the tables from growing with every login and every code sent.
func sweepExpired(ctx context.Context, st *store.Store, interval time.Duration, logger *slog.Logger) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		sessions, err := st.DeleteExpiredSessions(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("sweeping expired sessions", "err", err)
		}
		codes, err := st.DeleteExpiredCodes(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("sweeping expired codes", "err", err)
		}
		if sessions+codes > 0 {
			logger.Info("swept expired rows", "sessions", sessions, "codes", codes)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
