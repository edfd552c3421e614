// Package server is secutil's HTTP layer: routes, handlers, middleware.
// Handlers decode a request, call a tool or the store, and encode the answer.
package server

import (
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"secutil/mailer"
	"secutil/store"
	"secutil/tools/passhash"
)

// APIVersion is the version of the API contract served under /api and /api/v1.
const APIVersion = "0.9.5"

// Deps is everything the handlers need. Zero values get sane defaults in New.
type Deps struct {
	Store   *store.Store
	Logger  *slog.Logger
	Mailer  mailer.Sender
	Version string // the binary's version, shown by /health
	// Assets holds templates/ and static/ for the web pages (may be nil in tests).
	Assets fs.FS
	// PasswordParams are the argon2id costs for account passwords.
	PasswordParams passhash.Params
	// SecureCookies marks cookies Secure (set when serving TLS).
	SecureCookies bool
	// IsCommonPassword reports membership of the common-password list; used to
	// refuse such account passwords.
	IsCommonPassword func(string) bool
	// SealIP seals a client IP for the audit log; nil stores no IP.
	SealIP func(ip string) string
	// Limits overrides the brute-force limits (tests lower them).
	Limits *Limits

	// Billing and administration (all optional: air-gapped servers run
	// without a payment provider).
	// AdminToken, when set, lets "Authorization: Bearer <token>" use /boss/*.
	AdminToken string
	// BillingSecret is the HMAC key of the billing webhook; empty disables it.
	BillingSecret string
	// Checkout makes payment pages; nil answers checkout requests with 503.
	Checkout CheckoutProvider
}

// Limits are the token-bucket sizes of the brute-force protection.
type Limits struct {
	PerIP      Rate // login, get_api_key, register, verify, forgot-password
	PerAccount Rate // the same routes, keyed by the email in the request
	PublicHash Rate // hash_lookup_site, per IP
}

// Rate is a token bucket: Burst tokens, refilled at Burst per Per.
type Rate struct {
	Burst int
	Per   time.Duration
}

// DefaultLimits suit one human at a keyboard, and stop online guessing.
var DefaultLimits = Limits{
	PerIP:      Rate{Burst: 30, Per: time.Minute},
	PerAccount: Rate{Burst: 10, Per: time.Minute},
	PublicHash: Rate{Burst: 60, Per: time.Minute},
}

// Server holds the handlers' shared state.
type Server struct {
	Deps
	ipLimiter      *limiter
	accountLimiter *limiter
	publicLimiter  *limiter
}

// New returns the secutil HTTP handler.
func New(d Deps) http.Handler {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Mailer == nil {
		d.Mailer = mailer.Log{Logger: d.Logger}
	}
	if d.PasswordParams == (passhash.Params{}) {
		d.PasswordParams = passhash.Default
	}
	if d.Version == "" {
		d.Version = APIVersion
	}
	limits := DefaultLimits
	if d.Limits != nil {
		limits = *d.Limits
	}
	s := &Server{
		Deps:           d,
		ipLimiter:      newLimiter(limits.PerIP),
		accountLimiter: newLimiter(limits.PerAccount),
		publicLimiter:  newLimiter(limits.PublicHash),
	}
	mux := http.NewServeMux()
	s.routes(mux)
	return s.middleware(mux)
}
