package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"secutil/server/account"
	"secutil/store"
)

// The Account page (GET /account) and its two forms, which JSON clients
// call as well: POST /account/password (account_password.go) and POST
// /account/delete. Both act for the session's account, check its password
// first, and are cookie-authenticated POSTs that the cross-origin check
// guards as every other one (middleware.go).

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
// account: a wrong password reads as a login's does, and an account
// deleted since the session was checked (by a deletion racing this
// change) as the session it took with it.
func ownAccountError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errLoginRequired
	case errors.Is(err, account.ErrWrongPassword):
		return newError(codeInvalidCredentials, "%v", err)
	case errors.Is(err, store.ErrLastAdmin):
		return newError(codeLastAdmin, "you are the last administrator: make another account an administrator first")
	}
	return err
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

// accountFormFailure answers a browser whose form of the Account page
// failed: the page again with the error, or without a session the login
// page, which comes back to it.
func (s *Server) accountFormFailure(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errLoginRequired) {
		http.Redirect(w, r, "/login?"+url.Values{"next": {"/account"}}.Encode(), http.StatusSeeOther)
		return
	}
	s.renderAccountPage(w, r, err)
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
	status := showFailure(s, r, &v, failure)
	if failure != nil && r.URL.Path == "/account/delete" {
		// A refused deletion stays asking, its message in the confirmation.
		v.Data.Confirm, v.Data.DeleteError, v.Error = true, v.Error, ""
	}
	render(s, w, r, status, "account", v)
}

// accountPageData is what templates/account.html shows.
type accountPageData struct {
	Keys int // API keys the account holds
	// Confirm: the deletion waits for confirmation (?confirm=delete), or
	// was refused with DeleteError.
	Confirm     bool
	DeleteError string
}

func (s *Server) handleAccountPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.renderAccountPage(w, r, nil)
	})
}
