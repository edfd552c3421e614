package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"secutil/tools/plural"

	"secutil/store"
)

// Metering: every utility call is authenticated, held to the account's
// monthly cap and counted (store's meter commits the counts). The meter
// counts items: a call is one item, a batch as many as it holds, declared
// by its action with countItems before its work.

// call is what a utility's action sees through its context (callOf): the
// caller, and a place to put a suggestion that must be stored together with
// the call's charge. It is the action's context itself, so that passing it
// costs no allocation.
type call struct {
	context.Context // the request's
	*caller
	suggestion *store.Suggestion
	// served marks a call that answers an error but did its work, which
	// counts: a decryption that derived its key with a wrong password.
	served bool

	// What countItems needs to hold a batch's items: the items held (1
	// until a batch declares more), the account's cap and reservation
	// (nil when uncapped), and the answer's headers for a refusal.
	items int
	limit *int
	hold  *store.Reservation
	s     *Server
	w     http.ResponseWriter
	now   time.Time
	plan  string
}

type callKey struct{}

func (c *call) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// callOf is the call a utility's action runs for.
func callOf(ctx context.Context) *call { return ctx.Value(callKey{}).(*call) }

// countItems declares that the call ctx runs for is a batch of n items,
// before any of its work: the call is then counted as n items, and a capped
// account's call holds them all, or is refused whole with 429
// plan_limit_reached saying how many items it has and how many are left.
// An action that also serves unmetered routes (the public hash lookup)
// runs there without a call, and counts nothing.
func countItems(ctx context.Context, n int) error {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || n <= c.items {
		return nil
	}
	if c.hold != nil {
		err := c.hold.Grow(c, *c.limit, n-c.items)
		if errors.Is(err, store.ErrQuotaExceeded) {
			c.s.Metrics.refusedCall(c.plan)
			return batchQuotaError(c.w, *c.limit, n, store.ItemsLeft(err)+c.items, c.now)
		}
		if err != nil {
			return err
		}
	}
	c.items = n
	return nil
}

// runMetered authenticates a utility call, runs it and counts it. A capped
// account's call reserves one of its remaining items before doing any work
// (a batch the rest of its items, countItems), so however many arrive at
// once, the server never works on more items than the account has left;
// the others get 429 at once. A call is counted when it succeeds (or did
// its work, see call.served), and its result is returned only after the
// count is committed; a failed call gives its reservation back and is not
// counted.
func (s *Server) runMetered(w http.ResponseWriter, r *http.Request, authenticate func(*http.Request) (*caller, error), run runner) (any, error) {
	who, err := authenticate(r)
	if err != nil {
		return nil, err
	}
	now := s.Store.Now()
	limit := who.account.Cap(now)
	plan := who.account.EffectivePlan(now) // for the metrics
	var hold *store.Reservation
	if limit != nil {
		hold, err = s.Store.Reserve(r.Context(), who.account.ID, *limit)
		if errors.Is(err, store.ErrQuotaExceeded) {
			s.Metrics.refusedCall(plan)
			err = quotaError(w, *limit, now)
		}
		if err != nil {
			return nil, err
		}
		defer hold.Release() // a no-op once the charge has committed
	}
	c := &call{Context: r.Context(), caller: who, items: 1, limit: limit, hold: hold, s: s, w: w, now: now, plan: plan}
	result, callErr := run(w, r, c)
	if callErr != nil && !c.served {
		return nil, callErr
	}
	charge := store.Charge{AccountID: who.account.ID, Cap: limit, Items: c.items, Suggestion: c.suggestion, Reservation: hold}
	if who.key != nil {
		charge.KeyID = who.key.ID
	}
	used, err := s.Store.CommitUsage(r.Context(), charge)
	if errors.Is(err, store.ErrQuotaExceeded) {
		s.Metrics.refusedCall(plan)
		if c.items > 1 {
			err = batchQuotaError(w, *limit, c.items, store.ItemsLeft(err), now)
		} else {
			err = quotaError(w, *limit, now)
		}
	}
	if errors.Is(err, store.ErrNotFound) { // an administrator deleted the account during the call
		err = errUnauthorized
	}
	if err == nil {
		s.Metrics.meteredCall(plan, c.items)
	}
	if err == nil && limit != nil {
		setRateLimitHeaders(w.Header(), *limit, *limit-used, secondsUntilReset(now))
	}
	switch {
	case callErr != nil:
		return nil, callErr
	case err != nil:
		return nil, err
	}
	return result, nil
}

// quotaError sets the headers of a refused call and returns its error.
func quotaError(w http.ResponseWriter, limit int, now time.Time) error {
	refusalHeaders(w, limit, 0, now)
	return newError(codePlanLimitReached, "your plan's limit of %s this month is used up; it resets at %s", plural.Count(limit, "item", "items"), store.PeriodEnd(now).Format(time.RFC3339))
}

// batchQuotaError sets the headers of a batch of items refused whole with
// left items left, and returns its error.
func batchQuotaError(w http.ResponseWriter, limit, items, left int, now time.Time) error {
	refusalHeaders(w, limit, left, now)
	return newError(codePlanLimitReached, "this batch has %s and %s of your plan's limit of %s this month; a batch is counted whole, never in part; the limit resets at %s",
		plural.Count(items, "item", "items"), plural.Count(left, "item is left", "items are left"), plural.Count(limit, "item", "items"), store.PeriodEnd(now).Format(time.RFC3339))
}

// refusalHeaders are the headers of a call refused by the monthly cap.
func refusalHeaders(w http.ResponseWriter, limit, left int, now time.Time) {
	reset := secondsUntilReset(now)
	setRateLimitHeaders(w.Header(), limit, left, reset)
	w.Header().Set("Retry-After", strconv.Itoa(reset))
}

// setRateLimitHeaders sets the RateLimit-* headers: the items (or, for the
// public lookup, the calls) a limit allows, how many are left and the seconds until it is whole again (a
// capped account's monthly quota, the public lookup's token bucket). The
// keys are written in the canonical form Header.Set would make (and
// net/http sends): Set would canonicalize them again on every call. The
// three values are formatted into one string and the three slices share
// one array: two allocations a call instead of six.
func setRateLimitHeaders(h http.Header, limit, remaining, resetSeconds int) {
	var buf [3 * 20]byte
	b := strconv.AppendInt(buf[:0], int64(limit), 10)
	limitEnd := len(b)
	b = strconv.AppendInt(b, int64(max(remaining, 0)), 10)
	remainingEnd := len(b)
	b = strconv.AppendInt(b, int64(resetSeconds), 10)
	all := string(b)
	values := []string{all[:limitEnd], all[limitEnd:remainingEnd], all[remainingEnd:]}
	h["Ratelimit-Limit"] = values[0:1:1]
	h["Ratelimit-Remaining"] = values[1:2:2]
	h["Ratelimit-Reset"] = values[2:3:3]
}

func secondsUntilReset(now time.Time) int {
	return int(store.PeriodEnd(now).Sub(now).Seconds() + 0.999)
}
