package server

import (
	"fmt"
	"testing"
	"time"
)

// TestLimiterEvictsLeastRecentlyUsed: a full table used to refuse every
// newcomer (after 100,000 IPv6 addresses a legitimate login got 429). Now
// the least recently used bucket makes room and memory stays bounded.
func TestLimiterEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	l := newLimiter(Rate{Burst: 2, Per: time.Hour})
	now := time.Unix(1_700_000_000, 0)
	// A guesser spends its bucket; then a flood of distinct clients.
	l.allow("guesser", now)
	l.allow("guesser", now)
	for i := range maxBuckets + 10 {
		if i == maxBuckets/2 {
			if ok, _ := l.allow("guesser", now); ok {
				t.Fatal("the guesser got a token back")
			}
		}
		if ok, _ := l.allow(fmt.Sprintf("2001:db8:%x::/64", i), now); !ok {
			t.Fatalf("client %d refused: the table is full", i)
		}
	}
	if n := len(l.byKey); n > maxBuckets || l.lru.Len() != n {
		t.Fatalf("%d buckets in the map, %d in the list; at most %d", n, l.lru.Len(), maxBuckets)
	}
	if ok, _ := l.allow("newcomer", now); !ok {
		t.Fatal("a newcomer was refused")
	}
	// The least recently used went first: the earliest clients, not the
	// guesser touched halfway through.
	if _, kept := l.byKey["2001:db8:0::/64"]; kept {
		t.Fatal("the least recently used bucket is still there")
	}
	if ok, _ := l.allow("guesser", now); ok {
		t.Fatal("the guesser's recently used bucket was evicted")
	}
}

func TestLimiterDropsIdleBuckets(t *testing.T) {
	t.Parallel()
	l := newLimiter(Rate{Burst: 1, Per: time.Minute})
	now := time.Unix(1_700_000_000, 0)
	for i := range 100 {
		l.allow(fmt.Sprint(i), now)
	}
	later := now.Add(2 * time.Minute)
	for i := range 100 {
		l.allow(fmt.Sprint("late", i), later)
	}
	if n := len(l.byKey); n > 100 {
		t.Fatalf("%d buckets: idle ones are not dropped", n)
	}
}
