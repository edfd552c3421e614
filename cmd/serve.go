package cmd

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/geo"
	"secutil/tools/mailer"
	"secutil/tools/strength"
)

type serveConfig struct {
	addr, db, smtpURL, tlsCert, tlsKey, logFormat, serverKey string
	hashDB, hashUpstream                                     string
	breachFile, breachFileNTLM, rangeAPI                     string
	geo                                                      geo.Config
	adminToken, billingSecret, checkoutURL                   string
	trustedProxies, allowedHosts                             string
	metricsToken, metricsAddr                                string
	pprofAddr                                                string
	registration                                             string
	drain                                                    time.Duration
	accessLog                                                string
	hashLookupBatch                                          int
	auditDumpSize                                            byteSize
}

// minSecretLen is the shortest -admin-token or -billing-secret accepted:
// either one is a password that is never rate limited.
const minSecretLen = 24

// newServeFlags defines serve's flags into c.
func newServeFlags(c *serveConfig, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("serve", stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.db, "db", defaultDB, dbUsage)
	fs.StringVar(&c.registration, "registration", "", "who may create an account at /register: open, closed or invite (default: open when -addr is a loopback address, closed otherwise)")
	fs.StringVar(&c.smtpURL, "smtp-url", "", "SMTP relay for verification codes, smtp://user:pass@host:587?from=addr (default: codes go to the log)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate file (serve HTTPS; cookies become Secure)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS private key file")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.accessLog, "access-log", "on", "on: a log line per request; off: only the requests that failed (5xx) or took a second or more")
	fs.DurationVar(&c.drain, "drain", defaultDrain, "on SIGTERM, answer GET /health with 503 \"draining\" for this long while still serving, so that a load balancer takes this instance out first; then stop as on an interrupt, which stops at once (0: no drain)")
	fs.StringVar(&c.serverKey, "server-key", "", "32-byte key (64 hex characters) that seals client IPs in the audit log and keys the hashes of verification codes (default: one generated and kept in a file beside -db, secutil-server.key, mode 0600; prefer SECUTIL_SERVER_KEY)")
	geoFlags(fs, &c.geo)
	fs.StringVar(&c.hashDB, "hash-db", "", "reverse hash lookup index (default: beside -db, e.g. secutil-hashes.db)")
	fs.StringVar(&c.breachFile, "breach-file", "", "Pwned Passwords SHA-1 file (HASH:COUNT lines sorted by hash) for /data_breach and the account password policy; see docs/BREACH.md (default: the embedded common-password list)")
	fs.StringVar(&c.breachFileNTLM, "breach-file-ntlm", "", "Pwned Passwords NTLM file, for /data_breach {\"ntlm\"} queries and GET /range/{prefix}?mode=ntlm")
	fs.StringVar(&c.rangeAPI, "range-api", "key", "who may call GET /range/{prefix}, the Pwned Passwords range API: key (a secutil key in X-API-Key or hibp-api-key), public or off")
	fs.IntVar(&c.hashLookupBatch, "hash-lookup-batch", server.DefaultHashLookupBatch, fmt.Sprintf("the most hashes one /hash_lookup or /hash_lookup_site call takes, 1 to %d; a larger batch is refused whole (400)", server.MaxHashLookupBatch))
	c.auditDumpSize = server.DefaultAuditDumpBytes
	fs.Var(&c.auditDumpSize, "audit-dump-size", fmt.Sprintf("the largest dump POST /password_audit takes, as a `size` in bytes, KiB or MiB, at most %s; a larger dump is refused (413)", byteSize(server.MaxAuditDumpBytes)))
	fs.StringVar(&c.hashUpstream, "hash-upstream", "", "base URL of another secutil whose /api/v1/hash_lookup_site is asked for local misses")
	fs.StringVar(&c.adminToken, "admin-token", "", "token that opens /boss/* as \"Authorization: Bearer <token>\" (default: admin accounts' sessions only; prefer SECUTIL_ADMIN_TOKEN)")
	fs.StringVar(&c.billingSecret, "billing-secret", "", "HMAC secret of the billing webhook (default: webhook disabled; prefer SECUTIL_BILLING_SECRET)")
	fs.StringVar(&c.trustedProxies, "trusted-proxies", "", "comma-separated CIDRs or addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (default: none, the headers are ignored)")
	fs.StringVar(&c.allowedHosts, "allowed-hosts", "", "comma-separated host names this server answers for; others get 421 (default: the loopback names and the listen address when listening on loopback, else any; \"*\" for any)")
	fs.StringVar(&c.metricsToken, "metrics-token", "", "token that opens GET /metrics as \"Authorization: Bearer <token>\" (default: /metrics is off on -addr; prefer SECUTIL_METRICS_TOKEN)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "address of a separate listener serving GET /metrics without a token, e.g. 127.0.0.1:9090 (default: none)")
	fs.StringVar(&c.checkoutURL, "checkout-url", "", "hosted-checkout URL template, e.g. https://pay.example/checkout?product={product_id}&email={email}&ref={ref} (default: no checkout)")
	fs.StringVar(&c.pprofAddr, "pprof-addr", "", "serve Go's profiles (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060 (default: off)")
	return fs
}

