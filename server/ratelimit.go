package server

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"secutil/server/internal/keyedlimit"
	"secutil/tools/emailaddr"
	"secutil/tools/plural"
)

// limiter is an in-memory set of token buckets keyed by client, account,
// or both, at one Rate (keyedlimit bounds its memory).
type limiter struct{ buckets *keyedlimit.Limiter }

// maxEmailBytes is the longest email address (RFC 5321's path limit less
// its angle brackets); a longer one never reaches a limiter.
const maxEmailBytes = 254

func newLimiter(r Rate) *limiter {
	return &limiter{keyedlimit.New(r.Burst, r.Per)}
}

// allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	return l.buckets.Allow(key, now)
}

// throttle applies the per-client limiter and, when account is not empty,
// the per-(client, account) limiter and then the per-account one; it
// returns a 429 error carrying Retry-After. The two buckets keyed by
// account are kept in the database, shared by every server on it (the
// per-client one stays in this server's memory). The per-(client, account)
// bucket is the tight one: a guesser on another network spends it long
// before the looser per-account bucket runs dry, so the owner's own
// network can still log in. An email longer than any address is a 400
// before it reaches a limiter.
func (s *Server) throttle(ctx context.Context, perClient *limiter, account string) error {
	ex := exchangeOf(ctx)
	account = strings.TrimSpace(account)
	if len(account) > maxEmailBytes {
		return badRequest("field \"email\" is longer than %d characters", maxEmailBytes)
	}
	account = emailaddr.Key(account) // a look-alike of an address counts as that address
	now := time.Now()
	client := ex.clientKey
	ok, wait := perClient.allow(client, now)
	var err error
	if ok && account != "" {
		ok, wait, err = s.clientAccountLimiter.allow(ctx, client+" "+account)
	}
	if ok && err == nil && account != "" {
		ok, wait, err = s.accountLimiter.allow(ctx, account)
	}
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	return rateLimited(ex, wait)
}

// rateLimited sets Retry-After on the answer (a ResponseWriter, or an
// action's exchange) of a refused call and returns its 429.
func rateLimited(w interface{ Header() http.Header }, wait time.Duration) error {
	secs := ceilSeconds(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return newError(codeRateLimited, "too many attempts; retry in %s", plural.Count(secs, "second", "seconds"))
}

// ceilSeconds is d in whole seconds, rounded up, at least 1.
func ceilSeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

// clientKey names the client a limiter counts: its IPv4 address, or its
// IPv6 /64, the block a single host or household usually owns (it could
// otherwise pick a fresh address for every try).
func clientKey(r *http.Request) string {
	addr, err := netip.ParseAddr(clientIP(r))
	if err != nil {
		return clientIP(r)
	}
	if addr = addr.Unmap(); addr.Is6() {
		block, _ := addr.WithZone("").Prefix(64) // cannot fail: 64 bits of an IPv6 address
		return block.String()
	}
	return addr.String()
}

// clientIP is the client's address: the peer, or, from a trusted proxy,
// the address it forwarded (the middleware puts it in RemoteAddr; see
// proxy.go). Anyone else's X-Forwarded-For is ignored: every client could
// otherwise pick its own bucket.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

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
