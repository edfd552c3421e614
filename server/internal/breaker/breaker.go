// Package breaker is a circuit breaker for calls to another service:
// closed while calls succeed, open (no calls) for a cooldown after Failures
// failures in a row, then half-open: one trial call decides whether it
// closes or opens again. A caller that fails at once while it is open costs
// nobody any time, and a service asking to be left alone (HTTP 429 with
// Retry-After) is left alone for that long.
package breaker

import (
	"sync"
	"time"
)

const (
	// Failures in a row open the breaker.
	Failures = 3
	// Cooldown is how long an open breaker lets no call through, unless
	// the service asked for a rest of its own.
	Cooldown = 30 * time.Second
	// MaxCooldown caps the rest a service may ask for.
	MaxCooldown = 10 * time.Minute
)

// Breaker is the state of one service; its zero value is closed. It is
// safe for concurrent use.
type Breaker struct {
	mu        sync.Mutex
	failures  int
	openUntil time.Time
	trial     bool // the half-open trial call is in flight
}

// Allow reports whether a call may go to the service at now. A call it
// lets through must end with Record or Release.
func (b *Breaker) Allow(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures < Failures {
		return true
	}
	if now.Before(b.openUntil) || b.trial {
		return false
	}
	b.trial = true
	return true
}

// Record is a call's outcome: err nil for success; rest, when positive, is
// how long the service asked to be left alone, which opens the breaker at
// once.
func (b *Breaker) Record(err error, rest time.Duration, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trial = false
	if err == nil {
		b.failures = 0
		return
	}
	b.failures++
	cooldown := Cooldown
	if rest > 0 {
		b.failures = max(b.failures, Failures)
		cooldown = min(rest, MaxCooldown)
	}
	if b.failures >= Failures {
		b.openUntil = now.Add(cooldown)
	}
}

// Release ends a call that said nothing about the service (its caller went
// away first).
func (b *Breaker) Release() {
	b.mu.Lock()
	b.trial = false
	b.mu.Unlock()
}