// serve runs the server until ctx ends, in named steps: check the flags,
// open what the handlers read, listen, open the database, start the
// background work, build the handler and serve. Each step's resources are
// released in the reverse order, and every goroutine serve starts has
// returned before serve does.
func (p Program) serve(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	var c serveConfig
	flags := newServeFlags(&c, stderr)
	if err := parseFlags(flags, args, getenv); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return strayArgument(flags.Args())
	}
	checkout, err := c.billing()
	if err != nil {
		return err
	}
	logOut := newLogBuffer(stderr)
	defer logOut.Close()
	logger, err := newLogger(c.logFormat, logOut)
	if err != nil {
		return err
	}
	// Everything that can be checked without touching the disk is checked
	// first, so a mistyped flag never leaves a new database behind.
	opts, err := c.check()
	if err != nil {
		return err
	}
	// The files serve may create, in folders that must exist: a mistyped
	// folder is named here rather than by SQLite's "unable to open".
	if err := checkDatabaseCreatable(c.db); err != nil {
		return err
	}
	if err := checkCreatable("the hash index", hashDBPath(c.hashDB, c.db), "secutil-hashes.db"); err != nil {
		return err
	}
	src, err := openSources(c, logger)
	if err != nil {
		return err
	}
	defer src.close()
	lns, err := listen(c, opts.tlsConfig)
	if err != nil {
		return err
	}
	defer lns.close()

	st, err := store.Open(ctx, c.db)
	if err != nil {
		return err
	}
	defer st.Close()
	st.SetLogger(logger) // a database outage is logged once, as a warning
	bg := newBackground(ctx)
	defer bg.stop() // before st.Close: the work uses the store
	bg.Go(func(ctx context.Context) { reloadOnHangup(ctx, src.geo, logger) })
	bg.Go(func(ctx context.Context) { sweepExpired(ctx, st, sweepInterval, logger) })
	if opts.serverKey, err = loadServerKey(ctx, st, c.db, opts.serverKey); err != nil {
		return err
	}
	hashes, err := openHashIndex(ctx, c.hashDB, c.db, src.commonPasswords)
	if err != nil {
		return err
	}
	defer hashes.Close()

	build := p.build()
	drainer := &drain{grace: c.drain}
	deps := c.serverDeps(opts, src)
	deps.PasswordParams = p.PasswordParams // zero: passhash.Default
	deps.Draining = drainer.draining
	deps.Assets, deps.Store, deps.Hashes, deps.Checkout = p.Assets, st, hashes, checkout
	deps.Logger, deps.AccessLog, deps.Version = logger, logOut, build.version
	deps.Background, deps.Workers = bg.ctx, &bg.wg
	handler, err := server.New(deps)
	if err != nil {
		return err
	}
	base := lns.scheme + "://" + browsableAddr(lns.api.Addr())
	setupURL, err := newSetupURL(ctx, st, base)
	if err != nil {
		return err
	}
	writeStartMessage(stdout, c, build.version, base, setupURL)
	return serveUntil(ctx, lns.servers(drainer.closeConnections(handler), deps.Metrics, opts.tlsConfig, logger, stdout), drainer, logger)
}

