package server

import (
	"context"
	"errors"
	"strings"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
)

// An account's password: the policy every new password meets, forgetting
// and resetting it with a mailed code (POST /forgot-password and
// /forgot-password/verify), and changing it on the Account page (POST
// /account/password).

// checkPassword applies the account password policy, answering 400 with
// the reason a password was refused: too short or long, common, breached,
// built from the account, or rated below fair by the strength estimator.
func (s *Server) checkPassword(password, email string) error {
	return passpolicy.Check(password, email, s.passwordLists)
}

// forgotPassword mails a reset code to a verified account. It answers at
// once and the same whether or not the email has an account: the lookup
// and the mail happen in the outbox, after the answer.
func (s *Server) forgotPassword(ctx context.Context, req emailRequest) (formResult, error) {
	if err := s.throttle(ctx, s.ipLimiter, req.Email); err != nil {
		return formResult{}, err
	}
	email := strings.TrimSpace(req.Email)
	client := s.codeClient(ctx) // the job runs after the exchange
	s.outbox.post("reset code", func(ctx context.Context) error {
		a, err := s.Store.AccountByEmail(ctx, email)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !a.Verified) {
			return nil
		}
		if err != nil {
			return err
		}
		return s.sendCode(ctx, a.ID, a.Email, store.PurposeReset, client)
	})
	message := "if an account exists for this email, a reset code is on its way to it"
	if s.codesInLog {
		message = "this server has no mail configured: if an account exists for this email, its reset code is in the server's log; ask the operator for it"
	}
	return formResult{next: withEmail("/forgot-password/verify", req.Email), body: statusResponse{Status: "reset_sent", Message: message}}, nil
}

// resetPassword sets a new password with a mailed code, which ends every
// session of the account and, unless the request says otherwise, revokes
// every API key: whoever took the account may have made some.
func (s *Server) resetPassword(ctx context.Context, req verifyRequest) (formResult, error) {
	if err := required("new_password", req.NewPassword); err != nil {
		return formResult{}, err
	}
	if err := s.throttle(ctx, s.ipLimiter, req.Email); err != nil {
		return formResult{}, err
	}
	// Check the new password before spending the code on it.
	if err := s.checkPassword(req.NewPassword, req.Email); err != nil {
		return formResult{}, err
	}
	a, err := s.consumeCode(ctx, req.Email, store.PurposeReset, req.Code, "")
	if err != nil {
		return formResult{}, err
	}
	hash, err := passhash.Hash(req.NewPassword, s.PasswordParams)
	if err != nil {
		return formResult{}, err
	}
	revoke := req.RevokeAPIKeys == nil || bool(*req.RevokeAPIKeys)
	if err := s.Store.SetPassword(ctx, a.ID, hash, revoke); err != nil {
		return formResult{}, err
	}
	s.audit(ctx, store.AuditPasswordReset, a.ID, "")
	message := "password changed; all sessions were logged out"
	if revoke {
		s.audit(ctx, store.AuditKeyRevoked, a.ID, "every key, at a password reset")
		message = "password changed; all sessions were logged out and all API keys revoked"
	}
	return formResult{next: withEmail("/login", req.Email) + "&notice=password_changed",
		body: statusResponse{Status: "password_changed", Message: message}}, nil
}

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

// changeOwnPassword sets a new password for the session's account once its
// current one is checked, under the same policy as registration. Every
// session ends, this one too, and the caller gets a fresh one in its
// place: a copy of the old cookie stops working. The keys stay unless
// revoke_keys. Guesses of the current password are limited as logins
// are.
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
	token := apikey.NewToken()
	session := &store.NewSession{Hash: apikey.Hash(token), TTL: sessionTTL}
	if err := s.owner().ChangeOwnPassword(ctx, a, req.body.CurrentPassword, newHash, session, revoke); err != nil {
		return formResult{}, ownAccountError(err)
	}
	exchangeOf(ctx).setCookie(s.sessionCookie(ctx, token, int(sessionTTL.Seconds())))
	message := "password changed; every other session was logged out and yours has a new auth_session cookie, your API keys still work"
	next := "/account?notice=own_password_changed"
	if revoke {
		message = "password changed; every other session was logged out and yours has a new auth_session cookie, every API key revoked"
		next = "/account?notice=own_password_changed_keys_revoked"
	}
	return formResult{next: next, body: statusResponse{Status: "password_changed", Message: message}}, nil
}
