package server

import (
	"cmp"
	"context"
	"errors"
	"regexp"
	"sync"
	"time"

	"secutil/store"
	"secutil/tools/apikey"
)

// API keys: issued with a password (POST /api/get_api_key), rotated by a key
// (new_api_key) or a session (regenerate), described (user_info), and made,
// rotated and revoked on the dashboard.

type apiKeyResponse struct {
	APIKey string `json:"api_key"`
}

// keyNamePattern is compiled on first use, not at start: its {1,64} makes
// the largest program of the package's patterns.
var keyNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`) })

// getAPIKey issues a key for credentials in the body: the previous key of
// that name stops working.
func (s *Server) getAPIKey(ctx context.Context, req credentials) (apiKeyResponse, error) {
	name := cmp.Or(req.Name, "default")
	if !keyNamePattern().MatchString(name) {
		return apiKeyResponse{}, badRequest("field \"name\" must be 1 to 64 letters, digits, '.', '_' or '-'")
	}
	if err := s.throttle(ctx, s.ipLimiter, req.Email); err != nil {
		return apiKeyResponse{}, err
	}
	a, err := s.checkLogin(ctx, req.Email, req.Password)
	if err != nil {
		return apiKeyResponse{}, err
	}
	key, err := s.issueKey(ctx, a.ID, name, store.AuditKeyIssued)
	if err != nil {
		return apiKeyResponse{}, err
	}
	return apiKeyResponse{APIKey: key}, nil
}

// issueKey makes a new key called name, revoking the old key of that name,
// and records it as kind: AuditKeyRotated when it replaces a key the
// caller named (as POST /api/new_api_key does), else AuditKeyIssued.
func (s *Server) issueKey(ctx context.Context, accountID int64, name, kind string) (string, error) {
	key := apikey.New()
	if err := s.Store.IssueKey(ctx, accountID, name, apikey.Hash(key), apikey.Hint(key)); err != nil {
		return "", err
	}
	s.audit(ctx, kind, accountID, name)
	return key, nil
}

// newAPIKey rotates the calling key: the old key stops working at once.
func (s *Server) newAPIKey(ctx context.Context, req keyRequest) (apiKeyResponse, error) {
	who := req.caller
	key := apikey.New()
	err := s.Store.RotateKey(ctx, who.key.ID, who.keyHash, apikey.Hash(key), apikey.Hint(key))
	if errors.Is(err, store.ErrNotFound) {
		return apiKeyResponse{}, errUnauthorized // rotated by a concurrent request
	}
	if err != nil {
		return apiKeyResponse{}, err
	}
	s.audit(ctx, store.AuditKeyRotated, who.account.ID, who.key.Name)
	return apiKeyResponse{APIKey: key}, nil
}

// regenerate rotates the session's account's "default" key, or issues it
// when the account has none: the audit log says which, as for the
// dashboard's forms.
func (s *Server) regenerate(ctx context.Context, req sessionRequest[noRequest]) (apiKeyResponse, error) {
	kind := store.AuditKeyRotated
	if _, err := s.Store.KeyByName(ctx, req.account.ID, "default"); errors.Is(err, store.ErrNotFound) {
		kind = store.AuditKeyIssued
	} else if err != nil {
		return apiKeyResponse{}, err
	}
	key, err := s.issueKey(ctx, req.account.ID, "default", kind)
	if err != nil {
		return apiKeyResponse{}, err
	}
	return apiKeyResponse{APIKey: key}, nil
}

type userInfoResponse struct {
	Email           string  `json:"email"`
	PaidUntil       *string `json:"paid_until"`
	Plan            string  `json:"plan"`
	APIUsage        int     `json:"api_usage"`
	MaxUsageForPlan *int    `json:"max_usage_for_plan"`
	CreatedAt       string  `json:"created_at"`
}

// userInfo describes the calling key's account.
func (s *Server) userInfo(ctx context.Context, req keyRequest) (userInfoResponse, error) {
	a := req.caller.account
	used, err := s.Store.Usage(ctx, a.ID)
	if err != nil {
		return userInfoResponse{}, err
	}
	now := s.Store.Now()
	info := userInfoResponse{
		Email:           a.Email,
		Plan:            a.EffectivePlan(now),
		APIUsage:        used,
		MaxUsageForPlan: a.Cap(now),
		CreatedAt:       a.CreatedAt.Format(time.RFC3339),
	}
	if a.PaidUntil != nil {
		p := a.PaidUntil.Format(time.RFC3339)
		info.PaidUntil = &p
	}
	return info, nil
}

type keyNameRequest struct {
	Name string `json:"name"`
}

func (k *keyNameRequest) check() error {
	if err := required("name", k.Name); err != nil {
		return err
	}
	if !keyNamePattern().MatchString(k.Name) {
		return badRequest("a key name is 1 to 64 letters, digits, '.', '_' or '-'")
	}
	return nil
}

// issueFromDashboard issues a key with issue (createKey: under a name not
// in use yet; rotateKey: replacing the key of an existing name, which
// revokes the old one at once) and sends the browser to the
// dashboard, which shows it once from the flash cookie: reloading that page
// shows no key and issues none.
func (s *Server) issueFromDashboard(issue func(ctx context.Context, accountID int64, name string) (string, error)) action[sessionRequest[keyNameRequest], string] {
	return func(ctx context.Context, req sessionRequest[keyNameRequest]) (string, error) {
		key, err := issue(ctx, req.account.ID, req.body.Name)
		if err != nil {
			return "", err
		}
		if err := s.setFreshKey(ctx, req.account.ID, freshKey{Key: key, Name: req.body.Name}); err != nil {
			return "", err
		}
		return "/dashboard", nil
	}
}

// createKey issues a key called name, refusing a name already in use.
func (s *Server) createKey(ctx context.Context, accountID int64, name string) (string, error) {
	_, err := s.Store.KeyByName(ctx, accountID, name)
	switch {
	case err == nil:
		return "", newError(codeKeyExists, "a key named %q exists already: rotate it to replace it", name)
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	return s.issueKey(ctx, accountID, name, store.AuditKeyIssued)
}

// rotateKey replaces the key called name, refusing a name not in use:
// rotating is never a way to create a key by mistake.
func (s *Server) rotateKey(ctx context.Context, accountID int64, name string) (string, error) {
	_, err := s.Store.KeyByName(ctx, accountID, name)
	if errors.Is(err, store.ErrNotFound) {
		return "", errNoKeyNamed(name)
	}
	if err != nil {
		return "", err
	}
	return s.issueKey(ctx, accountID, name, store.AuditKeyRotated)
}

func errNoKeyNamed(name string) error {
	return newError(codeKeyNotFound, "there is no key named %q", name)
}

// revokeFromDashboard revokes the key the form names.
func (s *Server) revokeFromDashboard(ctx context.Context, req sessionRequest[keyNameRequest]) (string, error) {
	if err := s.revokeKey(ctx, req.account.ID, req.body.Name); err != nil {
		return "", err
	}
	return "/dashboard?notice=key_revoked", nil
}

// revokeKey revokes the account's key called name.
func (s *Server) revokeKey(ctx context.Context, accountID int64, name string) error {
	err := s.Store.RevokeKey(ctx, accountID, name)
	if errors.Is(err, store.ErrNotFound) {
		return errNoKeyNamed(name)
	}
	if err != nil {
		return err
	}
	s.audit(ctx, store.AuditKeyRevoked, accountID, name)
	return nil
}
