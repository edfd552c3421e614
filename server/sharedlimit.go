package server

import (
	"context"
	"time"
)

// tokenTaker keeps token buckets in the database that every server on it
// shares; store.Store.TakeToken is the implementation.
type tokenTaker interface {
	TakeToken(ctx context.Context, bucket string, burst int, per time.Duration) (bool, time.Duration, error)
}

// sharedLimiter is a limiter whose buckets are kept by the database rather
// than in this server's memory, for the limits keyed by account: with
// several servers on one PostgreSQL database, spreading tries for one
// account over them gains nothing. The per-client limiters stay per server.
type sharedLimiter struct {
	buckets tokenTaker
	name    string // prefixes every key, so limiters never share a bucket
	rate    Rate
}

// allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l sharedLimiter) allow(ctx context.Context, key string) (bool, time.Duration, error) {
	return l.buckets.TakeToken(ctx, l.name+" "+key, l.rate.Burst, l.rate.Per)
}
