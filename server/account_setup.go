package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/passhash"
)

// Registration policies: who may create an account with /register.
const (
	RegistrationOpen   = "open"   // anyone who reaches the server
	RegistrationClosed = "closed" // nobody: operators add accounts (secutil user add)
	RegistrationInvite = "invite" // holders of an invite link an administrator made
)

// inviteTTL is how long an invite link works (it is spent when an account
// registered with it is verified).
const inviteTTL = 7 * 24 * time.Hour

var (
	errRegistrationClosed = newError(codeRegistrationClosed, "registration is closed on this server: ask its operator for an account")
	errInviteRequired     = newError(codeRegistrationClosed, "registration on this server needs an invite link from an administrator")
	errInvitesOff         = newError(codeInvitesOff, "invites work only on a server started with -registration invite")
)

// registrationAllowed applies the registration policy, before any other
// check of a registration: closed refuses everyone, invite needs a usable
// invite.
func (s *Server) registrationAllowed(ctx context.Context, invite string) error {
	switch s.Registration {
	case RegistrationClosed:
		return errRegistrationClosed
	case RegistrationInvite:
		if strings.TrimSpace(invite) == "" {
			return errInviteRequired
		}
		return s.Store.CheckInvite(ctx, apikey.Hash(invite))
	}
	return nil
}

// inviteHash is what the store knows of a registration's invite: its
// hash on a server that registers by invite, else nil.
func (s *Server) inviteHash(invite string) []byte {
	if s.Registration != RegistrationInvite {
		return nil
	}
	return apikey.Hash(invite)
}

// handleRegisterPage serves GET /register: the form, or a page saying why
// this server takes no registration from the visitor (403); a logged-in
// browser goes on to the dashboard. An invite link's token is checked at
// once and kept in the form.
func (s *Server) handleRegisterPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.redirectLoggedIn(w, r) {
			return
		}
		invite := r.URL.Query().Get("invite")
		s.renderTokenPage(w, r, "register", invite, s.registrationAllowed(r.Context(), invite))
	})
}

// renderTokenPage shows a page whose form carries the token of a link: the
// form with the token when refusal is nil, else the refusal's message with
// its status and no form.
func (s *Server) renderTokenPage(w http.ResponseWriter, r *http.Request, page, token string, refusal error) {
	v := newView(s, r, noData{})
	status := http.StatusOK
	if refusal != nil {
		ae := s.publicError(r, refusal)
		status, v.Error = ae.status(), ae.msg
	} else {
		v.Token = token
	}
	render(s, w, r, status, page, v)
}

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

type inviteResponse struct {
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
}

// createInvite makes a one-time registration link valid for inviteTTL.
// The link is shown only in this answer: the store keeps its token's hash.
func (s *Server) createInvite(ctx context.Context, _ noRequest) (inviteResponse, error) {
	if s.Registration != RegistrationInvite {
		return inviteResponse{}, errInvitesOff
	}
	token := apikey.NewToken()
	by, actor := s.adminActor(ctx)
	expires, err := s.Store.CreateInvite(ctx, apikey.Hash(token), by, inviteTTL)
	if err != nil {
		return inviteResponse{}, err
	}
	s.audit(ctx, store.AuditInviteCreated, by, "valid until "+expires.UTC().Format(account.AuditTime)+", by "+actor)
	return inviteResponse{URL: exchangeOf(ctx).origin + "/register?invite=" + token, ExpiresAt: expires.Format(time.RFC3339)}, nil
}
