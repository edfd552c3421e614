package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"secutil/tools/geo"
	"secutil/tools/seal"
)

// The /boss/ lists: paging, suggestions, and the audit log with the opening
// of its sealed client IPs (POST /boss/decrypt_geoinfo2).

// Page sizes of the admin lists.
const (
	defaultPageLimit = 50
	maxPageLimit     = 500
)

// maxListedItems bounds the lists that have no pages (products, live
// invites): both are short by nature.
const maxListedItems = maxPageLimit

type itemsResponse[T any] struct {
	Items []T `json:"items"`
}

type pageRequest struct {
	Limit  *int `json:"limit"`
	Offset int  `json:"offset"`
}

func (p *pageRequest) check() error {
	if p.Limit != nil && (*p.Limit < 1 || *p.Limit > maxPageLimit) {
		return badRequest("field \"limit\" must be 1 to %d", maxPageLimit)
	}
	if p.Offset < 0 {
		return badRequest("field \"offset\" must be 0 or more")
	}
	return nil
}

// decodePage reads an optional {"limit","offset"} body; no body means the
// first page of defaultPageLimit.
func decodePage(w http.ResponseWriter, r *http.Request) (pageRequest, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return pageRequest{}, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return pageRequest{}, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decode[pageRequest](w, r)
}

type listResponse[T any] struct {
	Items  []T `json:"items"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

type adminSuggestion struct {
	ID        int64      `json:"id"`
	AccountID int64      `json:"account_id"`
	Email     string     `json:"email"`
	Message   string     `json:"message"`
	CreatedAt string     `json:"created_at"`
	Created   *time.Time `json:"-"` // for the admin page
}

func (s *Server) listSuggestions(ctx context.Context, limit, offset int) ([]adminSuggestion, error) {
	list, err := s.Store.Suggestions(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]adminSuggestion, 0, len(list))
	for _, sg := range list {
		out = append(out, adminSuggestion{ID: sg.ID, AccountID: sg.AccountID, Email: sg.Email,
			Message: sg.Message, CreatedAt: sg.CreatedAt.Format(time.RFC3339), Created: &sg.CreatedAt})
	}
	return out, nil
}

type adminAuditEvent struct {
	ID        int64      `json:"id"`
	At        string     `json:"at"`
	Kind      string     `json:"kind"`
	AccountID int64      `json:"account_id"`
	Email     string     `json:"email"`     // the account's email when the event happened
	SealedIP  string     `json:"sealed_ip"` // open with POST /boss/decrypt_geoinfo2
	Detail    string     `json:"detail"`
	When      *time.Time `json:"-"` // for the admin page
}

func (s *Server) listAuditEvents(ctx context.Context, limit, offset int) ([]adminAuditEvent, error) {
	list, err := s.Store.AuditEvents(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]adminAuditEvent, 0, len(list))
	for _, e := range list {
		out = append(out, adminAuditEvent{ID: e.ID, At: e.At.Format(time.RFC3339), Kind: e.Kind,
			AccountID: e.AccountID, Email: e.Email, SealedIP: e.SealedIP, Detail: e.Detail, When: &e.At})
	}
	return out, nil
}

type sealedRequest struct {
	Sealed string `json:"sealed"`
}

func (q *sealedRequest) check() error { return required("sealed", q.Sealed) }

// decryptGeoInfo opens a client IP sealed in the audit log and geolocates
// it. Only admins reach it (adminOnly). Malformed, tampered and
// sealed-under-another-key values all read the same.
func (s *Server) decryptGeoInfo(ctx context.Context, req sealedRequest) (geo.Info, error) {
	if s.ServerKey == nil {
		return geo.Info{}, newError(codeNoServerKey, "this server seals no IPs: it runs without a server key")
	}
	raw, err := seal.Open(s.ServerKey, req.Sealed)
	if err != nil {
		return geo.Info{}, err
	}
	ip, err := geo.ParseIP(string(raw))
	if err != nil {
		return geo.Info{}, newError(codeInvalidSealedValue, "the sealed value is not an IP address")
	}
	return s.Geo.Lookup(ip)
}
