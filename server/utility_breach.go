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
	_        struct{} `doc:"exactly one of password, sha1, ntlm or prefix"`
	Password string   `json:"password"`
	SHA1     string   `json:"sha1" doc:"40 hex"`
	NTLM     string   `json:"ntlm" doc:"32 hex: needs -breach-file-ntlm"`
	Prefix   string   `json:"prefix" doc:"5 hex: answers the range of suffixes"`
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
func (s *Server) checkBreach(_ context.Context, req breachRequest) (any, error) {
	q, err := breach.ParseQuery(req.Password, strings.TrimSpace(req.SHA1), strings.TrimSpace(req.NTLM), strings.TrimSpace(req.Prefix))
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
