package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/emailaddr"
	"secutil/tools/passhash"
)

// Registration (POST /register, POST /register/verify, the register page)
// and the server's registration policy: open, closed, or by invite.

// CheckEmail accepts the email of a new account, as emailaddr.Canonical
// does: an ASCII address, no look-alike characters. The API and the
// command line share it; its error completes a sentence that starts with
// the field's name.
func CheckEmail(email string) error {
	_, err := emailaddr.Canonical(email)
	return err
}

// validEmail is CheckEmail as a 400 naming the field.
func validEmail(email string) error {
	if err := CheckEmail(email); err != nil {
		return badRequest("field \"email\" %v", err)
	}
	return nil
}

// registerRequest is /register's body; invite is the token of an invite
// link, which a server with -registration invite requires.
type registerRequest struct {
	credentials
	Invite string `json:"invite"`
}

func (q registerRequest) prefill() formPrefill {
	return formPrefill{email: q.Email, token: q.Invite}
}

// register creates a pending account and mails a code, if the server's
// registration policy lets the caller (registrationAllowed). An email that
// already has an account gets the same answer (no enumeration) and a mail
// telling its owner. An invite is spent when the account is verified, not
// here: registering again with it (for a new code, or with the email
// typed right) works until then.
func (s *Server) register(ctx context.Context, req registerRequest) (formResult, error) {
	if err := s.registrationAllowed(ctx, req.Invite); err != nil {
		return formResult{}, err
	}
	email := strings.TrimSpace(req.Email)
	if err := validEmail(email); err != nil {
		return formResult{}, err
	}
	if err := s.throttle(ctx, s.ipLimiter, req.Email); err != nil {
		return formResult{}, err
	}
	if err := s.checkPassword(req.Password, req.Email); err != nil {
		return formResult{}, err
	}
	if err := s.createPendingAccount(ctx, email, req.Password, s.inviteHash(req.Invite)); err != nil {
		return formResult{}, err
	}
	message := "check your mail for a 6-digit code and send it to /register/verify within 15 minutes"
	if s.codesInLog {
		message = "this server has no mail configured: ask its operator for your 6-digit code and send it to /register/verify within 15 minutes"
	}
	return formResult{next: withEmail("/register/verify", req.Email), body: statusResponse{Status: "verification_sent", Message: message}}, nil
}

// createPendingAccount does the work of register once the request passed
// its checks: a pending account, new or given the newest password, keeps
// inviteHash (nil without one) until it is verified, and gets a fresh
// code by mail. A pending account's password changes only with a code
// mailed to it: past the client's codes for the hour, the registration
// changes nothing (and answers as any other, which must not tell whether
// the address is registered), and the owner hears of it.
func (s *Server) createPendingAccount(ctx context.Context, email, password string, inviteHash []byte) error {
	hash, err := passhash.Hash(password, s.PasswordParams)
	if err != nil {
		return err
	}
	code, err := newCode()
	if err != nil {
		return err
	}
	reg, err := s.Store.RegisterPending(ctx, store.Registration{
		Account: store.NewAccount{Email: email, PasswordHash: hash}, Invite: inviteHash,
		Client: s.codeClient(ctx), CodeTTL: codeTTL,
		Code: func(id int64) []byte { return s.codeHash(id, store.PurposeRegister, code) },
	})
	switch {
	case errors.Is(err, store.ErrEmailTaken):
		if a, err := s.Store.AccountByEmail(ctx, email); err != nil || !a.Verified {
			return nil // a concurrent registration of the same email won
		}
		return s.Mailer.Send(ctx, email, "secutil: registration attempt",
			"Someone tried to register a secutil account with this address, which already has one.\n"+
				"If it was you, log in or use \"forgot password\". Otherwise you can ignore this mail.")
	case errors.Is(err, store.ErrTooManyCodes):
		return s.codeRefused(ctx, reg.NotifyOwner, reg.ID, email, store.PurposeRegister)
	case err != nil:
		return err
	}
	if !reg.Created {
		return s.mailCode(ctx, email, store.PurposeRegister, code, registeredAgainNote)
	}
	detail := ""
	if inviteHash != nil {
		detail = "with invite " + inviteID(inviteHash)
	}
	s.audit(ctx, store.AuditRegistered, reg.ID, detail)
	return s.mailCode(ctx, email, store.PurposeRegister, code, "")
}