// serveOptions are serve's flags turned into what the server takes.
type serveOptions struct {
	rangeAccess    server.RangeAccess
	upstream       *server.Upstream
	trustedProxies []netip.Prefix
	sender         mailer.Sender // nil: codes go to the log
	serverKey      []byte        // nil: the key file's (loadServerKey)
	tlsConfig      *tls.Config   // nil: plain HTTP
}

// check checks the flags that need no disk but the TLS files, and sets the
// -registration default.
func (c *serveConfig) check() (serveOptions, error) {
	var o serveOptions
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return o, fmt.Errorf("%w: -tls-cert and -tls-key go together", ErrUsage)
	}
	var err error
	if o.rangeAccess, err = server.ParseRangeAccess(c.rangeAPI); err != nil {
		return o, fmt.Errorf("%w: -range-api: %v", ErrUsage, err)
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return o, fmt.Errorf("%w: -addr %q must be HOST:PORT, like 127.0.0.1:8080 or :8080", ErrUsage, c.addr)
	}
	if c.registration == "" {
		c.registration = defaultRegistration(c.addr)
	}
	if _, loopback := loopbackHost(c.pprofAddr); c.pprofAddr != "" && !loopback {
		return o, fmt.Errorf("%w: -pprof-addr must be a loopback address such as 127.0.0.1:6060: the profiler shows the program's memory", ErrUsage)
	}
	if c.accessLog != "on" && c.accessLog != "off" {
		return o, fmt.Errorf("%w: -access-log must be on or off", ErrUsage)
	}
	if c.hashLookupBatch < 1 || c.hashLookupBatch > server.MaxHashLookupBatch {
		return o, fmt.Errorf("%w: -hash-lookup-batch must be 1 to %d hashes, not %d", ErrUsage, server.MaxHashLookupBatch, c.hashLookupBatch)
	}
	if c.auditDumpSize < 1 || c.auditDumpSize > server.MaxAuditDumpBytes {
		return o, fmt.Errorf("%w: -audit-dump-size must be 1 byte to %s, not %s", ErrUsage, byteSize(server.MaxAuditDumpBytes), c.auditDumpSize)
	}
	if c.drain < 0 {
		return o, fmt.Errorf("%w: -drain must be a duration of 0 or more, such as 5s", ErrUsage)
	}
	if _, err := server.ParseRegistration(c.registration); err != nil {
		return o, fmt.Errorf("%w: -%v", ErrUsage, err) // -registration must be ...
	}
	if c.hashUpstream != "" {
		if u, err := url.Parse(c.hashUpstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, fmt.Errorf("%w: -hash-upstream must be an http(s) URL", ErrUsage)
		}
		o.upstream = &server.Upstream{BaseURL: c.hashUpstream}
	}
	if o.trustedProxies, err = parsePrefixes(c.trustedProxies); err != nil {
		return o, err
	}
	if c.smtpURL != "" {
		if o.sender, err = mailer.NewSMTP(c.smtpURL); err != nil {
			return o, fmt.Errorf("%w: -smtp-url: %v", ErrUsage, err)
		}
	}
	if o.serverKey, err = parseServerKey(c.serverKey); err != nil {
		return o, err
	}
	if c.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			return o, err
		}
		o.tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	return o, nil
}

