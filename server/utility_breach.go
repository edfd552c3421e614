package server

import (
	"context"
	"strings"

	"secutil/tools/plural"

	"secutil/tools/breach"
)

// POST /data_breach: whether a password, or its SHA-1 or NTLM hash, is in
// the breach data, or the range of a SHA-1 prefix.

// breachRequest is the /data_breach body of the OpenAPI document: exactly one of a
// password, its SHA-1, its NTLM hash, or a 5-hex SHA-1 prefix for a
// Pwned-Passwords-style range query.
type breachRequest struct {
	_        struct{}  `doc:"exactly one of password, sha1, ntlm or prefix"`
	Password string    `json:"password"`
	SHA1     hashBatch `json:"sha1" doc:"40 hex; an array of up to 1000 (fixed, not a setting) answers a BreachBatch and counts an item of the monthly usage per hash"`
	NTLM     hashBatch `json:"ntlm" doc:"32 hex: needs -breach-file-ntlm; an array of up to 1000 (fixed, not a setting) answers a BreachBatch and counts an item of the monthly usage per hash"`
	Prefix   string    `json:"prefix" doc:"5 hex: answers the range of suffixes"`
}

// maxBreachBatch is the most hashes of one /data_breach array.
const maxBreachBatch = 1000

// single is the field's one hash, "" when it was not sent.
func (b hashBatch) single() string {
	if len(b.items) != 1 {
		return ""
	}
	return strings.TrimSpace(b.items[0])
}

// breachBatchResponse answers an array of sha1 or ntlm hashes, in their
// order.
type breachBatchResponse struct {
	Results []breachBatchResult `json:"results"`
	Source  string              `json:"source"`
}

type breachBatchResult struct {
	Hash     string `json:"hash" doc:"as sent"`
	Breached bool   `json:"breached"`
	Count    int64  `json:"count" doc:"0 with breached true: listed, count unknown"`
}

type breachResponse struct {
	Breached bool   `json:"breached"`
	Count    int64  `json:"count"` // 0 with breached true: listed, count unknown
	Source   string `json:"source"`
	Message  string `json:"message"` // the answer for a person: a count of 0 is not "seen 0 times"
}

// breachMessage says what a breach answer means, so that a listed
// password of a list without counts does not read as "seen 0 times".
func breachMessage(found bool, count int64, source string) string {
	switch {
	case !found:
		return "not found in " + source
	case count == 0:
		return "in the common list (" + source + "), which has no counts: never use it"
	default:
		return "seen " + plural.Count(int(count), "time", "times") + " in " + source + ": never use it"
	}
}

type breachRangeResponse struct {
	Suffixes []breach.RangeEntry `json:"suffixes"`
	Source   string              `json:"source"`
}

var errNTLMNotConfigured = newError(codeNTLMNotConfigured, "NTLM lookups need the NTLM Pwned Passwords file: start secutil with -breach-file-ntlm")

// checkBreach answers a breachResponse, or a breachRangeResponse for a
// prefix.
func (s *Server) checkBreach(ctx context.Context, req breachRequest) (any, error) {
	switch {
	case req.SHA1.invalid || req.NTLM.invalid:
		return nil, newError(codeInvalidField, `fields "sha1" and "ntlm" must be a string or an array of strings`)
	case req.SHA1.array || req.NTLM.array:
		return s.checkBreachBatch(ctx, req)
	}
	q, err := breach.ParseQuery(req.Password, req.SHA1.single(), req.NTLM.single(), strings.TrimSpace(req.Prefix))
	if err != nil {
		return nil, err
	}
	source := s.Breach
	if q.Kind == breach.KindNTLM {
		source = s.BreachNTLM
		if source == nil {
			return nil, errNTLMNotConfigured
		}
	}
	if q.Prefix != "" {
		entries, err := source.Range(q.Prefix)
		if err != nil {
			return nil, err
		}
		if entries == nil {
			entries = []breach.RangeEntry{}
		}
		return breachRangeResponse{Suffixes: entries, Source: source.Name()}, nil
	}
	// An over-full range is the caller's problem (range_too_large); a
	// damaged file is the operator's, an internal error.
	count, found, err := source.Count(q.Digest)
	if err != nil {
		return nil, err
	}
	return breachResponse{Breached: found, Count: count, Source: source.Name(), Message: breachMessage(found, count, source.Name())}, nil
}

// checkBreachBatch answers an array of SHA-1 or NTLM hashes in one pass
// over the breach data (Source.CountMany).
func (s *Server) checkBreachBatch(ctx context.Context, req breachRequest) (breachBatchResponse, error) {
	if req.Password != "" || req.Prefix != "" || (req.SHA1.set && req.NTLM.set) {
		return breachBatchResponse{}, breach.ErrQueryFields
	}
	kind, hashes, source := breach.KindSHA1, req.SHA1.items, s.Breach
	if req.NTLM.set {
		kind, hashes, source = breach.KindNTLM, req.NTLM.items, s.BreachNTLM
		if source == nil {
			return breachBatchResponse{}, errNTLMNotConfigured
		}
	}
	switch {
	case len(hashes) == 0:
		return breachBatchResponse{}, badRequest("the array of hashes is empty")
	case len(hashes) > maxBreachBatch:
		return breachBatchResponse{}, badRequest("at most %d hashes per request", maxBreachBatch)
	}
	if err := countItems(ctx, len(hashes)); err != nil { // an item per hash
		return breachBatchResponse{}, err
	}
	trimmed := make([]string, len(hashes))
	for i, h := range hashes {
		trimmed[i] = strings.TrimSpace(h)
	}
	digests, err := breach.ParseDigests(trimmed, kind)
	if err != nil {
		return breachBatchResponse{}, err
	}
	hits, err := source.CountMany(ctx, digests, nil)
	if err != nil {
		return breachBatchResponse{}, err
	}
	out := breachBatchResponse{Results: make([]breachBatchResult, len(hits)), Source: source.Name()}
	for i, h := range hits {
		out.Results[i] = breachBatchResult{Hash: trimmed[i], Breached: h.Found, Count: h.Count}
	}
	return out, nil
}
