package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"secutil/store"
	"secutil/tools/passhash"
)

// Logging in and out (POST /login, POST /logout), the login page, and the
// device cookie that keeps an account's owner able to log in while guessers
// elsewhere are throttled. The requests the account forms share are here
// too.

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

// deviceAccount is the account id of the exchange's device cookie, when
// it was issued, and the cookie itself (the device's bucket key), when it
// is valid and younger than deviceTTL.
func (s *Server) deviceAccount(ctx context.Context) (accountID int64, issued time.Time, device string, ok bool) {
	device = exchangeOf(ctx).device
	raw, err := base64.RawURLEncoding.DecodeString(device)
	if err != nil || len(raw) != deviceCookieBytes {
		return 0, time.Time{}, "", false
	}
	payload := raw[:16]
	mac := s.deviceMAC(payload)
	if mac == nil || !hmac.Equal(mac, raw[16:]) {
		return 0, time.Time{}, "", false
	}
	issued = time.Unix(int64(binary.BigEndian.Uint64(payload[8:])), 0)
	if s.Store.Now().Sub(issued) > deviceTTL {
		return 0, time.Time{}, "", false
	}
	return int64(binary.BigEndian.Uint64(payload)), issued, device, true
}

// throttleLogin is throttle for a login: from a browser whose device
// cookie is the account's, the per-client limiter and then the device's
// own bucket (at the per-(client, account) rate) apply instead of the
// buckets keyed by the email, so that guessers elsewhere cannot starve it.
// A cookie issued before the account was created is another account's,
// one deleted before ids were never reused: it dies with that account.
func (s *Server) throttleLogin(ctx context.Context, email string) error {
	accountID, issued, device, ok := s.deviceAccount(ctx)
	if !ok {
		return s.throttle(ctx, s.ipLimiter, email)
	}
	// Only a validly signed cookie costs this lookup.
	a, err := s.Store.AccountByEmail(ctx, strings.TrimSpace(email))
	if err != nil || a.ID != accountID || issued.Before(a.CreatedAt) {
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

// afterLogin is where a login sends the browser: the page that asked for
// it (next, the login page's ?next=, a path on this site only), or the
// dashboard.
func afterLogin(next string) string {
	if localPath(next) {
		return next
	}
	return "/dashboard"
}

// localPath reports a path on this site: "/admin", never "//evil.example"
// or "/\evil.example", which browsers read as another host.
func localPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, `/\`) {
		return false
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == ""
}
