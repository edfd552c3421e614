package server

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"secutil/store/hashindex"
	"secutil/tools/audit"
	"secutil/tools/breach"
	"secutil/tools/dump"
	"secutil/tools/strength"
)

// POST /password_audit: the password audit of a credential dump (tools/audit),
// answered as the audit's JSON document. The dump lives in memory for the
// call only: nothing of it is written to disk or the log, and the answer is
// marked no-store.

const (
	// DefaultAuditDumpBytes is the largest dump /password_audit takes
	// unless Deps.AuditDumpBytes says otherwise: about 75,000 pwdump lines.
	DefaultAuditDumpBytes = MaxAuditDumpBytes
	// MaxAuditDumpBytes bounds Deps.AuditDumpBytes, so that the body of
	// the largest dump (auditBodyBytes: a quarter more, for JSON escapes)
	// fits one client's share of the default budget for bodies being read
	// (DefaultBodyLimits: an eighth of 64 MiB).
	MaxAuditDumpBytes = 6 * maxBodyBytes
)

type passwordAuditRequest struct {
	Dump          string   `json:"dump" required:"true" doc:"the dump, one account a line: pwdump or secretsdump lines ([domain\\]user:rid:lm:nt:::), user:hash lines with an unsalted hex hash (32 hex is an NT hash), /etc/shadow or passwd lines. At most 6 MiB by default, a setting of the server (serve -audit-dump-size, at most 6 MiB); larger is a 413."`
	ShowPlaintext formBool `json:"show_plaintext" doc:"true: each account whose password was found carries it as plaintext. Without it no password is ever in the answer."`
}

// auditBodyBytes is the body limit of a /password_audit request whose dump
// may have limit bytes: room for the JSON escapes of its line ends and
// backslashes.
func auditBodyBytes(limit int64) int64 { return limit + limit/4 + 4096 }

// decodeAudit reads a /password_audit request within the server's dump
// limit, and marks the answer no-store: it tells an account's weaknesses.
func (s *Server) decodeAudit(w http.ResponseWriter, r *http.Request) (passwordAuditRequest, error) {
	w.Header().Set("Cache-Control", "no-store")
	req, err := decodeWithin[passwordAuditRequest](w, r, auditBodyBytes(s.AuditDumpBytes), true)
	if err == nil && int64(len(req.Dump)) > s.AuditDumpBytes {
		err = newError(codeRequestTooLarge, "the dump is larger than %d bytes", s.AuditDumpBytes)
	}
	return req, err
}

// auditPassword audits req's dump against the breach files, the reverse
// index and the embedded common-password list.
func (s *Server) auditPassword(ctx context.Context, req passwordAuditRequest) (*audit.Report, error) {
	a := audit.New(audit.Options{ShowPlaintext: bool(req.ShowPlaintext), LookupBatch: hashindex.MaxLookupBatch})
	sc := dump.NewScanner(strings.NewReader(req.Dump), dump.Options{})
	accounts := 0
	for sc.Scan() {
		if err := sc.LineErr(); err != nil {
			a.Refuse(err.(*dump.LineError))
			continue
		}
		if err := a.Add(sc.Record()); err != nil {
			return nil, err
		}
		accounts++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// An item per account, counted once the dump is read and before any
	// lookup; refused lines are free.
	if err := countItems(ctx, accounts); err != nil {
		return nil, err
	}
	return a.Report(ctx, s.auditSources())
}

// auditSources are the lookups of an audit on this server: the Pwned
// Passwords files it has (the embedded list has no counts, so it is no
// breach corpus here), the reverse index, and the common-password list.
func (s *Server) auditSources() audit.Sources {
	src := audit.Sources{Breached: map[dump.Algorithm]audit.CountLookup{}, Common: commonWordList(), Index: s.indexPlaintexts}
	if breach.HasCounts(s.Breach) && s.Breach.Kind() == breach.KindSHA1 {
		src.Breached[dump.SHA1] = audit.BreachCounts(s.Breach)
	}
	if s.BreachNTLM != nil && breach.HasCounts(s.BreachNTLM) {
		src.Breached[dump.NTLM] = audit.BreachCounts(s.BreachNTLM)
	}
	return src
}

// commonWordList hashes the embedded common-password list once per
// process, under each algorithm the first time an audit asks for it.
var commonWordList = sync.OnceValue(func() audit.PlaintextLookup {
	return audit.WordList(strength.CommonPasswords())
})

// indexPlaintexts looks digests of alg up in the reverse index (never the
// upstream: a dump's hashes do not leave the server), in one call: the
// audit asks at most hashindex.MaxLookupBatch at a time (its LookupBatch).
// A digest the index holds under another algorithm of the same length is
// not a find.
func (s *Server) indexPlaintexts(ctx context.Context, alg dump.Algorithm, digests [][]byte) ([]string, error) {
	hexes := make([]string, len(digests))
	for i, d := range digests {
		hexes[i] = hex.EncodeToString(d)
	}
	hits, err := s.Hashes.LookupMany(ctx, hexes)
	if err != nil {
		return nil, err
	}
	plaintexts := make([]string, len(digests))
	for i, h := range hits {
		if h.Found && h.Algorithm == alg.String() {
			plaintexts[i] = h.Plaintext
		}
	}
	return plaintexts, nil
}
