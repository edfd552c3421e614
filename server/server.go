// Package server is secutil's HTTP layer: routes, handlers, middleware.
// Handlers decode a request, call a tool or the store, and encode the answer.
// Everything here needs the *Server or speaks HTTP; the rest lives in its
// own package.
//
// Where things live in this package. A route's file is named for its area
// and its subject (account_login.go, admin_products.go), and a utility's
// for the panel of the utilities page that shows it (utility_<panel>.go);
// a test sits beside the file it tests, and env_test.go holds the test
// helper every HTTP test uses.
//
//   - server.go: Deps, the limits, New (the handler and its defaults).
//   - routes.go: every route, and the table of the adapters; handle.go: the
//     adapters, which serve an action as an http.Handler.
//   - decode.go, validate.go: reading a request (the bounds on bodies, JSON
//     and forms, required fields); exchange.go: what an action knows of its
//     HTTP exchange; respond.go: writing the answer (and the budget of
//     large answers); errors.go: the error codes and statuses; forms.go:
//     answering a page's form.
//   - utilities.go: one declaration per utility (routes, types, page panel,
//     error codes); utility_<panel>.go: the request and response types and
//     the action of each; openapi.go: the OpenAPI document made from the
//     declarations; utilities_page.go: the utilities page (/tools).
//   - account_*.go: the account routes (login, keys, register, codes,
//     password, setup, the Account page); dashboard.go: the dashboard.
//   - admin.go: the guards of every admin route; admin_*.go: the /boss/
//     routes and the admin page (accounts, products, invites, lists, page).
//   - billing.go: plans and checkout; billing_webhook.go: the payment
//     provider's events.
//   - middleware.go: security headers, panics, unknown routes, the access
//     log; proxy.go: allowed hosts, trusted proxies and HTTPS.
//   - auth.go: API keys and sessions; flash.go: the cookies a form leaves
//     for the page after it (a new key, an admin form's outcome).
//   - metering.go: charging metered calls to an account; ratelimit.go: the
//     login and lookup limits (in memory, and in the database for limits
//     keyed by account).
//   - health.go: GET /health; metrics.go: GET /metrics; range.go: GET
//     /range; upstream.go: asking another secutil for hashes; outbox.go:
//     mail sent after the answer; pages.go, serve_content.go: templates,
//     the /docs reference and static files.
//
// Pieces that need no *Server, under server/internal:
//
//   - accesslog: the access log line, byte for byte as slog writes it.
//   - apiref: the OpenAPI document read into the /docs reference.
//   - breaker: the circuit breaker in front of the hash upstream.
//   - jobqueue: a bounded queue of jobs run after the answer, stoppable.
//   - keyedlimit: in-memory token buckets per key, bounded by LRU eviction.
//   - promtext: the Prometheus text format and its histograms.
//   - runtimestats: the process's and the Go runtime's figures, as
//     Prometheus families.
//   - schemagen: JSON Schemas from Go types, for the OpenAPI document;
//     openapigen: the command go generate runs to write it.
//   - usagechart: the layout of the dashboard's chart of calls per day.
//
// server/account holds the account changes and plan rules that the admin
// routes share with the command line; server/browsertest starts the
// browser tests' Chromium. The utilities' own work is in tools/ (pure
// functions, no HTTP), and every line of SQL in store/.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"secutil/store"
	"secutil/store/hashindex"
	"secutil/tools/breach"
	"secutil/tools/geo"
	"secutil/tools/mailer"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
	"secutil/tools/pbe"
)

// APIVersion is the version of the API contract served under /api and /api/v1.
const APIVersion = "0.9.5"