// registeredAgainNote goes with the code of a registration of an address
// that was registered already: it replaced the earlier password and code,
// which is why an earlier code no longer works.
const registeredAgainNote = "This address was registered again, which replaced the password and any earlier code:\n" +
	"this code works only with the password chosen in that newest registration. If you did not\n" +
	"register again, someone else typed your address; register again yourself, with your own password."

// verifyRegistration activates the account the code was mailed for, given
// the password it was registered with, spends its invite, and logs it in:
// a browser goes on to the dashboard, a JSON client gets the session
// cookie.
func (s *Server) verifyRegistration(ctx context.Context, req verifyRequest) (formResult, error) {
	if err := required("password", req.Password); err != nil {
		return formResult{}, err
	}
	if err := s.throttle(ctx, s.ipLimiter, req.Email); err != nil {
		return formResult{}, err
	}
	a, err := s.consumeCode(ctx, req.Email, store.PurposeRegister, req.Code, req.Password)
	if err != nil {
		return formResult{}, err
	}
	if err := s.Store.VerifyRegistration(ctx, a.ID); err != nil {
		return formResult{}, err
	}
	s.audit(ctx, store.AuditAccountVerified, a.ID, "by its code")
	if err := s.logIn(ctx, a.ID); err != nil {
		return formResult{}, err
	}
	return formResult{next: "/dashboard?notice=verified",
		body: statusResponse{Status: "verified", Message: "account verified and logged in; get an API key on the dashboard"}}, nil
}

// RegistrationPolicy is who may create an account with /register: one of
// the three below, named as serve's -registration and Deps.Registration
// name it (ParseRegistration). The routes ask it their questions rather
// than compare names.
type RegistrationPolicy string

// The registration policies. They are untyped so that Deps.Registration,
// a name as a flag gives it, takes them as they are.
const (
	RegistrationOpen   = "open"   // anyone who reaches the server
	RegistrationClosed = "closed" // nobody: operators add accounts (secutil user add)
	RegistrationInvite = "invite" // holders of an invite link an administrator made
)

// ParseRegistration is the policy named; serve's -registration and
// server.New refuse any other name with its error.
func ParseRegistration(name string) (RegistrationPolicy, error) {
	switch p := RegistrationPolicy(name); p {
	case RegistrationOpen, RegistrationClosed, RegistrationInvite:
		return p, nil
	}
	return "", errors.New("registration must be open, closed or invite")
}

// Closed: nobody creates an account with /register.
func (p RegistrationPolicy) Closed() bool { return p == RegistrationClosed }

// ByInvite: /register needs an invite link, and administrators make them
// (the admin page shows its invites panel, POST /boss/invites/create
// works).
func (p RegistrationPolicy) ByInvite() bool { return p == RegistrationInvite }

var (
	errRegistrationClosed = newError(codeRegistrationClosed, "registration is closed on this server: ask its operator for an account")
	errInviteRequired     = newError(codeRegistrationClosed, "registration on this server needs an invite link from an administrator")
	errInvitesOff         = newError(codeInvitesOff, "invites work only on a server started with -registration invite")
)

// registrationAllowed applies the registration policy, before any other
// check of a registration: closed refuses everyone, invite needs a usable
// invite.
func (s *Server) registrationAllowed(ctx context.Context, invite string) error {
	switch {
	case s.registration.Closed():
		return errRegistrationClosed
	case s.registration.ByInvite():
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
	if !s.registration.ByInvite() {
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
