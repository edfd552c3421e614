package server

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/emailaddr"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
)

const codeTTL = 15 * time.Minute

// emailRequest is the email every account form carries; a form shown
// again after an error keeps it (never a password).
type emailRequest struct {
	Email string `json:"email"`
}

func (e *emailRequest) check() error { return required("email", e.Email) }

// accountBodyBytes bounds the body of every account form (login, register,
// setup, verification, reset): an email of at most 254 bytes and two
// passwords of at most 256 characters (3 KiB each even with every
// character a 4-byte one escaped as 12 bytes of JSON or form), a code, a
// token and a key name fit. 800 concurrent bodies of 1 MiB then hold 8 KiB
// each, not 1 MiB.
const accountBodyBytes = 8 << 10

func (*emailRequest) maxBody() int64 { return accountBodyBytes }

func (e emailRequest) prefill() formPrefill { return formPrefill{email: e.Email} }

type credentials struct {
	emailRequest
	Password string `json:"password"`
	Name     string `json:"name"`
}

func (c *credentials) check() error {
	if err := c.emailRequest.check(); err != nil {
		return err
	}
	return required("password", c.Password)
}

type apiKeyResponse struct {
	APIKey string `json:"api_key"`
}

// keyNamePattern is compiled on first use, not at start: its {1,64} makes
// the largest program of the package's patterns.
var keyNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`) })

// checkLogin verifies email and password. Unknown emails cost the same time
// as wrong passwords, and both give the same answer.
func (s *Server) checkLogin(ctx context.Context, email, password string) (*store.Account, error) {
	invalid := newError(codeInvalidCredentials, "invalid email or password")
	a, err := s.Store.AccountByEmail(ctx, email)
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
		s.audit(ctx, store.AuditLoginFailed, a.ID, "")
		return nil, invalid
	}
	if !a.Verified {
		return nil, newError(codeAccountNotVerified, "this account is not verified yet: enter the code sent by mail at /register/verify")
	}
	if a.Disabled {
		return nil, errAccountDisabled
	}
	return a, nil
}

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
	key, err := s.issueKey(ctx, a.ID, name)
	if err != nil {
		return apiKeyResponse{}, err
	}
	return apiKeyResponse{APIKey: key}, nil
}

// issueKey makes a new key called name, revoking the old key of that name.
func (s *Server) issueKey(ctx context.Context, accountID int64, name string) (string, error) {
	key := apikey.New()
	if err := s.Store.IssueKey(ctx, accountID, name, apikey.Hash(key), apikey.Hint(key)); err != nil {
		return "", err
	}
	s.audit(ctx, store.AuditKeyIssued, accountID, name)
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

// regenerate rotates the session's account's "default" key.
func (s *Server) regenerate(ctx context.Context, req sessionRequest[noRequest]) (apiKeyResponse, error) {
	key, err := s.issueKey(ctx, req.account.ID, "default")
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

type statusResponse struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

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

// checkPassword applies the account password policy, answering 400 with
// the reason a password was refused: too short or long, common, breached,
// built from the account, or rated below fair by the strength estimator.
func (s *Server) checkPassword(password, email string) error {
	return passpolicy.Check(password, email, s.passwordLists)
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
// inviteHash (nil without one) until it is verified.
func (s *Server) createPendingAccount(ctx context.Context, email, password string, inviteHash []byte) error {
	hash, err := passhash.Hash(password, s.PasswordParams)
	if err != nil {
		return err
	}
	// A pending account's password is the newest registration's. It
	// cannot hijack one: verification asks for the password again, so the
	// account opens only with a password the mailbox owner typed.
	id, created, err := s.Store.RegisterPending(ctx, store.NewAccount{Email: email, PasswordHash: hash}, inviteHash)
	switch {
	case errors.Is(err, store.ErrEmailTaken):
		if a, err := s.Store.AccountByEmail(ctx, email); err != nil || !a.Verified {
			return nil // a concurrent registration of the same email won
		}
		return s.Mailer.Send(ctx, email, "secutil: registration attempt",
			"Someone tried to register a secutil account with this address, which already has one.\n"+
				"If it was you, log in or use \"forgot password\". Otherwise you can ignore this mail.")
	case err != nil:
		return err
	}
	if created {
		s.audit(ctx, store.AuditRegistered, id, "")
	}
	return s.sendCode(ctx, id, email, store.PurposeRegister, exchangeOf(ctx).clientKey)
}

// sendCode stores and mails a fresh 6-digit code, asked for by client
// (the exchange's clientKey). Past the codes an address may get in an hour,
// from that client or from all, it sends nothing, and says nothing either:
// the answer of the route must not tell whether the address has an
// account. The owner hears of it instead (tellOwnerOfCodeLimit).
func (s *Server) sendCode(ctx context.Context, accountID int64, email, purpose, client string) error {
	code, err := newCode()
	if err != nil {
		return err
	}
	notify, err := s.Store.SetCodeFor(ctx, accountID, purpose, client, s.codeHash(accountID, purpose, code), codeTTL)
	if errors.Is(err, store.ErrTooManyCodes) {
		s.Logger.Info("code not sent: the address had its codes for the hour", "purpose", purpose)
		return s.tellOwnerOfCodeLimit(ctx, notify, accountID, email)
	}
	if err != nil {
		return err
	}
	what := "verification"
	if purpose == store.PurposeReset {
		what = "password reset"
	}
	return s.Mailer.Send(ctx, email, "secutil "+what+" code: "+code,
		fmt.Sprintf("Your secutil %s code is %s. It expires in 15 minutes.", what, code))
}

// tellOwnerOfCodeLimit lets an account's owner know, once per client and
// hour (notify, from the store), that a client used up its codes or code
// tries for the account: by mail, and in the log for the operator of a
// server without mail. The owner's own requests count apart, from their
// own network, so recovery still works for them.
func (s *Server) tellOwnerOfCodeLimit(ctx context.Context, notify bool, accountID int64, email string) error {
	if !notify {
		return nil
	}
	s.Logger.Warn("a client used up its codes or code tries for an account; the owner's own requests still work",
		"account_id", accountID)
	if s.codesInLog {
		return nil
	}
	return s.Mailer.Send(ctx, email, "secutil: codes asked for your account",
		"Someone asked for codes for your secutil account, or tried wrong codes, more often than allowed,\n"+
			"and was stopped for an hour. If it was not you, your password is unchanged and nothing is needed;\n"+
			"your own request for a code, from your own network, still works.")
}

func newCode() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	// 2^64 mod 10^6 bias is below 1e-13: negligible.
	return fmt.Sprintf("%06d", binary.BigEndian.Uint64(b[:])%1_000_000), nil
}

// codeHash is what the database keeps of a code: an HMAC-SHA-256 under a
// key derived from the server key, so a copy of the database does not give
// back a live code (a plain hash of a 6-digit code is undone by trying the
// million). It binds the code to its account and purpose, so a code for one
// cannot be replayed for another.
func (s *Server) codeHash(accountID int64, purpose, code string) []byte {
	mac := hmac.New(sha256.New, s.codeKey)
	mac.Write([]byte(strconv.FormatInt(accountID, 10) + "\x00" + purpose + "\x00" + strings.TrimSpace(code)))
	return mac.Sum(nil)
}

// codeKeyFrom derives the key of codeHash from the server key, or makes a
// random one when the server has none (codes then die with the process).
func codeKeyFrom(serverKey []byte) []byte {
	if serverKey == nil {
		key := make([]byte, sha256.Size)
		rand.Read(key)
		return key
	}
	mac := hmac.New(sha256.New, serverKey)
	mac.Write([]byte("secutil verification and reset codes"))
	return mac.Sum(nil)
}

type verifyRequest struct {
	emailRequest
	Code string `json:"code"`
	// Password is the registration's password, asked again (/register/verify).
	Password string `json:"password"`
	// NewPassword and RevokeAPIKeys are for /forgot-password/verify.
	NewPassword   string    `json:"new_password"`
	RevokeAPIKeys *formBool `json:"revoke_api_keys"`
}

func (v *verifyRequest) check() error {
	if err := v.emailRequest.check(); err != nil {
		return err
	}
	v.Code = pastedCode(v.Code)
	return required("code", v.Code)
}

// pastedCode is a code as typed or pasted: "123 456" and "123-456" (a mail
// client's grouping) are 123456.
func pastedCode(code string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, code)
}

// consumeCode checks a code for email; every failure reads the same. A
// registration's code comes with its password: when the password does not
// match the pending account's, the try counts as a wrong code, so nobody
// activates an account with a password they did not choose, nor guesses
// the code without the password.
func (s *Server) consumeCode(ctx context.Context, email, purpose, code, password string) (*store.Account, error) {
	invalid := badRequest("%s", store.ErrCodeInvalid.Error())
	if purpose == store.PurposeRegister {
		invalid = badRequest("the code or the password is wrong, or the code has expired; %s", s.newCodeHint())
	}
	a, err := s.Store.AccountByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		if purpose == store.PurposeRegister {
			passhash.VerifyNothing(password) // the same time as a known email
		}
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	hash := s.codeHash(a.ID, purpose, code)
	if purpose == store.PurposeRegister {
		ok, err := passhash.Verify(password, a.PasswordHash)
		if err != nil {
			return nil, err
		}
		if !ok {
			hash = nil // matches no code, and counts as a wrong try
		}
	}
	notify, err := s.Store.ConsumeCodeFrom(ctx, a.ID, purpose, exchangeOf(ctx).clientKey, hash)
	if notifyErr := s.tellOwnerOfCodeLimit(ctx, notify, a.ID, a.Email); notifyErr != nil {
		s.Logger.Error("telling the owner of a code limit", "err", notifyErr)
	}
	if errors.Is(err, store.ErrCodeInvalid) {
		return nil, invalid
	}
	return a, err
}

// newCodeHint says how a registrant gets a new code: registering again,
// with the same invite link on a server that registers by invite (it
// works until the account is verified).
func (s *Server) newCodeHint() string {
	if s.Registration == RegistrationInvite {
		return "register again with the same invite link for a new code: it works until your account is verified"
	}
	return "register again for a new code"
}

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

// forgotPassword mails a reset code to a verified account. It answers at
// once and the same whether or not the email has an account: the lookup
// and the mail happen in the outbox, after the answer.
func (s *Server) forgotPassword(ctx context.Context, req emailRequest) (formResult, error) {
	if err := s.throttle(ctx, s.ipLimiter, req.Email); err != nil {
		return formResult{}, err
	}
	email := strings.TrimSpace(req.Email)
	client := exchangeOf(ctx).clientKey // the job runs after the exchange
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

// login logs the account in (logIn), which marks the browser as one the
// account logged in from (the device cookie). A login from such a browser
// draws on a bucket of its own (throttleLogin).
func (s *Server) login(ctx context.Context, req credentials) (formResult, error) {
	if err := s.throttleLogin(ctx, req.Email); err != nil {
		return formResult{}, err
	}
	a, err := s.checkLogin(ctx, req.Email, req.Password)
	if err != nil {
		return formResult{}, err
	}
	if err := s.logIn(ctx, a.ID); err != nil {
		return formResult{}, err
	}
	return formResult{next: loginNext(exchangeOf(ctx).next), body: statusResponse{Status: "logged_in", Message: "logged in as " + a.Email}}, nil
}

// loginNext is where a login sends the browser: next as http.Redirect will
// send it, its path cleaned ("/./x" is "/x"), when that is a path of this
// site both as sent and once cleaned; else the dashboard. The cleaned path
// is what the browser gets: "/./\evil.example" cleans to
// "/\evil.example", which browsers read as another host. A backslash or a
// control character anywhere (browsers read the one as "/" and drop the
// others) refuses next.
func loginNext(next string) string {
	if !localPath(next) || strings.ContainsFunc(next, func(r rune) bool { return r == '\\' || r < ' ' || r == 0x7f }) {
		return afterLogin("")
	}
	p, query, hasQuery := strings.Cut(next, "?")
	cleaned := path.Clean(p)
	if strings.HasSuffix(p, "/") && cleaned != "/" {
		cleaned += "/" // as http.Redirect keeps it
	}
	if hasQuery {
		cleaned += "?" + query
	}
	return afterLogin(cleaned)
}

// logout ends the session, server-side and in the browser.
func (s *Server) logout(ctx context.Context, _ noRequest) (formResult, error) {
	s.endSession(ctx)
	return formResult{next: "/?notice=logged_out", body: statusResponse{Status: "logged_out", Message: "logged out"}}, nil
}

// handleGuestPage serves a page for visitors who are not logged in (the
// login form): a logged-in browser goes on to where a login would send it.
func (s *Server) handleGuestPage(name string) http.Handler {
	page := s.handlePage(name)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.redirectLoggedIn(w, r) {
			return
		}
		page.ServeHTTP(w, r)
	})
}

// redirectLoggedIn sends a browser with a live session on to the dashboard
// (or the login's next) and reports whether it did.
func (s *Server) redirectLoggedIn(w http.ResponseWriter, r *http.Request) bool {
	if _, err := s.sessionAccount(r); err != nil {
		return false
	}
	http.Redirect(w, r, loginNext(r.URL.Query().Get("next")), http.StatusSeeOther)
	return true
}

// The device cookie marks a browser an account logged in from. Guessers on
// many networks can drain the account's login bucket (throttle's
// per-account one, which bounds guessing from everywhere) and so lock the
// owner out; a login carrying a valid device cookie for the account draws
// on the device's own bucket instead. The cookie is the account id and
// when it was issued, signed with a key derived from the server key: it
// cannot be made for another account, and is worth nothing for one.
const (
	deviceCookie = "device"
	deviceTTL    = 365 * 24 * time.Hour
	// deviceCookieBytes: account id and issue time (8 bytes each), and the
	// MAC (16 bytes, a forgery is a 2^-128 guess).
	deviceCookieBytes = 8 + 8 + 16
)

// deviceMAC signs an account id and issue time; nil when the server has
// no key (no device cookies then).
func (s *Server) deviceMAC(payload []byte) []byte {
	if s.ServerKey == nil {
		return nil
	}
	key := hmac.New(sha256.New, s.ServerKey)
	key.Write([]byte("secutil device cookies"))
	mac := hmac.New(sha256.New, key.Sum(nil))
	mac.Write(payload)
	return mac.Sum(nil)[:deviceCookieBytes-16]
}

// setDeviceCookie asks for the device cookie of the account, as Secure as
// the session cookie, sent only to /login.
func (s *Server) setDeviceCookie(ctx context.Context, accountID int64) {
	payload := binary.BigEndian.AppendUint64(nil, uint64(accountID))
	payload = binary.BigEndian.AppendUint64(payload, uint64(s.Store.Now().Unix()))
	mac := s.deviceMAC(payload)
	if mac == nil {
		return
	}
	ex := exchangeOf(ctx)
	ex.setCookie(&http.Cookie{
		Name: deviceCookie, Value: base64.RawURLEncoding.EncodeToString(append(payload, mac...)),
		Path: "/login", MaxAge: int(deviceTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || ex.https,
	})
}

// deviceAccount is the account id of the exchange's device cookie, and the
// cookie itself (the device's bucket key), when it is valid and younger
// than deviceTTL.
func (s *Server) deviceAccount(ctx context.Context) (accountID int64, device string, ok bool) {
	device = exchangeOf(ctx).device
	raw, err := base64.RawURLEncoding.DecodeString(device)
	if err != nil || len(raw) != deviceCookieBytes {
		return 0, "", false
	}
	payload := raw[:16]
	mac := s.deviceMAC(payload)
	if mac == nil || !hmac.Equal(mac, raw[16:]) {
		return 0, "", false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(payload[8:])), 0)
	if s.Store.Now().Sub(issued) > deviceTTL {
		return 0, "", false
	}
	return int64(binary.BigEndian.Uint64(payload)), device, true
}

// throttleLogin is throttle for a login: from a browser whose device
// cookie is the account's, the per-client limiter and then the device's
// own bucket (at the per-(client, account) rate) apply instead of the
// buckets keyed by the email, so that guessers elsewhere cannot starve it.
func (s *Server) throttleLogin(ctx context.Context, email string) error {
	accountID, device, ok := s.deviceAccount(ctx)
	if !ok {
		return s.throttle(ctx, s.ipLimiter, email)
	}
	// Only a validly signed cookie costs this lookup.
	a, err := s.Store.AccountByEmail(ctx, strings.TrimSpace(email))
	if err != nil || a.ID != accountID {
		return s.throttle(ctx, s.ipLimiter, email)
	}
	ex := exchangeOf(ctx)
	allowed, wait := s.ipLimiter.allow(ex.clientKey, time.Now())
	if allowed {
		if allowed, wait, err = s.clientAccountLimiter.allow(ctx, "device "+device); err != nil {
			return err
		}
	}
	if allowed {
		return nil
	}
	return rateLimited(ex, wait)
}
