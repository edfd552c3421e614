package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
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

// The refusals of an API key, one for each way a key goes wrong, so that
// the client learns what to fix. A key revoked in the last 90 days
// (store.RevokedKeysKept) is told when and why (revokedKey); after that
// the store has swept its trace, and it reads as one never made here.
var (
	errNoKey       = newError(codeUnauthorized, "no API key: send one in the X-API-Key header")
	errMistypedKey = newError(codeUnauthorized, "this is not a whole API key: a key is %d characters starting with %q and ends in a checksum that does not match here, so copy the whole key again", apikey.Length, apikey.Prefix)
	errUnknownKey  = newError(codeUnauthorized, "this API key is not live: it was never made on this server, or it was revoked more than %s days ago; make a new one on the dashboard", revokedKeyDays)
)

// revokedKeyDays is how many days a revoked key is named revoked.
var revokedKeyDays = strconv.Itoa(int(store.RevokedKeysKept / (24 * time.Hour)))

// revokedKeyReasons says why a key was revoked, after "this API key was
// revoked on <date>, ", for each of the store's reasons.
var revokedKeyReasons = map[string]string{
	store.RevokedByOwner:        "on the dashboard; make a new one there",
	store.RevokedRotated:        "when a new key of the same name replaced it (a rotation, or POST /api/v1/get_api_key); use the new key, or make one on the dashboard",
	store.RevokedPasswordSet:    "with every key of its account, when the account's password was reset or changed; make a new one on the dashboard",
	store.RevokedAccountDeleted: "with its account, which was deleted",
}

// revokedKey is the refusal of a key the store recorded as revoked: when
// (the UTC date) and why.
func revokedKey(r *store.RevokedKey) error {
	why, ok := revokedKeyReasons[r.Reason]
	if !ok {
		why = "make a new one on the dashboard"
	}
	return newError(codeUnauthorized, "this API key was revoked on %s, %s", r.At.Format(time.DateOnly), why)
}

// isKeyRefusal reports whether err refuses the key itself (no key, a
// mistyped one, or one not live), rather than its account: the key
// refusals are the only 401s of callerForKey.
func isKeyRefusal(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.code == codeUnauthorized
}

// keyCaller authenticates the X-API-Key header; a disabled account's keys
// are refused.
func (s *Server) keyCaller(r *http.Request) (*caller, error) {
	return s.callerForKey(r.Context(), r.Header.Get(apiKeyHeader))
}

// callerForKey authenticates an API key, wherever it came from.
func (s *Server) callerForKey(ctx context.Context, key string) (*caller, error) {
	if key == "" {
		return nil, errNoKey
	}
	if !apikey.WellFormed(key) {
		return nil, errMistypedKey
	}
	hash := apikey.Hash(key)
	k, a, err := s.Store.KeyByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, s.notLiveKey(ctx, hash)
	}
	if err != nil {
		return nil, err
	}
	if a.Disabled {
		return nil, errAccountDisabled
	}
	return &caller{account: a, key: k, keyHash: hash}, nil
}

// notLiveKey is the refusal of a whole key that is not live: one more
// lookup, by the primary key of the revoked keys, tells a revoked key from
// one never made here.
func (s *Server) notLiveKey(ctx context.Context, hash []byte) error {
	r, err := s.Store.RevokedKey(ctx, hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errUnknownKey
	case err != nil:
		return err
	}
	return revokedKey(r)
}

// sessionAccount authenticates the auth_session cookie.
func (s *Server) sessionAccount(r *http.Request) (*store.Account, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, errLoginRequired
	}
	return s.accountOfSession(r.Context(), c.Value)
}

// accountOfSession authenticates a session token ("" for none). Disabling
// an account deletes its sessions; one read just before counts as none.
func (s *Server) accountOfSession(ctx context.Context, token string) (*store.Account, error) {
	if token == "" {
		return nil, errLoginRequired
	}
	a, err := s.Store.SessionAccount(ctx, apikey.Hash(token))
	if errors.Is(err, store.ErrNotFound) || (err == nil && a.Disabled) {
		return nil, errLoginRequired
	}
	return a, err
}