// serverDeps are the server's dependencies that come from the flags and
// the sources; serve adds the assets, the store, the index, the logs and
// the rest.
func (c serveConfig) serverDeps(o serveOptions, src *sources) server.Deps {
	return server.Deps{
		LogFormat:        c.logFormat,
		AccessLogOff:     c.accessLog == "off",
		Mailer:           o.sender,
		SecureCookies:    c.tlsCert != "",
		TrustedProxies:   o.trustedProxies,
		AllowedHosts:     allowedHosts(c.allowedHosts, c.addr),
		ServerKey:        o.serverKey,
		IsCommonPassword: strength.IsCommon,
		Geo:              src.geo,
		HashUpstream:     o.upstream,
		Breach:           src.breaches.sha1,
		BreachNTLM:       src.breaches.ntlm,
		HashLookupBatch:  c.hashLookupBatch,
		AuditDumpBytes:   int64(c.auditDumpSize),
		Range:            server.RangeAPI{SHA1: src.breaches.sha1File, NTLM: src.breaches.ntlmFile, Access: o.rangeAccess},
		Metrics:          server.NewMetrics(),
		MetricsToken:     c.metricsToken,
		AdminToken:       c.adminToken,
		BillingSecret:    c.billingSecret,
		Registration:     c.registration,
	}
}

// background owns serve's goroutines other than the HTTP servers': the
// SIGHUP reloader, the sweeper and the outbox's workers. stop ends their
// context and waits for each to return.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// newBackground's work outlives ctx until stop, so that requests still
// finishing after a signal can hand work to it.
func newBackground(ctx context.Context) *background {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &background{ctx: ctx, cancel: cancel}
}

// Go runs f on a goroutine of its own until stop.
func (b *background) Go(f func(ctx context.Context)) { b.wg.Go(func() { f(b.ctx) }) }

func (b *background) stop() {
	b.cancel()
	b.wg.Wait()
}

// strayArgument refuses the arguments left after serve's flags: serve
// takes none, and "secutil serve 127.0.0.1:8081" must not serve on the
// default address. It suggests what the first one was probably meant as:
// the address, the database, or a command typed after flags meant for it.
func strayArgument(args []string) error {
	arg := args[0]
	err := fmt.Errorf("%w: secutil serve takes flags only, and was given the argument %q", ErrUsage, store.Describe(arg))
	var hint string
	_, port, splitErr := net.SplitHostPort(arg)
	switch {
	case splitErr == nil && port != "":
		hint = "-addr " + arg
	case strings.Trim(arg, "0123456789") == "" && len(arg) <= 5:
		hint = "-addr 127.0.0.1:" + arg
	case store.IsPostgres(arg) || strings.HasSuffix(arg, ".db") || strings.HasSuffix(arg, ".sqlite"):
		hint = "-db " + shellQuote(store.Describe(arg))
	case arg == "user" && len(args) > 1:
		hint = `"secutil user ` + args[1] + ` …" (a command comes before its flags)`
	case nearestCommand(arg) != "":
		hint = `"secutil ` + nearestCommand(arg) + ` …" (a command comes before its flags)`
	}
	if hint != "" {
		return fmt.Errorf("%w; did you mean %s?", err, hint)
	}
	return err
}

// billing checks the secrets and the billing settings and returns the
// checkout provider, nil when none is configured.
func (c serveConfig) billing() (server.CheckoutProvider, error) {
	for name, secret := range map[string]string{"-admin-token": c.adminToken, "-billing-secret": c.billingSecret, "-metrics-token": c.metricsToken} {
		if secret != "" && len(secret) < minSecretLen {
			return nil, fmt.Errorf("%w: %s must be at least %d characters (try: openssl rand -hex 32)", ErrUsage, name, minSecretLen)
		}
	}
	if c.checkoutURL == "" {
		return nil, nil
	}
	checkout, err := server.NewTemplateCheckout(c.checkoutURL)
	if err != nil {
		return nil, fmt.Errorf("%w: -checkout-url: %v", ErrUsage, err)
	}
	return checkout, nil
}
