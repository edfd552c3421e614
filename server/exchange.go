package server

import (
	"context"
	"net/http"
	"strings"
)

// What an action knows of its HTTP exchange, and asks of the answer.

// An exchange is what a route's action may know of its HTTP exchange, and
// what it asks of the answer. The adapter fills the first part before the
// call and writes the second after it; the action, which never sees the
// http.ResponseWriter or the *http.Request, finds it with exchangeOf(ctx)
// (as a utility's action finds its caller with callOf).
type exchange struct {
	clientIP  string // the client's address (clientIP), for the audit log
	clientKey string // what the per-client limiters count (clientKey)
	bearer    bool   // the request came with an Authorization: Bearer token
	session   string // the auth_session cookie's token, "" for none
	device    string // the device cookie (account_login.go), "" for none
	https     bool   // the client reached the server by HTTPS (isHTTPS)
	origin    string // the scheme and host the client used (requestOrigin)
	next      string // the ?next= of the page a login form was on

	// What the action asks of the answer, success or error.
	header  http.Header
	cookies []*http.Cookie
}

type exchangeKey struct{}

// exchangeOf is the exchange a route's action runs for.
func exchangeOf(ctx context.Context) *exchange { return ctx.Value(exchangeKey{}).(*exchange) }

func (s *Server) newExchange(r *http.Request) *exchange {
	ex := &exchange{
		clientIP: clientIP(r), clientKey: clientKey(r),
		bearer: strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "),
		https:  s.isHTTPS(r), origin: s.requestOrigin(r),
		next: r.URL.Query().Get("next"), header: http.Header{},
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		ex.session = c.Value
	}
	if c, err := r.Cookie(deviceCookie); err == nil {
		ex.device = c.Value
	}
	return ex
}

// Header is where the action puts headers of the answer (Retry-After).
func (ex *exchange) Header() http.Header { return ex.header }

func (ex *exchange) setCookie(c *http.Cookie) { ex.cookies = append(ex.cookies, c) }

// writeTo puts the headers and cookies the action asked for on the answer.
func (ex *exchange) writeTo(w http.ResponseWriter) {
	h := w.Header()
	for name, values := range ex.header {
		h[name] = values
	}
	for _, c := range ex.cookies {
		http.SetCookie(w, c)
	}
}
