package server

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"secutil/server/internal/plural"
	"secutil/store/hashindex"
)

// POST /hash_lookup: hashes looked up in the reverse index (and an upstream
// secutil for the ones it lacks); and the public /hash_lookup_site, limited
// per client instead of metered.

// hashLookupRequest is {"hashes"}: an array of strings, or one string of
// hashes, as /hash_identifier takes them.
type hashLookupRequest struct {
	Hashes hashBatch `json:"hashes" required:"check" aka:"hash,digest,digests" doc:"up to 500 hashes: an array of strings, or one string of hashes separated by newlines, commas, semicolons or spaces"`
}

func (q *hashLookupRequest) check() error {
	switch {
	case !q.Hashes.set:
		return missingField("hashes")
	case q.Hashes.invalid:
		return newError(codeInvalidField, `field "hashes" must be an array of strings or one string of hashes`)
	}
	return nil
}

// tokens splits the hashes on newlines, commas, semicolons and white
// space, dropping empty tokens and repeats (first occurrence wins).
func (q *hashLookupRequest) tokens() ([]string, error) {
	fields := strings.FieldsFunc(strings.Join(q.Hashes.items, "\n"), func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	seen := make(map[string]bool, len(fields))
	tokens := fields[:0]
	for _, f := range fields {
		key := strings.ToLower(f)
		if seen[key] {
			continue
		}
		seen[key] = true
		tokens = append(tokens, f)
		if len(tokens) > hashindex.MaxLookupBatch {
			return nil, newError(codeInvalidHashInput, "at most %d hashes per request", hashindex.MaxLookupBatch)
		}
	}
	if len(tokens) == 0 {
		return nil, newError(codeInvalidHashInput, "field \"hashes\" must hold one or more hashes separated by newlines, commas, semicolons or spaces")
	}
	return tokens, nil
}

type hashResult struct {
	Hash      string  `json:"hash"`
	Plaintext *string `json:"plaintext"`
	Type      *string `json:"type" doc:"the algorithm that matched"`
	Found     bool    `json:"found"`
}

type hashSummary struct {
	TotalSearched int     `json:"total_searched"`
	TotalFound    int     `json:"total_found"`
	SuccessRate   float64 `json:"success_rate" doc:"percent of the searched hashes found, 0 to 100, two decimals"`
}

type hashLookupOutput struct {
	Results []hashResult `json:"results"`
	Summary hashSummary  `json:"summary"`
	Warning string       `json:"warning,omitempty" doc:"Present when the configured upstream secutil could not be asked (it failed, or is resting after repeated failures): the results are this server's index alone, and misses may be found upstream later."`
}

// upstreamWarning is the warning of an answer given without the upstream.
const upstreamWarning = "the upstream lookup service is unavailable: these results are from this server's index alone"

// lookupHashes answers /hash_lookup and /hash_lookup_site: the local index
// first, then the configured upstream secutil for what it missed. When the
// upstream fails, the local answer stands, with a warning.
func (s *Server) lookupHashes(ctx context.Context, req hashLookupRequest) (hashLookupOutput, error) {
	tokens, err := req.tokens()
	if err != nil {
		return hashLookupOutput{}, err
	}
	hits, err := s.Hashes.LookupMany(ctx, tokens)
	if err != nil {
		return hashLookupOutput{}, err
	}
	out := hashLookupOutput{Results: make([]hashResult, len(hits))}
	if s.HashUpstream != nil && !s.askUpstream(ctx, hits) {
		out.Warning = upstreamWarning
	}
	for i, h := range hits {
		res := hashResult{Hash: h.Hash, Found: h.Found}
		if h.Found {
			res.Plaintext, res.Type = &hits[i].Plaintext, &hits[i].Algorithm
			out.Summary.TotalFound++
		}
		out.Results[i] = res
	}
	out.Summary.TotalSearched = len(hits)
	out.Summary.SuccessRate = math.Round(10000*float64(out.Summary.TotalFound)/float64(len(hits))) / 100
	return out, nil
}

// askUpstream fills misses from the upstream, and reports whether it
// answered (true when nothing was missing).
func (s *Server) askUpstream(ctx context.Context, hits []hashindex.Hit) bool {
	var missing []string
	for _, h := range hits {
		if !h.Found {
			missing = append(missing, h.Hash)
		}
	}
	if len(missing) == 0 {
		return true
	}
	found, err := s.HashUpstream.Lookup(ctx, missing)
	if err != nil {
		if !errors.Is(err, errCircuitOpen) {
			s.Logger.Warn("hash upstream failed", "err", err)
		}
		return false
	}
	byHash := make(map[string]hashResult, len(found))
	for _, h := range found {
		if h.Found && h.Plaintext != nil && h.Type != nil {
			byHash[strings.ToLower(h.Hash)] = h
		}
	}
	for i, h := range hits {
		if up, ok := byHash[strings.ToLower(h.Hash)]; !h.Found && ok {
			hits[i].Found, hits[i].Plaintext, hits[i].Algorithm = true, *up.Plaintext, *up.Type
		}
	}
	return true
}

// decodePublicLookup is the decoder of /hash_lookup_site, the public variant
// of /hash_lookup: no key, no metering, and a per-client token bucket
// instead, taken before anything (the upstream included) is asked.
// Every answer carries the client's bucket as RateLimit-* fields, as a
// capped account's metered calls carry its monthly quota.
func (s *Server) decodePublicLookup(w http.ResponseWriter, r *http.Request) (hashLookupRequest, error) {
	ex := exchangeOf(r.Context())
	d := s.publicLimiter.buckets.Take(ex.clientKey, time.Now())
	setRateLimitHeaders(ex.Header(), s.publicLimiter.buckets.Burst(), d.Remaining, ceilSeconds(d.Full))
	if !d.OK {
		wait := ceilSeconds(d.Wait)
		ex.Header().Set("Retry-After", strconv.Itoa(wait))
		return hashLookupRequest{}, newError(codeRateLimited, "the public hash lookup allows %s %s from one address; the next is free in %s (with an account, POST /api/v1/hash_lookup and its API key)",
			plural.Count(s.publicLimiter.buckets.Burst(), "lookup", "lookups"), perPeriod(s.publicLimiter.buckets.Per()), plural.Count(wait, "second", "seconds"))
	}
	return decode[hashLookupRequest](w, r)
}

// perPeriod says a limit's period in words: "a minute", "an hour", or
// "per 90s".
func perPeriod(d time.Duration) string {
	switch d {
	case time.Minute:
		return "a minute"
	case time.Hour:
		return "an hour"
	}
	return "per " + d.String()
}
