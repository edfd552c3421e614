// Package keyedlimit is a set of token buckets kept in memory, one per key
// (a client address, an account), bounded in number: when the table is
// full, the least recently used bucket makes room, so memory stays bounded
// under a flood of distinct keys and a newcomer is always served. Buckets
// idle for a whole refill period are dropped as they come to the back of
// the list, since a fresh bucket would hold the same tokens.
package keyedlimit

import (
	"container/list"
	"math"
	"strings"
	"sync"
	"time"
)

// MaxBuckets bounds each Limiter's memory under a flood of distinct keys:
// with keys of at most a few hundred bytes, a few tens of MB.
const MaxBuckets = 100_000

// Limiter gives each key Burst tokens, refilled at Burst per Per. It is
// safe for concurrent use.
type Limiter struct {
	burst int
	per   time.Duration
	mu    sync.Mutex
	byKey map[string]*list.Element // of *bucket
	lru   list.List                // most recently used at the front
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time
}

// New returns a Limiter of burst tokens per key, refilled at burst per per.
func New(burst int, per time.Duration) *Limiter {
	return &Limiter{burst: burst, per: per, byKey: map[string]*list.Element{}}
}

// Allow takes a token for key at now. When none is left it returns false
// and how long until one is.
func (l *Limiter) Allow(key string, now time.Time) (bool, time.Duration) {
	d := l.Take(key, now)
	return d.OK, d.Wait
}

// Decision is what Take decided, with what a client is told of its bucket
// (the RateLimit-* fields): how many tokens are left after this call and
// how long until the bucket is full again.
type Decision struct {
	OK        bool
	Remaining int
	Wait      time.Duration // until the next token, when !OK
	Full      time.Duration // until the bucket holds Burst tokens again
}

// Burst is the number of tokens a full bucket holds, refilled over Per.
func (l *Limiter) Burst() int { return l.burst }

// Per is the time over which an empty bucket fills again.
func (l *Limiter) Per() time.Duration { return l.per }

// Take takes a token for key at now and says what is left.
func (l *Limiter) Take(key string, now time.Time) Decision {
	perToken := l.per.Seconds() / float64(l.burst)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.touch(key, now)
	b.tokens = math.Min(float64(l.burst), b.tokens+now.Sub(b.at).Seconds()/perToken)
	b.at = now
	l.dropIdle(now)
	var d Decision
	if b.tokens >= 1 {
		b.tokens--
		d.OK = true
	} else {
		d.Wait = seconds((1 - b.tokens) * perToken)
	}
	d.Remaining = int(b.tokens)
	d.Full = seconds((float64(l.burst) - b.tokens) * perToken)
	return d
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// touch returns key's bucket at the front of the list, making one (full)
// when there is none, in the place of the least recently used when the
// table is full.
func (l *Limiter) touch(key string, now time.Time) *bucket {
	if e, ok := l.byKey[key]; ok {
		l.lru.MoveToFront(e)
		return e.Value.(*bucket)
	}
	fresh := bucket{key: strings.Clone(key), tokens: float64(l.burst), at: now}
	if len(l.byKey) >= MaxBuckets {
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
func (l *Limiter) dropIdle(now time.Time) {
	for range 2 {
		e := l.lru.Back()
		if e == nil || now.Sub(e.Value.(*bucket).at) < l.per {
			return
		}
		delete(l.byKey, e.Value.(*bucket).key)
		l.lru.Remove(e)
	}
}
