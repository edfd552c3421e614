package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"syscall"
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
	fs.StringVar(&c.serverKey, "server-key", "", "32-byte key (64 hex characters) that seals client IPs in the audit log and keys the hashes of verification codes (default: one generated and kept in a file beside -db, secutil-server.key, mode 0600; prefer SECUTIL_SERVER_KEY)")
	geoFlags(fs, &c.geo)
	fs.StringVar(&c.hashDB, "hash-db", "", "reverse hash lookup index (default: beside -db, e.g. secutil-hashes.db)")
	fs.StringVar(&c.breachFile, "breach-file", "", "Pwned Passwords SHA-1 file (HASH:COUNT lines sorted by hash) for /data_breach and the account password policy; see docs/BREACH.md (default: the embedded common-password list)")
	fs.StringVar(&c.breachFileNTLM, "breach-file-ntlm", "", "Pwned Passwords NTLM file, for /data_breach {\"ntlm\"} queries and GET /range/{prefix}?mode=ntlm")
	fs.StringVar(&c.rangeAPI, "range-api", "key", "who may call GET /range/{prefix}, the Pwned Passwords range API: key (a secutil key in X-API-Key or hibp-api-key), public or off")
	fs.StringVar(&c.hashUpstream, "hash-upstream", "", "base URL of another secutil whose /api/v1/hash_lookup_site is asked for local misses")
	fs.StringVar(&c.adminToken, "admin-token", "", "token that opens /boss/* as \"Authorization: Bearer <token>\" (default: admin accounts' sessions only; prefer SECUTIL_ADMIN_TOKEN)")
	fs.StringVar(&c.billingSecret, "billing-secret", "", "HMAC secret of the billing webhook (default: webhook disabled; prefer SECUTIL_BILLING_SECRET)")
	fs.StringVar(&c.trustedProxies, "trusted-proxies", "", "comma-separated CIDRs or addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (default: none, the headers are ignored)")
	fs.StringVar(&c.allowedHosts, "allowed-hosts", "", "comma-separated host names this server answers for; others get 421 (default: the loopback names and the listen address when listening on loopback, else any; \"*\" for any)")
	fs.StringVar(&c.metricsToken, "metrics-token", "", "token that opens GET /metrics as \"Authorization: Bearer <token>\" (default: /metrics is off on -addr; prefer SECUTIL_METRICS_TOKEN)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "address of a separate listener serving GET /metrics without a token, e.g. 127.0.0.1:9090 (default: none)")
	fs.StringVar(&c.checkoutURL, "checkout-url", "", "hosted-checkout URL template, e.g. https://pay.example/checkout?product={product_id}&email={email}&ref={ref} (default: no checkout)")
	fs.StringVar(&c.pprofAddr, "pprof-addr", "", "serve Go's profiler (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060 (default: off)")
	return fs
}

