package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/seal"
)

const (
	// apiKeyHeader is X-API-Key in the canonical form Header.Get looks up:
	// given any other spelling, Get allocates a canonical copy every call.
	apiKeyHeader  = "X-Api-Key"
	sessionCookie = "auth_session"
	sessionTTL    = 30 * 24 * time.Hour
)

// caller is who made a request: an account, and the key it used (nil when
// it came with a dashboard session).
type caller struct {
	account *store.Account
	key     *store.Key
	keyHash []byte
}

// errAccountDisabled answers the logins, keys and sessions of an account
// an administrator disabled.
var errAccountDisabled = newError(codeAccountDisabled, "this account is disabled: ask the operator of this server")

// keyCaller authenticates the X-API-Key header; a disabled account's keys
// are refused.
func (s *Server) keyCaller(r *http.Request) (*caller, error) {
	return s.callerForKey(r.Context(), r.Header.Get(apiKeyHeader))
}

// callerForKey authenticates an API key, wherever it came from.
func (s *Server) callerForKey(ctx context.Context, key string) (*caller, error) {
	if !apikey.WellFormed(key) {
		return nil, errUnauthorized
	}
	hash := apikey.Hash(key)
	k, a, err := s.Store.KeyByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	if a.Disabled {
		return nil, errAccountDisabled
	}
	return &caller{account: a, key: k, keyHash: hash}, nil
}

// sessionAccount authenticates the auth_session cookie. Disabling an
// account deletes its sessions; one read just before counts as none.
func (s *Server) sessionAccount(r *http.Request) (*store.Account, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, errLoginRequired
	}
	a, err := s.Store.SessionAccount(r.Context(), apikey.Hash(c.Value))
	if errors.Is(err, store.ErrNotFound) || (err == nil && a.Disabled) {
		return nil, errLoginRequired
	}
	return a, err
}

// anyCaller accepts an API key, or else a session (the root-level web tools).
func (s *Server) anyCaller(r *http.Request) (*caller, error) {
	if r.Header.Get(apiKeyHeader) != "" {
		return s.keyCaller(r)
	}
	a, err := s.sessionAccount(r)
	if err != nil {
		if errors.Is(err, errLoginRequired) {
			return nil, newError(codeUnauthorized, "log in or send an API key in the X-API-Key header")
		}
		return nil, err
	}
	return &caller{account: a}, nil
}

// startSession creates a session for the account and sets its cookie. A new
// token is made at every login, so a token planted before login is useless.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, accountID int64) error {
	s.endSession(w, r)
	token := apikey.NewToken()
	if err := s.Store.CreateSession(r.Context(), apikey.Hash(token), accountID, sessionTTL); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", MaxAge: int(sessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || s.isHTTPS(r),
	})
	return nil
}

// endSession deletes the request's session server-side and clears the cookie.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := s.Store.DeleteSession(r.Context(), apikey.Hash(c.Value)); err != nil {
			s.Logger.Error("deleting session", "err", err)
		}
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || s.isHTTPS(r),
	})
}

// audit records a security event; a failure is logged, never shown to the
// client, and never blocks the action it describes.
func (s *Server) audit(ctx context.Context, r *http.Request, kind string, accountID int64, detail string) {
	s.auditEvent(ctx, r, store.AuditEvent{Kind: kind, AccountID: accountID, Detail: detail})
}

// auditEvent records e with the client's IP, sealed, as audit does.
func (s *Server) auditEvent(ctx context.Context, r *http.Request, e store.AuditEvent) {
	if s.ServerKey != nil {
		sealed, err := seal.Seal(s.ServerKey, []byte(clientIP(r)))
		if err != nil {
			s.Logger.Error("sealing audit IP", "err", err)
		}
		e.SealedIP = sealed
	}
	if err := s.Store.AddAudit(ctx, e); err != nil {
		s.Logger.Error("writing audit event", "kind", e.Kind, "err", err)
	}
}
