package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"secutil/tools/seal"
)

// The flash cookies: what a form's POST leaves for the page its 303 goes to,
// shown once. The dashboard's carries a key just issued, the admin page's a
// form's error or a new invite link.

// freshKey is a key just issued, on its way to the one dashboard page that
// shows it.
type freshKey struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// The key travels from the form's POST to the dashboard's GET in a cookie
// sealed with a key of the server's: the browser holds it, so every
// instance behind a load balancer can show it, and no one can read or
// forge one. The dashboard clears it as it shows the key, so a reload
// shows no key (and, being a GET, issues none).
const (
	freshKeyCookie = "fresh_key"
	freshKeyTTL    = 2 * time.Minute
)

type sealedFreshKey struct {
	freshKey
	Account int64 `json:"account"`
	Expires int64 `json:"expires"`
}

// flashKeyFrom derives the key that seals fresh-key cookies from the
// server key, so one sealed value is never valid as the other; a server
// without a server key gets a random one that lasts as long as it runs.
func flashKeyFrom(serverKey []byte) []byte {
	if serverKey == nil {
		key := make([]byte, seal.KeySize)
		rand.Read(key) // never fails (crypto/rand)
		return key
	}
	mac := hmac.New(sha256.New, serverKey)
	mac.Write([]byte("secutil fresh-key cookie"))
	return mac.Sum(nil)
}

// setFreshKey asks for the cookie that carries k to the dashboard.
func (s *Server) setFreshKey(ctx context.Context, accountID int64, k freshKey) error {
	raw, err := json.Marshal(sealedFreshKey{freshKey: k, Account: accountID, Expires: time.Now().Add(freshKeyTTL).Unix()})
	if err != nil {
		return err
	}
	sealed, err := seal.Seal(s.flashKey, raw)
	if err != nil {
		return err
	}
	exchangeOf(ctx).setCookie(s.freshKeyCookie(exchangeOf(ctx).https, sealed, int(freshKeyTTL.Seconds())))
	return nil
}

// takeFreshKey returns the key waiting for the account's dashboard, and
// clears the cookie that carried it.
func (s *Server) takeFreshKey(w http.ResponseWriter, r *http.Request, accountID int64) (freshKey, bool) {
	c, err := r.Cookie(freshKeyCookie)
	if err != nil {
		return freshKey{}, false
	}
	http.SetCookie(w, s.freshKeyCookie(s.isHTTPS(r), "", -1))
	raw, err := seal.Open(s.flashKey, c.Value)
	if err != nil {
		return freshKey{}, false
	}
	var f sealedFreshKey
	if json.Unmarshal(raw, &f) != nil || f.Account != accountID || time.Now().Unix() > f.Expires {
		return freshKey{}, false
	}
	return f.freshKey, true
}

// freshKeyCookie is Secure when the server says so or the client came by
// HTTPS (directly or through a trusted TLS proxy), as the session cookie is.
func (s *Server) freshKeyCookie(https bool, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: freshKeyCookie, Value: value, Path: "/dashboard", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || https,
	}
}

// The flash cookie of the admin page: what a form's POST leaves for the
// GET it redirects to (its error, or an invite link), sealed as the
// dashboard's fresh-key cookie is, so every instance can open
// it and no one else can read or forge it. The page clears it as it shows
// it.
const (
	adminFlashCookie  = "admin_flash"
	adminFlashTTL     = 2 * time.Minute
	adminFlashPurpose = "admin page"
	// maxFlashMessage bounds an error in the cookie, which must stay
	// under a browser's 4 KiB once sealed.
	maxFlashMessage = 1000
)

type adminFlash struct {
	// Purpose is adminFlashPurpose: a value sealed for another cookie
	// (a fresh key) never opens as this one.
	Purpose       string `json:"purpose"`
	Account       int64  `json:"account"`
	Expires       int64  `json:"expires"`
	Error         string `json:"error,omitempty"`
	Notice        string `json:"notice,omitempty"` // a success that names what it changed
	InviteURL     string `json:"invite_url,omitempty"`
	InviteExpires int64  `json:"invite_expires,omitempty"`
}

// flashResult is the result of an admin page form's action that leaves
// something for the page to show once (an invite link).
type flashResult interface{ flash() adminFlash }

// redirectToAdmin answers a form with 303 to the admin page, with the
// notice done if not empty, leaving f for it unless f is empty.
func (s *Server) redirectToAdmin(w http.ResponseWriter, r *http.Request, done string, f adminFlash) {
	if f != (adminFlash{}) {
		if a, err := s.sessionAccount(r); err == nil {
			f.Account = a.ID
		}
		f.Purpose, f.Expires = adminFlashPurpose, time.Now().Add(adminFlashTTL).Unix()
		if len(f.Error) > maxFlashMessage {
			f.Error = strings.ToValidUTF8(f.Error[:maxFlashMessage], "") + "…"
		}
		raw, err := json.Marshal(f)
		if err == nil {
			var sealed string
			if sealed, err = seal.Seal(s.flashKey, raw); err == nil {
				http.SetCookie(w, s.adminFlashCookie(s.isHTTPS(r), sealed, int(adminFlashTTL.Seconds())))
			}
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	target := "/admin"
	if done != "" {
		target += "?done=" + url.QueryEscape(done)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// takeAdminFlash returns what the last form left for the account's admin
// page (empty for nothing), and clears the cookie that carried it.
func (s *Server) takeAdminFlash(w http.ResponseWriter, r *http.Request, accountID int64) adminFlash {
	c, err := r.Cookie(adminFlashCookie)
	if err != nil {
		return adminFlash{}
	}
	http.SetCookie(w, s.adminFlashCookie(s.isHTTPS(r), "", -1))
	raw, err := seal.Open(s.flashKey, c.Value)
	if err != nil {
		return adminFlash{}
	}
	var f adminFlash
	if json.Unmarshal(raw, &f) != nil || f.Purpose != adminFlashPurpose || f.Account != accountID || time.Now().Unix() > f.Expires {
		return adminFlash{}
	}
	return f
}

// adminFlashCookie is Secure as the session cookie is.
func (s *Server) adminFlashCookie(https bool, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: adminFlashCookie, Value: value, Path: "/admin", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.SecureCookies || https,
	}
}
