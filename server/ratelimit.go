package server

import (
	"container/list"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"secutil/tools/emailaddr"
)

// limiter is a set of token buckets keyed by client, account, or both. It
// holds at most maxBuckets of them: when full, the least recently used
// bucket makes room, so memory stays bounded and a newcomer is always
// served. Buckets idle for a whole refill period are dropped as they come
// to the back of the list, since a fresh bucket would hold the same tokens.
type limiter struct {
	rate  Rate
	mu    sync.Mutex
	byKey map[string]*list.Element // of *bucket
	lru   list.List                // most recently used at the front
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time
}

// maxBuckets bounds each limiter's memory under a flood of distinct keys:
// with keys of at most a few hundred bytes, a few tens of MB.
const maxBuckets = 100_000

// maxEmailBytes is the longest email address (RFC 5321's path limit less
// its angle brackets); a longer one never reaches a limiter.
const maxEmailBytes = 254

func newLimiter(r Rate) *limiter {
	return &limiter{rate: r, byKey: map[string]*list.Element{}}
}

// allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	perToken := l.rate.Per.Seconds() / float64(l.rate.Burst)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.touch(key, now)
	b.tokens = math.Min(float64(l.rate.Burst), b.tokens+now.Sub(b.at).Seconds()/perToken)
	b.at = now
	l.dropIdle(now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * perToken * float64(time.Second))
}

// touch returns key's bucket at the front of the list, making one (full)
// when there is none, in the place of the least recently used when the
// table is full.
func (l *limiter) touch(key string, now time.Time) *bucket {
	if e, ok := l.byKey[key]; ok {
		l.lru.MoveToFront(e)
		return e.Value.(*bucket)
	}
	fresh := bucket{key: strings.Clone(key), tokens: float64(l.rate.Burst), at: now}
	if len(l.byKey) >= maxBuckets {
		e := l.lru.Back()
		b := e.Value.(*bucket)
		delete(l.byKey, b.key)
		*b = fresh
		l.byKey[b.key] = e
		l.lru.MoveToFront(e)
		return b
	}
	b := &fresh
	l.byKey[b.key] = l.lru.PushFront(b)
	return b
}

// dropIdle removes buckets untouched for a refill period from the back of
// the list (the list is in order of last use), a few per call.
func (l *limiter) dropIdle(now time.Time) {
	for range 2 {
		e := l.lru.Back()
		if e == nil || now.Sub(e.Value.(*bucket).at) < l.rate.Per {
			return
		}
		delete(l.byKey, e.Value.(*bucket).key)
		l.lru.Remove(e)
	}
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
func (s *Server) throttle(w http.ResponseWriter, r *http.Request, perClient *limiter, account string) error {
	account = strings.TrimSpace(account)
	if len(account) > maxEmailBytes {
		return badRequest("field \"email\" is longer than %d characters", maxEmailBytes)
	}
	account = emailaddr.Key(account) // a look-alike of an address counts as that address
	now := time.Now()
	client := clientKey(r)
	ok, wait := perClient.allow(client, now)
	var err error
	if ok && account != "" {
		ok, wait, err = s.clientAccountLimiter.allow(r.Context(), client+" "+account)
	}
	if ok && err == nil && account != "" {
		ok, wait, err = s.accountLimiter.allow(r.Context(), account)
	}
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	return rateLimited(w, wait)
}

// rateLimited sets Retry-After for a refused call and returns its 429.
func rateLimited(w http.ResponseWriter, wait time.Duration) error {
	secs := max(int(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return newError(codeRateLimited, "too many attempts; retry in %d seconds", secs)
}

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
