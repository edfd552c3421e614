package server

import (
	"context"
	"encoding/hex"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"secutil/store/hashindex"
	"secutil/tools/dump"
	"secutil/tools/plural"
)

// POST /hash_lookup: hashes looked up in the reverse index (and an upstream
// secutil for the ones it lacks); and the public /hash_lookup_site, limited
// per client instead of metered.

// hashLookupRequest is {"hashes"}: an array of strings, or one string of
// hashes, as /hash_identifier takes them.
type hashLookupRequest struct {
	Hashes hashBatch `json:"hashes" required:"check" aka:"hash,digest,digests" doc:"up to 500 hashes by default, a setting of the server (serve -hash-lookup-batch, 1 to 10000; repeats and skipped tokens do not count toward it), each looked up an item of the monthly usage (a skipped token is free): an array of strings, or one string of hashes separated by newlines, commas, semicolons or spaces; a line with a colon is one user:hash or pwdump line, whose hash is looked up"`
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

// skippedToken is a token of a /hash_lookup batch that holds no hash the
// index can look up, and why.
type skippedToken struct {
	Token  string `json:"token" doc:"as sent, cut to 100 bytes"`
	Reason string `json:"reason"`
}

// tokens reads the hashes: a line with a colon is one user:hash or pwdump
// line (its hash is looked up), any other is split on commas, semicolons
// and white space. Repeats are dropped (first occurrence wins), and a
// token with no hash the index takes is skipped with its reason. Only a
// batch with no hash at all, or more than limit, is refused.
func (q *hashLookupRequest) tokens(limit int) ([]string, []skippedToken, error) {
	var tokens []string
	var skipped []skippedToken
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.Join(q.Hashes.items, "\n"), "\n") {
		fields := []string{strings.TrimSpace(line)}
		if !strings.Contains(line, ":") {
			fields = strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\r' })
		}
		for _, f := range fields {
			if f == "" {
				continue
			}
			digest, reason := lookupDigest(f)
			if reason != "" {
				skipped = append(skipped, skippedToken{Token: truncate(f, 100), Reason: reason})
				continue
			}
			if key := strings.ToLower(digest); !seen[key] {
				seen[key] = true
				tokens = append(tokens, digest)
			}
		}
	}
	switch {
	case len(tokens) > limit:
		return nil, nil, newError(codeInvalidHashInput, "at most %d hashes per request", limit)
	case len(tokens) == 0 && len(skipped) > 0:
		return nil, nil, newError(codeInvalidHashInput, "no hash could be read (%s): %q is %s", plural.Count(len(skipped), "token skipped", "tokens skipped"), skipped[0].Token, skipped[0].Reason)
	case len(tokens) == 0:
		return nil, nil, newError(codeInvalidHashInput, "field \"hashes\" must hold one or more hashes separated by newlines, commas, semicolons or spaces")
	}
	return tokens, skipped, nil
}

// lookupDigest is the hex digest a token holds (a bare hash, or the hash
// of a user:hash or pwdump line), or why the index cannot look it up.
func lookupDigest(token string) (digest, reason string) {
	if strings.Contains(token, ":") {
		rec, err := dump.ParseLine(token, dump.Options{})
		switch {
		case err != nil:
			return "", "neither a hash nor a user:hash or pwdump line"
		case rec.Hash == nil && rec.Algorithm != 0:
			return "", "a salted " + rec.Algorithm.String() + " hash: the index holds unsalted digests only"
		case rec.Hash == nil:
			return "", "the line holds no hash"
		}
		return hex.EncodeToString(rec.Hash), ""
	}
	if _, err := hex.DecodeString(token); err != nil {
		return "", "not hexadecimal"
	}
	if hashindex.HoldsDigestsOf(len(token) / 2) {
		return token, ""
	}
	return "", strconv.Itoa(len(token)) + " hex digits: the index holds MD5 and NTLM (32), SHA-1 (40), SHA-256 (64) and SHA-512 (128)"
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
	Results []hashResult   `json:"results"`
	Summary hashSummary    `json:"summary"`
	Skipped []skippedToken `json:"skipped" doc:"the tokens that hold no hash the index can look up, in the order sent, each with its reason"`
	Warning string         `json:"warning,omitempty" doc:"Present when the configured upstream secutil could not be asked (it failed, or is resting after repeated failures): the results are this server's index alone, and misses may be found upstream later."`
}

const (
	// DefaultHashLookupBatch is the most hashes of one /hash_lookup call
	// unless Deps.HashLookupBatch says otherwise.
	DefaultHashLookupBatch = 500
	// MaxHashLookupBatch bounds Deps.HashLookupBatch: a call's work (one
	// index lookup per hash) and its answer stay bounded, whereas the
	// 1 MiB body alone would let through some 30,000 bare hashes.
	MaxHashLookupBatch = 10000
)

// upstreamWarning is the warning of an answer given without the upstream.
const upstreamWarning = "the upstream lookup service is unavailable: these results are from this server's index alone"

// lookupHashes answers /hash_lookup and /hash_lookup_site: the local index
// first, then the configured upstream secutil for what it missed. When the
// upstream fails, the local answer stands, with a warning.
func (s *Server) lookupHashes(ctx context.Context, req hashLookupRequest) (hashLookupOutput, error) {
	tokens, skipped, err := req.tokens(s.HashLookupBatch)
	if err != nil {
		return hashLookupOutput{}, err
	}
	if err := countItems(ctx, len(tokens)); err != nil { // an item per hash looked up; skipped ones are free
		return hashLookupOutput{}, err
	}
	var hits []hashindex.Hit
	for chunk := range slices.Chunk(tokens, hashindex.MaxLookupBatch) {
		found, err := s.Hashes.LookupMany(ctx, chunk)
		if err != nil {
			return hashLookupOutput{}, err
		}
		hits = append(hits, found...)
	}
	out := hashLookupOutput{Results: make([]hashResult, len(hits)), Skipped: skipped}
	if out.Skipped == nil {
		out.Skipped = []skippedToken{}
	}
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
