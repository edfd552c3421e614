package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"secutil/server/account"
	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/passhash"
)

// The Account page (GET /account) and its two forms, which JSON clients
// call as well: POST /account/password and POST /account/delete. Both act
// for the session's account, check its password first, and are
// cookie-authenticated POSTs that the cross-origin check guards as every
// other one (middleware.go).

// passwordChangeRequest is POST /account/password's body. The API keys
// stay unless revoke_keys says otherwise: changing a password one still
// knows is no sign that a key leaked.
type passwordChangeRequest struct {
	CurrentPassword string    `json:"current_password"`
	NewPassword     string    `json:"new_password"`
	RevokeKeys      *formBool `json:"revoke_keys"`
}

func (p *passwordChangeRequest) check() error {
	if err := required("current_password", p.CurrentPassword); err != nil {
		return err
	}
	return required("new_password", p.NewPassword)
}

// accountDeleteRequest is POST /account/delete's body.
type accountDeleteRequest struct {
	Password string `json:"password"`
}

func (d *accountDeleteRequest) check() error { return required("password", d.Password) }

// owner makes the changes users make to their own account, recorded as
// theirs with the client's IP.
func (s *Server) owner() account.Operator {
	return account.Operator{Store: s.Store, By: "by the account's owner", Record: func(ctx context.Context, e store.AuditEvent) error {
		s.auditEvent(ctx, e)
		return nil
	}}
}

// ownAccountError is what the client sees of a refused change of its own
// account: a wrong password reads as a login's does.
func ownAccountError(err error) error {
	switch {
	case errors.Is(err, account.ErrWrongPassword):
		return newError(codeInvalidCredentials, "%v", err)
	case errors.Is(err, store.ErrLastAdmin):
		return newError(codeLastAdmin, "you are the last administrator: make another account an administrator first")
	}
	return err
}

// changeOwnPassword sets a new password for the session's account once its
// current one is checked, under the same policy as registration. Every
// other session ends, this one stays; the keys stay unless revoke_keys.
// Guesses of the current password are limited as logins are.
func (s *Server) changeOwnPassword(ctx context.Context, req sessionRequest[passwordChangeRequest]) (formResult, error) {
	a := req.account
	if err := s.throttle(ctx, s.ipLimiter, a.Email); err != nil {
		return formResult{}, err
	}
	newHash := func() (string, error) {
		if err := s.checkPassword(req.body.NewPassword, a.Email); err != nil {
			return "", err
		}
		return passhash.Hash(req.body.NewPassword, s.PasswordParams)
	}
	revoke := req.body.RevokeKeys != nil && bool(*req.body.RevokeKeys)
	keep := apikey.Hash(exchangeOf(ctx).session)
	if err := s.owner().ChangeOwnPassword(ctx, a, req.body.CurrentPassword, newHash, keep, revoke); err != nil {
		return formResult{}, ownAccountError(err)
	}
	message := "password changed; every other session was logged out, your API keys still work"
	next := "/account?notice=own_password_changed"
	if revoke {
		message = "password changed; every other session was logged out and every API key revoked"
		next = "/account?notice=own_password_changed_keys_revoked"
	}
	return formResult{next: next, body: statusResponse{Status: "password_changed", Message: message}}, nil
}

// deleteOwnAccount deletes the session's account once its password is
// checked: its keys, sessions and pending codes go, its monthly counts of
// calls stay for the operator (the privacy page says so), and the browser
// is logged out.
func (s *Server) deleteOwnAccount(ctx context.Context, req sessionRequest[accountDeleteRequest]) (formResult, error) {
	if err := s.throttle(ctx, s.ipLimiter, req.account.Email); err != nil {
		return formResult{}, err
	}
	if err := s.owner().DeleteOwnAccount(ctx, req.account, req.body.Password); err != nil {
		return formResult{}, ownAccountError(err)
	}
	s.endSession(ctx)
	return formResult{next: "/?notice=account_deleted", body: statusResponse{Status: "deleted",
		Message: "account deleted with its API keys and sessions; the monthly counts of calls stay for the operator"}}, nil
}

// handleAccountForm serves a form of the Account page for the session's
// account, to browsers and JSON clients: the adapter authenticates the
// session, decodes Q and runs act. A browser is sent on to the result's
// page, or shown the Account page again with the error (without a
// session, sent to log in); anyone else gets JSON.
func handleAccountForm[Q any](s *Server, act action[sessionRequest[Q], formResult]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, res, err := runAction(s, w, r, decodeSession[Q](s), act)
		switch {
		case err == nil:
			formDone(w, r, res.next, res.body)
		case !wantsHTML(r):
			s.writeError(w, r, err)
		case errors.Is(err, errLoginRequired):
			http.Redirect(w, r, "/login?"+url.Values{"next": {"/account"}}.Encode(), http.StatusSeeOther)
		default:
			s.renderAccountPage(w, r, err)
		}
	})
}

// renderAccountPage shows the Account page, with a form's failure and its
// status when there is one.
func (s *Server) renderAccountPage(w http.ResponseWriter, r *http.Request, failure error) {
	a, ok := s.dashboardAccount(w, r)
	if !ok {
		return
	}
	keys, err := s.Store.Keys(r.Context(), a.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	v := newView(s, r, accountPageData{Keys: len(keys), Confirm: r.URL.Query().Get("confirm") == "delete" && failure == nil})
	v.Account = a
	v.Path = "/account"
	render(s, w, r, showFailure(s, r, &v, failure), "account", v)
}

// accountPageData is what templates/account.html shows.
type accountPageData struct {
	Keys int // API keys the account holds
	// Confirm: the deletion waits for confirmation (?confirm=delete).
	Confirm bool
}

func (s *Server) handleAccountPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.renderAccountPage(w, r, nil)
	})
}
