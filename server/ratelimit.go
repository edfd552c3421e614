package server

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// limiter is a set of token buckets keyed by client IP or account email.
type limiter struct {
	rate  Rate
	mu    sync.Mutex
	byKey map[string]*bucket
	swept time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxBuckets bounds the limiter's memory under a flood of distinct keys.
const maxBuckets = 100_000

func newLimiter(r Rate) *limiter {
	return &limiter{rate: r, byKey: map[string]*bucket{}}
}

// allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	perToken := l.rate.Per.Seconds() / float64(l.rate.Burst)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b, ok := l.byKey[key]
	if !ok {
		if len(l.byKey) >= maxBuckets {
			return false, time.Duration(perToken * float64(time.Second))
		}
		b = &bucket{tokens: float64(l.rate.Burst), at: now}
		l.byKey[key] = b
	}
	b.tokens = math.Min(float64(l.rate.Burst), b.tokens+now.Sub(b.at).Seconds()/perToken)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * perToken * float64(time.Second))
}

// sweep drops buckets that have refilled completely: they hold no state a
// fresh bucket would not.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < l.rate.Per {
		return
	}
	l.swept = now
	for k, b := range l.byKey {
		if now.Sub(b.at) >= l.rate.Per {
			delete(l.byKey, k)
		}
	}
}

// throttle applies the per-IP limiter and, when account is not empty, the
// per-account limiter; it returns a 429 error carrying Retry-After.
func (s *Server) throttle(w http.ResponseWriter, r *http.Request, ipLimiter *limiter, account string) error {
	now := time.Now()
	ok, wait := ipLimiter.allow(clientIP(r), now)
	if ok && account != "" {
		ok, wait = s.accountLimiter.allow(strings.ToLower(strings.TrimSpace(account)), now)
	}
	if ok {
		return nil
	}
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	return newError(codeRateLimited, "too many attempts; retry in %d seconds", max(secs, 1))
}

// clientIP is the peer address. X-Forwarded-For is not trusted: behind a
// proxy, every client would otherwise be able to pick its own bucket.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
