package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"secutil/store"
)

// call is what a metered utility sees: the caller, and a place to put a
// suggestion that must be stored together with the call's charge.
type call struct {
	*caller
	suggestion *store.Suggestion
}

// utility is a metered tool: it decodes its request and returns the value to
// encode (or plainText), or an error. It has no side effects of its own.
type utility func(w http.ResponseWriter, r *http.Request, c *call) (any, error)

// metered serves an API utility: the caller authenticates with a key.
func (s *Server) metered(fn utility) http.Handler { return s.meter(s.keyCaller, fn) }

// meteredWeb serves a root-level web tool: the session cookie works too.
func (s *Server) meteredWeb(fn utility) http.Handler { return s.meter(s.anyCaller, fn) }

// meter authenticates a utility call and counts it. A call is counted only
// when it succeeds, and its response is sent only after the count is
// committed; a call that would pass the plan's cap is refused with 429 and
// not counted.
func (s *Server) meter(authenticate func(*http.Request) (*caller, error), fn utility) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, err := authenticate(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		now := s.Store.Now()
		limit := who.account.Cap(now)
		if limit != nil {
			// Refuse before doing the work when the cap is already used up; the
			// commit below stays the authority under concurrency.
			used, err := s.Store.Usage(r.Context(), who.account.ID)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			if used >= *limit {
				s.writeError(w, r, quotaError(w, *limit, now))
				return
			}
		}
		c := &call{caller: who}
		result, err := fn(w, r, c)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		charge := store.Charge{AccountID: who.account.ID, Cap: limit, Suggestion: c.suggestion}
		if who.key != nil {
			charge.KeyID = who.key.ID
		}
		used, err := s.Store.CommitUsage(r.Context(), charge)
		if errors.Is(err, store.ErrQuotaExceeded) {
			s.writeError(w, r, quotaError(w, *limit, now))
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if limit != nil {
			setRateLimitHeaders(w.Header(), *limit, *limit-used, now)
		}
		writeResult(w, result)
	})
}

// quotaError sets the headers of a refused call and returns its error.
func quotaError(w http.ResponseWriter, limit int, now time.Time) error {
	setRateLimitHeaders(w.Header(), limit, 0, now)
	w.Header().Set("Retry-After", strconv.Itoa(secondsUntilReset(now)))
	return newError(codePlanLimitReached, "your plan's limit of %d calls this month is used up; it resets at %s", limit, store.PeriodEnd(now).Format(time.RFC3339))
}

func setRateLimitHeaders(h http.Header, limit, remaining int, now time.Time) {
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(remaining, 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(secondsUntilReset(now)))
}

func secondsUntilReset(now time.Time) int {
	return int(store.PeriodEnd(now).Sub(now).Seconds() + 0.999)
}
