package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"math"
	"time"
)

// TakeToken takes a token from the token bucket called name, which holds burst
// tokens and refills at burst per per. The buckets live in the database,
// so every server on it draws from the same ones: spreading tries over
// several servers gains nothing. When the bucket is empty it takes nothing
// and returns false with the time until a token is back.
//
// A bucket that is full again holds nothing a new one would not, so its
// row is deleted: each call removes a few such rows, which keeps the table
// to the buckets in use.
func (s *Store) TakeToken(ctx context.Context, name string, burst int, per time.Duration) (bool, time.Duration, error) {
	// A bucket is kept under the SHA-256 of its name: a fixed size whatever
	// the name (often an email, which the table then does not hold).
	sum := sha256.Sum256([]byte(name))
	bucket := hex.EncodeToString(sum[:])
	perToken := float64(per.Milliseconds()) / float64(burst)
	now := s.now().UnixMilli()
	var ok bool
	var wait time.Duration
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// The upsert's update, which changes nothing, locks the row, as the
		// meter's does.
		var tokens float64
		var updated int64
		err := tx.QueryRowContext(ctx, `INSERT INTO throttle (bucket, tokens, updated_ms, full_ms) VALUES ($1, $2, $3, $3)
			ON CONFLICT (bucket) DO UPDATE SET tokens = throttle.tokens
			RETURNING tokens, updated_ms`, bucket, float64(burst), now).Scan(&tokens, &updated)
		if err != nil {
			return err
		}
		tokens = math.Min(float64(burst), tokens+float64(max(now-updated, 0))/perToken)
		if ok = tokens >= 1; ok {
			tokens--
		} else {
			wait = time.Duration((1 - tokens) * perToken * float64(time.Millisecond))
		}
		full := now + int64(math.Ceil((float64(burst)-tokens)*perToken))
		_, err = tx.ExecContext(ctx, `UPDATE throttle SET tokens = $2, updated_ms = $3, full_ms = $4 WHERE bucket = $1`,
			bucket, tokens, now, full)
		return err
	})
	if err != nil {
		return false, 0, wrap("take token", err)
	}
	// Outside the transaction, holding no lock, so that two servers pruning
	// each other's buckets wait rather than deadlock. The outer full_ms
	// test is checked again on a row another call has just taken from,
	// which is then kept.
	_, err = s.write.ExecContext(ctx, `DELETE FROM throttle WHERE full_ms <= $1 AND bucket IN
		(SELECT bucket FROM throttle WHERE full_ms <= $1 LIMIT 2)`, now)
	return ok, wait, wrap("take token", err)
}
