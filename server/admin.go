package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"secutil/server/account"
	"secutil/store"
)

// The administrators' guards (routes.go registers every admin route through
// them), and who acts on an admin route, for the audit log.

var (
	errAdminUnauthorized = newError(codeUnauthorized, "admin routes need an admin account's session or the header Authorization: Bearer <admin token>")
	errForbidden         = newError(codeForbidden, "this account is not an administrator")
)

// adminOnly lets through an admin account's session, or the admin bearer
// token. A wrong or unconfigured token, or no credential at all, is 401; a
// session of a non-admin account is 403.
func (s *Server) adminOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			if !s.validAdminToken(token) {
				s.writeError(w, r, errAdminUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		a, err := s.sessionAccount(r)
		switch {
		case errors.Is(err, errLoginRequired):
			s.writeError(w, r, errAdminUnauthorized)
		case err != nil:
			s.writeError(w, r, err)
		case !a.Admin:
			s.writeError(w, r, errForbidden)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// adminPageOnly guards the admin page, which a browser opens: a visitor
// without a session is sent to log in (and back), and an account that is
// not an administrator gets the page's refusal (403). Only a session opens
// it, not the admin token: the page acts as the session's account, which
// h finds with pageAdminOf.
func (s *Server) adminPageOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viewer, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		if !viewer.Admin {
			v := newView(s, r, adminPageData{})
			v.Account = viewer
			v.Error = errForbidden.msg
			render(s, w, r, http.StatusForbidden, "admin", v)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pageAdminKey{}, viewer)))
	})
}

type pageAdminKey struct{}

// pageAdminOf is the administrator adminPageOnly let in.
func pageAdminOf(ctx context.Context) *store.Account {
	return ctx.Value(pageAdminKey{}).(*store.Account)
}

func (s *Server) validAdminToken(token string) bool { return secretMatches(token, s.AdminToken) }

// secretMatches compares hashes in constant time, so neither the secret's
// content nor its length leaks through timing. No configured secret means
// nothing matches.
func secretMatches(given, configured string) bool {
	if configured == "" {
		return false
	}
	got, want := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(configured))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// adminActor names who is using an admin route, for the audit log: the
// admin account of the session (and its id), or the admin token (id 0).
func (s *Server) adminActor(ctx context.Context) (accountID int64, name string) {
	ex := exchangeOf(ctx)
	if ex.bearer {
		return 0, "the admin token"
	}
	a, err := s.accountOfSession(ctx, ex.session)
	if err != nil { // adminOnly let the request in: the session ended since
		return 0, "an administrator"
	}
	return a.ID, a.Email
}

// operator makes account changes as the administrator of the exchange in
// ctx, recorded with its client IP.
func (s *Server) operator(ctx context.Context) account.Operator {
	_, actor := s.adminActor(ctx)
	return account.Operator{Store: s.Store, By: "by " + actor, Record: func(ctx context.Context, e store.AuditEvent) error {
		s.auditEvent(ctx, e)
		return nil
	}}
}

// adminAudit records an administrator's change that belongs to no
// account, under the acting administrator, in the format of the account
// actions' lines: what changed, then "by" whom.
func (s *Server) adminAudit(ctx context.Context, kind, what string) {
	by, actor := s.adminActor(ctx)
	s.audit(ctx, kind, by, what+", by "+actor)
}
