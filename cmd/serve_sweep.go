package cmd

import (
	"context"
	"log/slog"
	"time"

	"secutil/store"
)

// sweepInterval is how often serve deletes expired sessions and codes and
// old revoked keys.
const sweepInterval = 5 * time.Minute

// sweepExpired deletes expired sessions and verification codes, the
// revoked keys kept past store.RevokedKeysKept and the pending
// registrations nobody can verify any more, at once and then every
// interval until ctx ends. Sessions and codes are not accepted once
// expired, and a revoked key that old reads as never made here; the sweep
// keeps the tables from growing with every login, code sent and key
// revoked.
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
		revokedKeys, err := st.DeleteOldRevokedKeys(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("sweeping old revoked keys", "err", err)
		}
		registrations, err := st.DeleteAbandonedRegistrations(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("sweeping abandoned registrations", "err", err)
		}
		if sessions+codes+revokedKeys+registrations > 0 {
			logger.Info("swept expired rows", "sessions", sessions, "codes", codes, "revoked_keys", revokedKeys, "abandoned_registrations", registrations)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
