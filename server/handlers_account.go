package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
)

const codeTTL = 15 * time.Minute

type credentials struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Name     string `json:"name"`
}

func (c *credentials) check() error {
	if err := required("email", c.Email); err != nil {
		return err
	}
	return required("password", c.Password)
}

type apiKeyResponse struct {
	APIKey string `json:"api_key"`
}

var keyNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// checkLogin verifies email and password. Unknown emails cost the same time
// as wrong passwords, and both give the same answer.
func (s *Server) checkLogin(r *http.Request, email, password string) (*store.Account, error) {
	invalid := newError(codeInvalidCredentials, "invalid email or password")
	a, err := s.Store.AccountByEmail(r.Context(), email)
	if errors.Is(err, store.ErrNotFound) {
		passhash.VerifyNothing(password)
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	ok, err := passhash.Verify(password, a.PasswordHash)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.audit(r.Context(), r, store.AuditLoginFailed, a.ID, "")
		return nil, invalid
	}
	if !a.Verified {
		return nil, newError(codeAccountNotVerified, "this account is not verified yet: enter the code sent by mail at /register/verify")
	}
	return a, nil
}

// handleGetAPIKey issues a key for credentials in the body: the previous key of that name stops working.
func (s *Server) handleGetAPIKey() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[credentials](w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if req.Name == "" {
			req.Name = "default"
		}
		if !keyNamePattern.MatchString(req.Name) {
			s.writeError(w, r, badRequest("field \"name\" must be 1 to 64 letters, digits, '.', '_' or '-'"))
			return
		}
		if err := s.throttle(w, r, s.ipLimiter, req.Email); err != nil {
			s.writeError(w, r, err)
			return
		}
		a, err := s.checkLogin(r, req.Email, req.Password)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		key, err := s.issueKey(r, a.ID, req.Name)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, apiKeyResponse{APIKey: key})
	})
}

// issueKey makes a new key called name, revoking the old key of that name.
func (s *Server) issueKey(r *http.Request, accountID int64, name string) (string, error) {
	key := apikey.New()
	if err := s.Store.IssueKey(r.Context(), accountID, name, apikey.Hash(key), apikey.Hint(key)); err != nil {
		return "", err
	}
	s.audit(r.Context(), r, store.AuditKeyIssued, accountID, name)
	return key, nil
}

// handleNewAPIKey rotates the calling key: the old key stops
// working at once.
func (s *Server) handleNewAPIKey() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, err := s.keyCaller(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		key := apikey.New()
		err = s.Store.RotateKey(r.Context(), who.key.ID, who.keyHash, apikey.Hash(key), apikey.Hint(key))
		if errors.Is(err, store.ErrNotFound) {
			s.writeError(w, r, errUnauthorized) // rotated by a concurrent request
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.audit(r.Context(), r, store.AuditKeyRotated, who.account.ID, who.key.Name)
		writeJSON(w, http.StatusOK, apiKeyResponse{APIKey: key})
	})
}

// handleRegenerate rotates the session's account's "default" key.
func (s *Server) handleRegenerate() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := s.sessionAccount(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		key, err := s.issueKey(r, a.ID, "default")
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, apiKeyResponse{APIKey: key})
	})
}

type userInfoResponse struct {
	Email           string  `json:"email"`
	PaidUntil       *string `json:"paid_until"`
	Plan            string  `json:"plan"`
	APIUsage        int     `json:"api_usage"`
	MaxUsageForPlan *int    `json:"max_usage_for_plan"`
	CreatedAt       string  `json:"created_at"`
}

func (s *Server) handleUserInfo() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, err := s.keyCaller(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		info, err := s.userInfo(r, who.account)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	})
}