// Deps is everything the handlers need. Zero values get sane defaults in New.
type Deps struct {
	Store  *store.Store
	Logger *slog.Logger
	// AccessLog, when set, takes the access log's lines, one Write a line,
	// in the shape of slog's handler of LogFormat ("text" or "json", with
	// no options) writing to it: a line formatted directly costs a fraction
	// of slog's general path, on every request. Nil logs requests through
	// Logger. Give it Logger's own writer, so lines never interleave.
	AccessLog io.Writer
	// AccessLogOff leaves out the access log's line of a request that
	// succeeded in good time: only failures (5xx) and slow requests are
	// logged (accesslog.Always; serve's -access-log off).
	AccessLogOff bool
	LogFormat    string
	Mailer       mailer.Sender
	Version      string // the binary's version, shown by /health
	// Assets holds templates/ (base.html and one file per page) and static/
	// (CSS, JS, icon and openapi.json). The binary embeds them in package
	// main; tests read the same folders from the working tree. Required.
	Assets fs.FS
	// PasswordParams are the argon2id costs for account passwords;
	// passhash.Default when zero (passhash.Hash applies it).
	PasswordParams passhash.Params
	// SecureCookies marks cookies Secure (set when serving TLS). They are
	// also Secure on any request that came over HTTPS.
	SecureCookies bool
	// TrustedProxies are the peers whose X-Forwarded-For and
	// X-Forwarded-Proto are believed, for rate limiting, the audit log, the
	// Secure cookie flag and HSTS; from any other peer they are ignored.
	TrustedProxies []netip.Prefix
	// AllowedHosts, when set, are the host names this server answers for;
	// a request for any other Host gets 421 (against DNS rebinding). Empty
	// or "*" answers any Host.
	AllowedHosts []string
	// IsCommonPassword reports membership of the common-password list; used to
	// refuse such account passwords.
	IsCommonPassword func(string) bool
	// ServerKey (32 bytes) seals client IPs in the audit log (nil stores no
	// IP) and keys the hashes of verification codes (nil: a random key, so
	// codes do not outlive the process).
	ServerKey []byte
	// Hashes is the reverse-lookup index of /hash_lookup (required).
	Hashes *hashindex.Index
	// HashUpstream, when set, is asked for hashes the local index misses.
	HashUpstream *Upstream
	// Breach answers /data_breach for passwords, SHA-1 hashes and prefixes:
	// a Pwned Passwords file, or else the embedded common-password list.
	Breach breach.Source
	// BreachNTLM, when set, answers NTLM queries (-breach-file-ntlm).
	BreachNTLM breach.Source
	// HashLookupBatch is the most hashes one /hash_lookup call takes, 0
	// meaning DefaultHashLookupBatch; at most MaxHashLookupBatch.
	HashLookupBatch int
	// AuditDumpBytes is the largest dump POST /password_audit takes, 0
	// meaning DefaultAuditDumpBytes; at most MaxAuditDumpBytes.
	AuditDumpBytes int64
	// Range configures GET /range/{prefix}, the Pwned Passwords range API.
	Range RangeAPI
	// Geo answers /ip_info; nil means no database configured.
	Geo *geo.Locator
	// Crypto runs /secure_encrypt and /secure_decrypt; nil means
	// pbe.DefaultParams with one key derivation per CPU at a time.
	Crypto *pbe.Engine
	// Limits overrides the brute-force limits (tests lower them).
	Limits *Limits
	// Bodies bounds the request bodies read at once (decode.go); its zero
	// fields take DefaultBodyLimits'.
	Bodies BodyLimits
	// AnswerBudget bounds the bytes of the utilities' large answers held
	// at once while they are written (respond.go); 0: DefaultAnswerBudget.
	AnswerBudget int64
	// Metrics collects what GET /metrics exposes; nil makes a new set.
	Metrics *Metrics
	// MetricsToken opens GET /metrics as "Authorization: Bearer <token>";
	// empty answers it with 404.
	MetricsToken string

	// Billing and administration (all optional: air-gapped servers run
	// without a payment provider).
	// AdminToken, when set, lets "Authorization: Bearer <token>" use /boss/*.
	AdminToken string
	// BillingSecret is the HMAC key of the billing webhook; empty disables it.
	BillingSecret string
	// Checkout makes payment pages; nil answers checkout requests with 503.
	Checkout CheckoutProvider

	// Draining, when set, is asked by GET /health: while it says true the
	// instance is stopping, /health answers 503 "draining" and every other
	// route still answers (serve's -drain).
	Draining func() bool

	// Registration names who may create an account with /register:
	// RegistrationOpen (the default), RegistrationClosed or
	// RegistrationInvite (RegistrationPolicy, account_register.go).
	Registration string

	// Background is the life of the work done after a response (the mail
	// of the outbox, outbox.go): when it ends, queued jobs are dropped and
	// running ones cancelled. Workers counts that work's goroutines, so
	// whoever ends Background can wait for them. Nil: the work lives as
	// long as the process, and nobody waits.
	Background context.Context
	Workers    *sync.WaitGroup
}

// Limits are the token-bucket sizes of the brute-force protection. A
// client is an IPv4 address or an IPv6 /64.
type Limits struct {
	PerIP Rate // login, get_api_key, register, verify, forgot-password, per client
	// PerClientAccount is the same routes keyed by client and the email in
	// the request: the tight limit on guessing one account's password.
	PerClientAccount Rate
	// PerAccount is keyed by the email alone, loose enough that guessers
	// elsewhere cannot lock the owner out.
	PerAccount Rate
	PublicHash Rate // hash_lookup_site, per client
	Range      Rate // GET /range, per key (or per client when public)
}

// Rate is a token bucket: Burst tokens, refilled at Burst per Per.
type Rate struct {
	Burst int
	Per   time.Duration
}

// DefaultLimits suit one human at a keyboard, and stop online guessing.
var DefaultLimits = Limits{
	PerIP:            Rate{Burst: 30, Per: time.Minute},
	PerClientAccount: Rate{Burst: 10, Per: time.Minute},
	PerAccount:       Rate{Burst: 100, Per: time.Minute},
	PublicHash:       Rate{Burst: 60, Per: time.Minute},
	// A password manager auditing a vault sends one range call a password.
	Range: Rate{Burst: 1200, Per: time.Minute},
}