func serve(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	var c serveConfig
	if err := parseFlags(newServeFlags(&c, stderr), args, getenv); err != nil {
		return err
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
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return fmt.Errorf("%w: -tls-cert and -tls-key go together", errUsage)
	}
	rangeAccess, err := server.ParseRangeAccess(c.rangeAPI)
	if err != nil {
		return fmt.Errorf("%w: -range-api: %v", errUsage, err)
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return fmt.Errorf("%w: -addr %q must be HOST:PORT, like 127.0.0.1:8080 or :8080", errUsage, c.addr)
	}
	if c.registration == "" {
		c.registration = defaultRegistration(c.addr)
	}
	if _, loopback := loopbackHost(c.pprofAddr); c.pprofAddr != "" && !loopback {
		return fmt.Errorf("%w: -pprof-addr must be a loopback address such as 127.0.0.1:6060: the profiler shows the program's memory", errUsage)
	}
	if r := c.registration; r != server.RegistrationOpen && r != server.RegistrationClosed && r != server.RegistrationInvite {
		return fmt.Errorf("%w: -registration must be open, closed or invite", errUsage)
	}

	// Everything that can be checked without touching the disk is checked
	// first, so a mistyped flag never leaves a new database behind.
	var upstream *server.Upstream
	if c.hashUpstream != "" {
		if u, err := url.Parse(c.hashUpstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: -hash-upstream must be an http(s) URL", errUsage)
		}
		upstream = &server.Upstream{BaseURL: c.hashUpstream}
	}
	trustedProxies, err := parsePrefixes(c.trustedProxies)
	if err != nil {
		return err
	}
	var sender mailer.Sender = mailer.Log{Logger: logger}
	if c.smtpURL != "" {
		if sender, err = mailer.NewSMTP(c.smtpURL); err != nil {
			return fmt.Errorf("%w: -smtp-url: %v", errUsage, err)
		}
	}
	serverKey, err := parseServerKey(c.serverKey)
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	if c.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			return err
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	locator, err := openGeo(c.geo)
	if err != nil {
		return err
	}
	defer locator.Close()
	warnStaleGeoIP(locator, logger)
	breaches, closeBreach, err := openBreachSources(c.breachFile, c.breachFileNTLM)
	if err != nil {
		return err
	}
	defer closeBreach()
	// A busy port fails here, before the database is created. Connections
	// wait in the backlog until the server below is ready.
	ln, err := net.Listen("tcp", c.addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("-addr %s is in use (by another secutil?): stop it or choose another port: %w", c.addr, err)
	}
	if err != nil {
		return fmt.Errorf("-addr %s: %w", c.addr, err)
	}
	defer ln.Close()
	var metricsLn net.Listener
	if c.metricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", c.metricsAddr); err != nil {
			return fmt.Errorf("-metrics-addr: %w", err)
		}
		defer metricsLn.Close()
	}
	var pprofLn net.Listener
	if c.pprofAddr != "" {
		if pprofLn, err = net.Listen("tcp", c.pprofAddr); err != nil {
			return fmt.Errorf("-pprof-addr: %w", err)
		}
		defer pprofLn.Close()
	}
	scheme := "http"
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
		scheme = "https"
	}
	go reloadOnHangup(ctx, locator, logger)

	st, err := store.Open(ctx, c.db)
	if err != nil {
		return err
	}
	defer st.Close()
	st.SetLogger(logger) // a database outage is logged once, as a warning
	sweepCtx, stopSweeping := context.WithCancel(ctx)
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		sweepExpired(sweepCtx, st, sweepInterval, logger)
	}()
	defer func() { stopSweeping(); <-swept }() // runs before st.Close
	keyFile := serverKeyFile(c.db)
	if err := moveServerKeyOut(ctx, st, keyFile); err != nil {
		return err
	}
	if serverKey == nil {
		if serverKey, err = fileServerKey(keyFile); err != nil {
			return err
		}
	}
	hashes, err := openHashIndex(ctx, c.hashDB, c.db)
	if err != nil {
		return err
	}
	defer hashes.Close()

	build := readBuildInfo()
	metrics := server.NewMetrics()
	handler, err := server.New(server.Deps{
		Store:            st,
		Assets:           assets,
		Logger:           logger,
		AccessLog:        logOut,
		LogFormat:        c.logFormat,
		Mailer:           sender,
		Version:          build.version,
		SecureCookies:    c.tlsCert != "",
		TrustedProxies:   trustedProxies,
		AllowedHosts:     allowedHosts(c.allowedHosts, c.addr),
		ServerKey:        serverKey,
		IsCommonPassword: strength.IsCommon,
		Geo:              locator,
		Hashes:           hashes,
		HashUpstream:     upstream,
		Breach:           breaches.sha1,
		BreachNTLM:       breaches.ntlm,
		Range:            server.RangeAPI{SHA1: breaches.sha1File, NTLM: breaches.ntlmFile, Access: rangeAccess},
		Metrics:          metrics,
		MetricsToken:     c.metricsToken,
		AdminToken:       c.adminToken,
		BillingSecret:    c.billingSecret,
		Checkout:         checkout,
		Registration:     c.registration,
	})
	if err != nil {
		return err
	}
	srv := newHTTPServer(handler, logger)
	srv.ConnState = metrics.ConnState
	srv.TLSConfig = tlsConfig
	servers := []*http.Server{srv}
	errc := make(chan error, 2)
	base := scheme + "://" + browsableAddr(ln.Addr())
	setupURL, err := newSetupURL(ctx, st, base)
	if err != nil {
		return err
	}
	writeStartMessage(stdout, c, build.version, base, setupURL)
	if metricsLn != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		msrv := newHTTPServer(mux, logger)
		servers = append(servers, msrv)
		fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", metricsLn.Addr())
		go func() { errc <- msrv.Serve(metricsLn) }()
	}
	if pprofLn != nil {
		psrv := newHTTPServer(profiler(), logger)
		psrv.WriteTimeout = 0 // a CPU profile or trace streams for as long as it was asked to
		servers = append(servers, psrv)
		fmt.Fprintf(stdout, "profiler on http://%s/debug/pprof/\n", pprofLn.Addr())
		go func() { errc <- psrv.Serve(pprofLn) }()
	}
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Stop accepting, let in-flight requests finish (their usage commits
	// included), then close the database.
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Shutdown(shutdownCtx))
	}
	return errors.Join(errs...)
}

// billing checks the secrets and the billing settings and returns the
// checkout provider, nil when none is configured.
func (c serveConfig) billing() (server.CheckoutProvider, error) {
	for name, secret := range map[string]string{"-admin-token": c.adminToken, "-billing-secret": c.billingSecret, "-metrics-token": c.metricsToken} {
		if secret != "" && len(secret) < minSecretLen {
			return nil, fmt.Errorf("%w: %s must be at least %d characters (try: openssl rand -hex 32)", errUsage, name, minSecretLen)
		}
	}
	if c.checkoutURL == "" {
		return nil, nil
	}
	checkout, err := server.NewTemplateCheckout(c.checkoutURL)
	if err != nil {
		return nil, fmt.Errorf("%w: -checkout-url: %v", errUsage, err)
	}
	return checkout, nil
}

func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	default:
		return nil, fmt.Errorf("%w: -log-format must be text or json", errUsage)
	}
}