func (s *Server) userInfo(r *http.Request, a *store.Account) (userInfoResponse, error) {
	used, err := s.Store.Usage(r.Context(), a.ID)
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

type statusResponse struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// validEmail accepts a bare address (no display name) of sane length.
func validEmail(email string) error {
	if len(email) > 254 {
		return badRequest("field \"email\" is too long")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		return badRequest("field \"email\" must be an email address like name@example.com")
	}
	return nil
}

// checkPassword applies the account password policy, answering 400 with
// the reason a password was refused.
func (s *Server) checkPassword(password, email string) error {
	return passpolicy.Check(password, email, s.IsCommonPassword)
}

// handleRegister creates a pending account and mails a code. An email that
// already has an account gets the same answer (no enumeration) and a mail
// telling its owner.
func (s *Server) handleRegister() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[credentials](w, r)
		if err == nil {
			err = validEmail(strings.TrimSpace(req.Email))
		}
		if err == nil {
			err = s.throttle(w, r, s.ipLimiter, req.Email)
		}
		if err == nil {
			err = s.checkPassword(req.Password, req.Email)
		}
		if err == nil {
			err = s.register(r, strings.TrimSpace(req.Email), req.Password)
		}
		if err != nil {
			s.formError(w, r, "register", req.Email, err)
			return
		}
		formDone(w, r, withEmail("/register/verify", req.Email), statusResponse{Status: "verification_sent",
			Message: "check your mail for a 6-digit code and send it to /register/verify within 15 minutes"})
	})
}

func (s *Server) register(r *http.Request, email, password string) error {
	ctx := r.Context()
	hash, err := passhash.Hash(password, s.PasswordParams)
	if err != nil {
		return err
	}
	existing, err := s.Store.AccountByEmail(ctx, email)
	switch {
	case err == nil && existing.Verified:
		return s.Mailer.Send(ctx, email, "secutil: registration attempt",
			"Someone tried to register a secutil account with this address, which already has one.\n"+
				"If it was you, log in or use \"forgot password\". Otherwise you can ignore this mail.")
	case err == nil:
		// A pending account: the newest registration attempt wins.
		if err := s.Store.SetPassword(ctx, existing.ID, hash); err != nil {
			return err
		}
		return s.sendCode(r, existing.ID, email, store.PurposeRegister)
	case errors.Is(err, store.ErrNotFound):
		id, err := s.Store.CreateAccount(ctx, store.NewAccount{Email: email, PasswordHash: hash})
		if errors.Is(err, store.ErrEmailTaken) {
			return nil // a concurrent registration of the same email won
		}
		if err != nil {
			return err
		}
		s.audit(ctx, r, store.AuditRegistered, id, "")
		return s.sendCode(r, id, email, store.PurposeRegister)
	default:
		return err
	}
}

// sendCode stores and mails a fresh 6-digit code.
func (s *Server) sendCode(r *http.Request, accountID int64, email, purpose string) error {
	code, err := newCode()
	if err != nil {
		return err
	}
	if err := s.Store.SetCode(r.Context(), accountID, purpose, codeHash(accountID, purpose, code), codeTTL); err != nil {
		return err
	}
	what := "verification"
	if purpose == store.PurposeReset {
		what = "password reset"
	}
	return s.Mailer.Send(r.Context(), email, "secutil "+what+" code: "+code,
		fmt.Sprintf("Your secutil %s code is %s. It expires in 15 minutes.", what, code))
}

func newCode() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	// 2^64 mod 10^6 bias is below 1e-13: negligible.
	return fmt.Sprintf("%06d", binary.BigEndian.Uint64(b[:])%1_000_000), nil
}

// codeHash binds a code to its account and purpose, so a code for one
// cannot be replayed for another.
func codeHash(accountID int64, purpose, code string) []byte {
	sum := sha256.Sum256([]byte(strconv.FormatInt(accountID, 10) + "\x00" + purpose + "\x00" + strings.TrimSpace(code)))
	return sum[:]
}

type verifyRequest struct {
	Email       string `json:"email"`
	Code        string `json:"code"`
	NewPassword string `json:"new_password"`
}

func (v *verifyRequest) check() error {
	if err := required("email", v.Email); err != nil {
		return err
	}
	return required("code", v.Code)
}