// Server holds the handlers' shared state.
type Server struct {
	Deps
	bodies               *byteBudget // the request bodies being read (decode.go)
	errBodyTooSlow       error
	answers              *byteBudget // the large answers being written (respond.go)
	ipLimiter            *limiter
	clientAccountLimiter sharedLimiter
	accountLimiter       sharedLimiter
	publicLimiter        *limiter
	rangeLimiter         *limiter
	pages                *pages
	allowedHosts         map[string]bool // nil: any
	codeKey              []byte          // keys the hashes of verification codes
	outbox               *outbox
	pageHeaders          []header
	flashKey             []byte // seals the fresh-key cookie (flash.go)
	// codesInLog is set when the mailer writes codes to the log (no
	// -smtp-url): the pages then tell users to ask the operator.
	codesInLog bool
	// passwordLists are what account passwords must not be in.
	passwordLists passpolicy.Lists
	// registration is Deps.Registration's policy, which the routes ask.
	registration RegistrationPolicy
}

// New returns the secutil HTTP handler, or an error when the assets are
// missing or a template does not parse.
func New(d Deps) (http.Handler, error) {
	s, err := newServer(d)
	if err != nil {
		return nil, err
	}
	s.observe()
	mux := &recordingMux{ServeMux: http.NewServeMux()}
	s.routes(mux)
	// Everything else: JSON 404 or 405 (middleware.go).
	mux.Handle("/", s.noRoute(mux.ServeMux, mux.routes))
	return s.middleware(mux.ServeMux), nil
}

// newServer fills in the defaults and parses the pages.
func newServer(d Deps) (*Server, error) {
	if d.Assets == nil {
		return nil, errors.New("server: no assets (templates/ and static/) given")
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Mailer == nil {
		d.Mailer = mailer.Log{Logger: d.Logger}
	}
	if d.Version == "" {
		d.Version = APIVersion
	}
	if d.Geo == nil {
		d.Geo, _ = geo.Open(geo.Config{}) // an empty config cannot fail: lookups say which flag to set
	}
	if d.Crypto == nil {
		d.Crypto = pbe.NewEngine(runtime.NumCPU(), pbe.DefaultParams)
	}
	if d.Metrics == nil {
		d.Metrics = NewMetrics()
	}
	if d.HashLookupBatch == 0 {
		d.HashLookupBatch = DefaultHashLookupBatch
	}
	if d.HashLookupBatch < 0 || d.HashLookupBatch > MaxHashLookupBatch {
		return nil, fmt.Errorf("server: the hash lookup batch must be 1 to %d hashes, not %d", MaxHashLookupBatch, d.HashLookupBatch)
	}
	if d.AuditDumpBytes == 0 {
		d.AuditDumpBytes = DefaultAuditDumpBytes
	}
	if d.AuditDumpBytes < 0 || d.AuditDumpBytes > MaxAuditDumpBytes {
		return nil, fmt.Errorf("server: the audit dump limit must be 1 to %d bytes, not %d", MaxAuditDumpBytes, d.AuditDumpBytes)
	}
	registration, err := ParseRegistration(cmp.Or(d.Registration, RegistrationOpen))
	if err != nil {
		return nil, fmt.Errorf("server: %w, not %q", err, d.Registration)
	}
	d.Bodies = d.Bodies.orDefaults()
	if d.AnswerBudget <= 0 {
		d.AnswerBudget = DefaultAnswerBudget
	}
	limits := DefaultLimits
	if d.Limits != nil {
		limits = *d.Limits
	}
	s := &Server{
		Deps:                 d,
		bodies:               newByteBudget(d.Bodies.Budget, d.Bodies.Share),
		errBodyTooSlow:       d.Bodies.tooSlow(),
		answers:              newByteBudget(d.AnswerBudget, answerShare(d.AnswerBudget)),
		ipLimiter:            newLimiter(limits.PerIP),
		clientAccountLimiter: sharedLimiter{buckets: d.Store, name: "client account", rate: limits.PerClientAccount},
		accountLimiter:       sharedLimiter{buckets: d.Store, name: "account", rate: limits.PerAccount},
		publicLimiter:        newLimiter(limits.PublicHash),
		rangeLimiter:         newLimiter(limits.Range),
		allowedHosts:         hostSet(d.AllowedHosts),
		codeKey:              codeKeyFrom(d.ServerKey),
		outbox:               newOutbox(d.Logger, d.Background, d.Workers),
		pageHeaders:          pageHeaders(checkoutOrigin(d.Checkout)),
		flashKey:             flashKeyFrom(d.ServerKey),
		passwordLists:        passpolicy.Lists{IsCommon: d.IsCommonPassword, Breached: breachedIn(d.Breach)},
		registration:         registration,
	}
	_, s.codesInLog = d.Mailer.(mailer.Log)
	p, err := loadPages(d.Assets)
	if err != nil {
		return nil, fmt.Errorf("server: loading the pages: %w", err)
	}
	s.pages = p
	return s, nil
}
