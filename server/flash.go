package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"time"

	"secutil/tools/seal"
)

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
