package breaker

import (
	"errors"
	"testing"
	"time"
)

var errDown = errors.New("down")

// TestStates walks the breaker through its states.
func TestStates(t *testing.T) {
	t.Parallel()
	var b Breaker
	now := time.Unix(1_700_000_000, 0)
	for i := range Failures {
		if !b.Allow(now) {
			t.Fatalf("closed breaker refused call %d", i)
		}
		b.Record(errDown, 0, now)
	}
	if b.Allow(now.Add(Cooldown - time.Second)) {
		t.Fatal("open breaker let a call through")
	}
	// Half-open: one trial at a time.
	later := now.Add(Cooldown)
	if !b.Allow(later) || b.Allow(later) {
		t.Fatal("half-open breaker must let exactly one trial through")
	}
	b.Record(errDown, 0, later)
	if b.Allow(later.Add(time.Second)) {
		t.Fatal("a failed trial must open the breaker again")
	}
	// A trial whose caller left says nothing: the next one may go.
	again := later.Add(Cooldown)
	if !b.Allow(again) {
		t.Fatal("no trial after the second cooldown")
	}
	b.Release()
	if !b.Allow(again) {
		t.Fatal("a released trial blocked the next")
	}
	b.Record(nil, 0, again)
	for range 2 {
		if !b.Allow(again) {
			t.Fatal("a successful trial must close the breaker")
		}
	}
	// A 429's Retry-After opens it at once, for that long (capped).
	b.Record(errDown, time.Hour, again)
	if b.Allow(again.Add(MaxCooldown - time.Second)) {
		t.Fatal("Retry-After did not open the breaker")
	}
	if !b.Allow(again.Add(MaxCooldown)) {
		t.Fatal("Retry-After is capped at MaxCooldown")
	}
}

// TestOpensAfter: how many failures, and which rests, open it for how long.
func TestOpensAfter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name     string
		failures int
		rest     time.Duration
		openFor  time.Duration // 0: still closed
	}{
		{"one failure", 1, 0, 0},
		{"one short of the limit", Failures - 1, 0, 0},
		{"the limit", Failures, 0, Cooldown},
		{"a rest asked for", 1, 90 * time.Second, 90 * time.Second},
		{"a rest longer than the cap", 1, 24 * time.Hour, MaxCooldown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b Breaker
			for range tc.failures {
				b.Allow(now)
				b.Record(errDown, tc.rest, now)
			}
			if tc.openFor == 0 {
				if !b.Allow(now) {
					t.Fatal("open; want closed")
				}
				return
			}
			if b.Allow(now.Add(tc.openFor - time.Nanosecond)) {
				t.Fatalf("a call got through before %v", tc.openFor)
			}
			if !b.Allow(now.Add(tc.openFor)) {
				t.Fatalf("no trial after %v", tc.openFor)
			}
		})
	}
}

// TestSuccessResetsTheCount: failures must be in a row.
func TestSuccessResetsTheCount(t *testing.T) {
	t.Parallel()
	var b Breaker
	now := time.Unix(1_700_000_000, 0)
	for range 5 {
		for range Failures - 1 {
			b.Record(errDown, 0, now)
		}
		b.Record(nil, 0, now)
	}
	if !b.Allow(now) {
		t.Fatal("failures with successes between them opened the breaker")
	}
}