// keyRequest is the request of an account route that reads no body and
// acts for the calling key: the caller the adapter authenticated.
type keyRequest struct{ caller *caller }

// decodeKey is the decoder of such a route.
func (s *Server) decodeKey(_ http.ResponseWriter, r *http.Request) (keyRequest, error) {
	who, err := s.keyCaller(r)
	return keyRequest{caller: who}, err
}

// sessionRequest is the request of a route for the logged-in account:
// the decoded body, and the session's account, which the adapter
// authenticated before reading the body.
type sessionRequest[Q any] struct {
	account *store.Account
	body    Q
}

// decodeSession is the decoder of a route for the logged-in account: no
// session is a 401 before the body is read.
func decodeSession[Q any](s *Server) decoder[sessionRequest[Q]] {
	return func(w http.ResponseWriter, r *http.Request) (sessionRequest[Q], error) {
		a, err := s.sessionAccount(r)
		if err != nil {
			return sessionRequest[Q]{}, err
		}
		body, err := decodeRequest[Q](w, r)
		return sessionRequest[Q]{account: a, body: body}, err
	}
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

// logIn starts a session for the account, marks this browser as one the
// account got in from (the device cookie, which throttleLogin honours) and
// this network (which keeps its share of codes, rememberNetwork), and
// records the login. Every way in calls it (a login, a verified
// registration, the first administrator's /setup), so that a browser that
// got in once is not starved later by guessers draining the account's
// login bucket, nor its network by strangers asking for its codes.
func (s *Server) logIn(ctx context.Context, accountID int64) error {
	if err := s.startSession(ctx, accountID); err != nil {
		return err
	}
	s.setDeviceCookie(ctx, accountID)
	s.rememberNetwork(ctx, accountID)
	s.audit(ctx, store.AuditLoginOK, accountID, "")
	return nil
}

// startSession creates a session for the account and asks for its cookie.
// A new token is made at every login, so a token planted before login is
// useless.
func (s *Server) startSession(ctx context.Context, accountID int64) error {
	s.endSession(ctx)
	token := apikey.NewToken()
	if err := s.Store.CreateSession(ctx, apikey.Hash(token), accountID, sessionTTL); err != nil {
		return err
	}
	exchangeOf(ctx).setCookie(s.sessionCookie(ctx, token, int(sessionTTL.Seconds())))
	return nil
}

// endSession deletes the exchange's session server-side and clears the cookie.
func (s *Server) endSession(ctx context.Context) {
	if token := exchangeOf(ctx).session; token != "" {
		if err := s.Store.DeleteSession(ctx, apikey.Hash(token)); err != nil {
			s.Logger.Error("deleting session", "err", err)
		}
	}
	exchangeOf(ctx).setCookie(s.sessionCookie(ctx, "", -1))
}

func (s *Server) sessionCookie(ctx context.Context, token string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || exchangeOf(ctx).https,
	}
}

// audit records a security event; a failure is logged, never shown to the
// client, and never blocks the action it describes.
func (s *Server) audit(ctx context.Context, kind string, accountID int64, detail string) {
	s.auditEvent(ctx, store.AuditEvent{Kind: kind, AccountID: accountID, Detail: detail})
}

// auditEvent records e with the client's IP, sealed, as audit does.
func (s *Server) auditEvent(ctx context.Context, e store.AuditEvent) {
	if s.ServerKey != nil {
		sealed, err := seal.Seal(s.ServerKey, []byte(exchangeOf(ctx).clientIP))
		if err != nil {
			s.Logger.Error("sealing audit IP", "err", err)
		}
		e.SealedIP = sealed
	}
	if err := s.Store.AddAudit(ctx, e); err != nil {
		s.Logger.Error("writing audit event", "kind", e.Kind, "err", err)
	}
}
