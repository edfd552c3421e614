package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/passhash"
)

// The first run: GET and POST /setup create the first administrator with the
// one-time link serve printed.

// setupRequest is the /setup form: the token of the link printed at start,
// and the first administrator's email and password.
type setupRequest struct {
	credentials
	Token string `json:"token"`
}

func (q *setupRequest) check() error {
	if err := required("token", q.Token); err != nil {
		return err
	}
	return q.credentials.check()
}

func (q setupRequest) prefill() formPrefill { return formPrefill{email: q.Email, token: q.Token} }

// handleSetupPage serves GET /setup?token=...: the form that creates the
// first administrator, or a page saying why the link does not work.
func (s *Server) handleSetupPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("token")
		s.renderTokenPage(w, r, "setup", token, s.Store.CheckSetupToken(r.Context(), apikey.Hash(token)))
	})
}

// setup creates the first administrator (verified, plan pro) with the
// one-time token that serve printed, and logs it in. A pending
// (unverified) registration of the email is taken over: it gets this
// password, and whoever registered it is shut out (store.CreateFirstAdmin).
func (s *Server) setup(ctx context.Context, req setupRequest) (formResult, error) {
	email := strings.TrimSpace(req.Email)
	if err := validEmail(email); err != nil {
		return formResult{}, err
	}
	if err := s.throttle(ctx, s.ipLimiter, email); err != nil {
		return formResult{}, err
	}
	// A dead link is said before a better password is asked for.
	tokenHash := apikey.Hash(req.Token)
	if err := s.Store.CheckSetupToken(ctx, tokenHash); err != nil {
		return formResult{}, err
	}
	if err := s.checkPassword(req.Password, email); err != nil {
		return formResult{}, err
	}
	hash, err := passhash.Hash(req.Password, s.PasswordParams)
	if err != nil {
		return formResult{}, err
	}
	id, err := s.Store.CreateFirstAdmin(ctx, tokenHash, store.NewAccount{Email: email, PasswordHash: hash, Plan: store.PlanPro, Verified: true})
	if errors.Is(err, store.ErrEmailTaken) {
		return formResult{}, badRequest("%s already has a verified account: choose another email, or log in with that account and ask the operator to make it an administrator", email)
	}
	if err != nil {
		return formResult{}, err
	}
	s.audit(ctx, store.AuditSetupCompleted, id, "the first administrator, with the setup link")
	if err := s.logIn(ctx, id); err != nil {
		return formResult{}, err
	}
	return formResult{next: "/admin?done=setup", body: statusResponse{Status: "admin_created",
		Message: "created the first administrator, " + email + ", and logged in"}}, nil
}