// consumeCode checks a code for email; every failure reads the same.
func (s *Server) consumeCode(r *http.Request, email, purpose, code string) (*store.Account, error) {
	invalid := badRequest("%s", store.ErrCodeInvalid.Error())
	a, err := s.Store.AccountByEmail(r.Context(), email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	err = s.Store.ConsumeCode(r.Context(), a.ID, purpose, codeHash(a.ID, purpose, code))
	if errors.Is(err, store.ErrCodeInvalid) {
		return nil, invalid
	}
	return a, err
}

func (s *Server) handleRegisterVerify() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[verifyRequest](w, r)
		if err == nil {
			err = s.throttle(w, r, s.ipLimiter, req.Email)
		}
		var a *store.Account
		if err == nil {
			a, err = s.consumeCode(r, req.Email, store.PurposeRegister, req.Code)
		}
		if err == nil {
			err = s.Store.MarkVerified(r.Context(), a.ID)
		}
		if err != nil {
			s.formError(w, r, "register_verify", req.Email, err)
			return
		}
		formDone(w, r, withEmail("/login", req.Email)+"&notice=verified", statusResponse{Status: "verified", Message: "account verified; you can log in and get an API key"})
	})
}

type emailRequest struct {
	Email string `json:"email"`
}

func (e *emailRequest) check() error { return required("email", e.Email) }

// handleForgotPassword always answers the same, whether or not the email
// has an account.
func (s *Server) handleForgotPassword() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[emailRequest](w, r)
		if err == nil {
			err = s.throttle(w, r, s.ipLimiter, req.Email)
		}
		if err != nil {
			s.formError(w, r, "forgot", req.Email, err)
			return
		}
		a, err := s.Store.AccountByEmail(r.Context(), req.Email)
		if err == nil && a.Verified {
			err = s.sendCode(r, a.ID, a.Email, store.PurposeReset)
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			s.formError(w, r, "forgot", req.Email, err)
			return
		}
		formDone(w, r, withEmail("/forgot-password/verify", req.Email), statusResponse{Status: "reset_sent",
			Message: "if an account exists for this email, a reset code has been sent to it"})
	})
}

func (s *Server) handleForgotPasswordVerify() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[verifyRequest](w, r)
		if err == nil {
			err = required("new_password", req.NewPassword)
		}
		if err == nil {
			err = s.throttle(w, r, s.ipLimiter, req.Email)
		}
		if err == nil {
			// Check the new password before spending the code on it.
			err = s.checkPassword(req.NewPassword, req.Email)
		}
		var a *store.Account
		if err == nil {
			a, err = s.consumeCode(r, req.Email, store.PurposeReset, req.Code)
		}
		var hash string
		if err == nil {
			hash, err = passhash.Hash(req.NewPassword, s.PasswordParams)
		}
		if err == nil {
			err = s.Store.SetPassword(r.Context(), a.ID, hash)
		}
		if err != nil {
			s.formError(w, r, "forgot_verify", req.Email, err)
			return
		}
		s.audit(r.Context(), r, store.AuditPasswordReset, a.ID, "")
		formDone(w, r, withEmail("/login", req.Email)+"&notice=password_changed", statusResponse{Status: "password_changed", Message: "password changed; all sessions were logged out"})
	})
}

func (s *Server) handleLogin() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[credentials](w, r)
		if err == nil {
			err = s.throttle(w, r, s.ipLimiter, req.Email)
		}
		var a *store.Account
		if err == nil {
			a, err = s.checkLogin(r, req.Email, req.Password)
		}
		if err == nil {
			err = s.startSession(w, r, a.ID)
		}
		if err != nil {
			s.formError(w, r, "login", req.Email, err)
			return
		}
		s.audit(r.Context(), r, store.AuditLoginOK, a.ID, "")
		formDone(w, r, "/dashboard", statusResponse{Status: "logged_in", Message: "logged in as " + a.Email})
	})
}

func (s *Server) handleLogout() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.endSession(w, r)
		formDone(w, r, "/", statusResponse{Status: "logged_out", Message: "logged out"})
	})
}
