package keyedlimit

import (
	"fmt"
	"testing"
	"time"
)

func TestAllowSpendsAndRefills(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name     string
		burst    int
		per      time.Duration
		calls    []time.Duration // offsets from start
		want     []bool
		lastWait time.Duration // the wait the last call reports
	}{
		{"burst then refused", 2, time.Minute, []time.Duration{0, 0, 0}, []bool{true, true, false}, 30 * time.Second},
		{"refilled after one token's time", 2, time.Minute, []time.Duration{0, 0, 30 * time.Second}, []bool{true, true, true}, 0},
		{"partly refilled", 1, time.Minute, []time.Duration{0, 15 * time.Second}, []bool{true, false}, 45 * time.Second},
		{"never more than the burst", 2, time.Minute, []time.Duration{0, time.Hour, time.Hour, time.Hour}, []bool{true, true, true, false}, 30 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := New(tc.burst, tc.per)
			var wait time.Duration
			for i, at := range tc.calls {
				var ok bool
				ok, wait = l.Allow("k", start.Add(at))
				if ok != tc.want[i] {
					t.Fatalf("call %d at +%v: got %v, want %v", i, at, ok, tc.want[i])
				}
			}
			if wait != tc.lastWait {
				t.Fatalf("last wait %v, want %v", wait, tc.lastWait)
			}
		})
	}
}

func TestKeysHaveTheirOwnBuckets(t *testing.T) {
	t.Parallel()
	l := New(1, time.Hour)
	now := time.Unix(1_700_000_000, 0)
	if ok, _ := l.Allow("a", now); !ok {
		t.Fatal("a's first call refused")
	}
	if ok, _ := l.Allow("b", now); !ok {
		t.Fatal("b paid for a's call")
	}
	if ok, _ := l.Allow("a", now); ok {
		t.Fatal("a's second call allowed")
	}
}

// TestEvictsLeastRecentlyUsed: a full table used to refuse every
// newcomer (after 100,000 IPv6 addresses a legitimate login got 429). Now
// the least recently used bucket makes room and memory stays bounded.
func TestEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	l := New(2, time.Hour)
	now := time.Unix(1_700_000_000, 0)
	// A guesser spends its bucket; then a flood of distinct clients.
	l.Allow("guesser", now)
	l.Allow("guesser", now)
	for i := range MaxBuckets + 10 {
		if i == MaxBuckets/2 {
			if ok, _ := l.Allow("guesser", now); ok {
				t.Fatal("the guesser got a token back")
			}
		}
		if ok, _ := l.Allow(fmt.Sprintf("2001:db8:%x::/64", i), now); !ok {
			t.Fatalf("client %d refused: the table is full", i)
		}
	}
	if n := len(l.byKey); n > MaxBuckets || l.lru.Len() != n {
		t.Fatalf("%d buckets in the map, %d in the list; at most %d", n, l.lru.Len(), MaxBuckets)
	}
	if ok, _ := l.Allow("newcomer", now); !ok {
		t.Fatal("a newcomer was refused")
	}
	// The least recently used went first: the earliest clients, not the
	// guesser touched halfway through.
	if _, kept := l.byKey["2001:db8:0::/64"]; kept {
		t.Fatal("the least recently used bucket is still there")
	}
	if ok, _ := l.Allow("guesser", now); ok {
		t.Fatal("the guesser's recently used bucket was evicted")
	}
}

func TestDropsIdleBuckets(t *testing.T) {
	t.Parallel()
	l := New(1, time.Minute)
	now := time.Unix(1_700_000_000, 0)
	for i := range 100 {
		l.Allow(fmt.Sprint(i), now)
	}
	later := now.Add(2 * time.Minute)
	for i := range 100 {
		l.Allow(fmt.Sprint("late", i), later)
	}
	if n := len(l.byKey); n > 100 {
		t.Fatalf("%d buckets: idle ones are not dropped", n)
	}
}

// FuzzAllow: whatever the keys and the (never decreasing) times, the
// table stays consistent, a refusal's wait is at most one token's time,
// and no key gets more than its burst at one instant.
func FuzzAllow(f *testing.F) {
	f.Add("a", "b", uint16(0), uint16(30))
	f.Add("", "\x00", uint16(5), uint16(65535))
	f.Fuzz(func(t *testing.T, k1, k2 string, gap1, gap2 uint16) {
		l := New(3, time.Minute)
		at := time.Unix(1_700_000_000, 0)
		type call struct {
			key string
			at  time.Time
		}
		granted := map[call]int{}
		for i, key := range []string{k1, k1, k2, k1, k1, k1, k2, k1} {
			switch i {
			case 2:
				at = at.Add(time.Duration(gap1) * time.Second)
			case 6:
				at = at.Add(time.Duration(gap2) * time.Second)
			}
			if ok, wait := l.Allow(key, at); ok {
				granted[call{key, at}]++
			} else if wait < 0 || wait > 20*time.Second {
				t.Fatalf("refused with wait %v; one token takes 20s", wait)
			}
		}
		for c, n := range granted {
			if n > 3 {
				t.Fatalf("%q got %d tokens at %v, burst 3", c.key, n, c.at)
			}
		}
		if len(l.byKey) != l.lru.Len() {
			t.Fatalf("%d keys, %d in the list", len(l.byKey), l.lru.Len())
		}
	})
}

func TestTakeSaysWhatIsLeft(t *testing.T) {
	t.Parallel()
	l := New(3, 3*time.Second) // a token a second
	now := time.Unix(1000, 0)
	for i, want := range []Decision{
		{OK: true, Remaining: 2, Full: time.Second},
		{OK: true, Remaining: 1, Full: 2 * time.Second},
		{OK: true, Remaining: 0, Full: 3 * time.Second},
		{OK: false, Remaining: 0, Wait: time.Second, Full: 3 * time.Second},
	} {
		if got := l.Take("k", now); got != want {
			t.Fatalf("take %d = %+v, want %+v", i+1, got, want)
		}
	}
	if got := l.Take("k", now.Add(1500*time.Millisecond)); !got.OK || got.Remaining != 0 || got.Full != 2500*time.Millisecond {
		t.Fatalf("after 1.5 s: %+v", got)
	}
	if l.Burst() != 3 {
		t.Fatalf("Burst = %d", l.Burst())
	}
}
