// Command secutil serves the Security and Password Utility API, its web
// dashboard and docs from one binary on an embedded SQLite file.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"embed"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/tools/breach"
	"secutil/tools/geo"
	"secutil/tools/mailer"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
	"secutil/tools/seal"
	"secutil/tools/strength"
)

// assets are the web pages' templates and static files (CSS, JS, icon and
// the OpenAPI document), built into the binary so it needs no files beside it.
//
//go:embed templates static
var assets embed.FS

// version is set by a release build with -ldflags "-X main.version=...";
// otherwise it is the module version Go recorded, or the API version + "-dev".
var version string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0) // -h: the flags were printed, as asked
		}
		fmt.Fprintln(os.Stderr, "secutil:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage error")

const usage = `secutil: a self-hosted security and password utility API

Usage:
  secutil [serve] [flags]          serve the API, dashboard and docs (default)
  secutil user add -email E -password P|- [-plan starter|pro|enterprise] [-admin]
  secutil backup [-db FILE] DEST   write a consistent copy of the database to DEST
  secutil import-wordlist [-algorithms md5,sha1,sha256,sha512,ntlm] FILE|-
                                   add a wordlist (one word a line) to the reverse hash lookup index
  secutil geoip [-geoip-city F] [-geoip-asn F] [-geoip-isp F] [-geoip-embedded=false]
                                   list the GeoIP databases /ip_info would use: type, build date,
                                   record count, licence
  secutil version

Every flag can also be given as an environment variable: -db is SECUTIL_DB,
-smtp-url is SECUTIL_SMTP_URL, and so on. Run "secutil serve -h" for the flags.
`

// run is the whole program, with its environment passed in so tests can
// drive it without a process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd, rest := "serve", args[1:]
	if len(rest) > 0 && (!strings.HasPrefix(rest[0], "-") || isHelpFlag(rest[0])) {
		cmd, rest = rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "user":
		if len(rest) == 0 || rest[0] != "add" {
			return fmt.Errorf("%w: secutil user add -email E -password P", errUsage)
		}
		return userAdd(ctx, rest[1:], getenv, stdin, stdout, stderr)
	case "backup":
		return backup(ctx, rest, getenv, stdout, stderr)
	case "import-wordlist":
		return importWordlist(ctx, rest, getenv, stdin, stdout, stderr)
	case "geoip":
		return geoipInfo(rest, getenv, stdout, stderr)
	case "version":
		b := readBuildInfo()
		commit := b.commit
		if b.modified {
			commit += " (with uncommitted changes)"
		}
		fmt.Fprintf(stdout, "secutil %s\ncommit  %s\ndate    %s\napi     %s\ngo      %s\n", b.version, commit, b.date, server.APIVersion, b.goVersion)
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
	}
}

// isHelpFlag tells a request for the overview (secutil -h) from the first
// flag of the default serve command (secutil -addr :8080).
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// parseFlags parses args, then fills every flag not given on the command
// line from its environment variable (SECUTIL_ + the name in capitals, '-'
// as '_').
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := "SECUTIL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" && !given[f.Name] && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%w: %s=%q: %v", errUsage, env, v, e)
			}
		}
	})
	return err
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("secutil "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

type serveConfig struct {
	addr, db, smtpURL, tlsCert, tlsKey, logFormat, serverKey string
	hashDB, hashUpstream                                     string
	breachFile, breachFileNTLM, rangeAPI                     string
	geo                                                      geo.Config
	adminToken, billingSecret, checkoutURL                   string
	trustedProxies, allowedHosts                             string
	metricsToken, metricsAddr                                string
}

// minSecretLen is the shortest -admin-token or -billing-secret accepted:
// either one is a password that is never rate limited.
const minSecretLen = 24

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c serveConfig
	fs := newFlagSet("serve", stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.db, "db", "secutil.db", "SQLite database file (created when missing)")
	fs.StringVar(&c.smtpURL, "smtp-url", "", "SMTP relay for verification codes, smtp://user:pass@host:587?from=addr (default: codes go to the log)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate file (serve HTTPS; cookies become Secure)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS private key file")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.serverKey, "server-key", "", "32-byte key (64 hex characters) that seals client IPs in the audit log and keys the hashes of verification codes (default: one generated and kept in a file beside -db, secutil-server.key, mode 0600; prefer SECUTIL_SERVER_KEY)")
	geoFlags(fs, &c.geo)
	fs.StringVar(&c.hashDB, "hash-db", "", "reverse hash lookup index (default: beside -db, e.g. secutil-hashes.db)")
	fs.StringVar(&c.breachFile, "breach-file", "", "Pwned Passwords SHA-1 file (HASH:COUNT lines sorted by hash) for /data_breach; see docs/BREACH.md (default: the embedded common-password list)")
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
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	checkout, err := c.billing()
	if err != nil {
		return err
	}
	logger, err := newLogger(c.logFormat, stderr)
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
	go reloadOnHangup(ctx, locator, logger)

	st, err := store.Open(ctx, c.db)
	if err != nil {
		return err
	}
	defer st.Close()
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
	})
	if err != nil {
		return err
	}
	srv := newHTTPServer(handler, logger)
	srv.ConnState = metrics.ConnState
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if c.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			ln.Close()
			return err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	servers := []*http.Server{srv}
	errc := make(chan error, 2)
	if c.metricsAddr != "" {
		mln, err := net.Listen("tcp", c.metricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("-metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		msrv := newHTTPServer(mux, logger)
		servers = append(servers, msrv)
		fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", mln.Addr())
		go func() { errc <- msrv.Serve(mln) }()
	}
	fmt.Fprintf(stdout, "secutil %s listening on %s://%s (database %s)\n", build.version, scheme, ln.Addr(), c.db)
	logger.Info("listening", "addr", ln.Addr().String(), "db", c.db)
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

// newHTTPServer has the timeouts every listener gets. Slow-client
// protection: a client may not hold a connection open by trickling headers
// or a body, nor keep an idle one forever.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// buildInfo describes the running binary.
type buildInfo struct {
	version, commit, date, goVersion string
	modified                         bool // built from a tree with uncommitted changes
}

// readBuildInfo reads what Go recorded in the binary: the module version,
// and the commit, its time and the tree's state when built in a git
// checkout (-buildvcs, on by default).
func readBuildInfo() buildInfo {
	info, _ := debug.ReadBuildInfo()
	return describeBuild(info, version)
}

func describeBuild(info *debug.BuildInfo, ldflagsVersion string) buildInfo {
	b := buildInfo{version: ldflagsVersion, commit: "unknown", date: "unknown", goVersion: runtime.Version()}
	if info != nil {
		if b.version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.version = info.Main.Version
		}
		b.goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.commit = s.Value
			case "vcs.time":
				b.date = s.Value
			case "vcs.modified":
				b.modified = s.Value == "true"
			}
		}
	}
	if b.version == "" {
		b.version = server.APIVersion + "-dev"
	}
	return b
}

// sweepInterval is how often serve deletes expired sessions and codes.
const sweepInterval = 5 * time.Minute

// sweepExpired deletes expired sessions and verification codes at once and
// then every interval until ctx ends. Neither is accepted once expired; the
// sweep keeps the tables from growing with every login and every code sent.
func sweepExpired(ctx context.Context, st *store.Store, interval time.Duration, logger *slog.Logger) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		sessions, err := st.DeleteExpiredSessions(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("sweeping expired sessions", "err", err)
		}
		codes, err := st.DeleteExpiredCodes(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("sweeping expired codes", "err", err)
		}
		if sessions+codes > 0 {
			logger.Info("swept expired rows", "sessions", sessions, "codes", codes)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// hashDBPath is the index file beside the main database: secutil.db →
// secutil-hashes.db.
func hashDBPath(given, db string) string {
	if given != "" {
		return given
	}
	return besideDB(db, "-hashes.db")
}

// besideDB names a file beside the database: secutil.db → secutil<suffix>.
func besideDB(db, suffix string) string {
	return strings.TrimSuffix(db, filepath.Ext(db)) + suffix
}

// openHashIndex opens the reverse-lookup index and, on first start (or when
// the embedded list changed), fills it from the common-password list.
func openHashIndex(ctx context.Context, given, db string) (*hashindex.Index, error) {
	ix, err := hashindex.Open(hashDBPath(given, db))
	if err != nil {
		return nil, err
	}
	if err := ix.EnsureSeeded(ctx, strength.CommonPasswords()); err != nil {
		ix.Close()
		return nil, fmt.Errorf("seeding the hash index: %w", err)
	}
	return ix, nil
}

func importWordlist(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("import-wordlist", stderr)
	db := fs.String("db", "secutil.db", "SQLite database file (locates the index beside it)")
	hashDB := fs.String("hash-db", "", "reverse hash lookup index (default: beside -db)")
	algorithms := fs.String("algorithms", strings.Join(hashindex.Algorithms, ","), "comma-separated algorithms to index")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: secutil import-wordlist [-algorithms md5,sha1,...] FILE (or - for standard input)", errUsage)
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	ix, err := hashindex.Open(hashDBPath(*hashDB, *db))
	if err != nil {
		return err
	}
	defer ix.Close()
	// An import holds a few batches of about 45 MB at once; without a limit the garbage
	// collector lets the heap grow to twice that before it collects.
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(importMemoryLimit)
	}
	size := int64(-1) // of the input, for the ETA, when it is a regular file
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	// On a terminal the progress line is rewritten in place after every batch; into a
	// file or pipe, a line every 10 seconds.
	terminal := isTerminal(stderr)
	var printed time.Time
	stats, err := ix.Import(ctx, in, strings.Split(*algorithms, ","), func(p hashindex.Progress) {
		switch {
		case terminal:
			fmt.Fprintf(stderr, "\r%s\x1b[K", progressLine(p, size))
		case time.Since(printed) >= 10*time.Second:
			fmt.Fprintln(stderr, progressLine(p, size))
			printed = time.Now()
		}
	})
	if terminal {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		var unknown *hashindex.UnknownAlgorithmError
		if errors.As(err, &unknown) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	fmt.Fprintf(stdout, "imported %d words (%d new, %d skipped) as %d index entries in %s\n",
		stats.Words, stats.NewWords, stats.Skipped, stats.Entries, stats.Duration.Round(time.Millisecond))
	return nil
}

// importMemoryLimit is the heap size at which an import's garbage collector works harder,
// to keep its peak memory under 1 GiB.
const importMemoryLimit = 640 << 20

// progressLine reports an import's progress: words read, new words, entries added, the
// rate, and when the input's size is known, the share read and the time left at that rate.
func progressLine(p hashindex.Progress, size int64) string {
	seconds := max(p.Duration.Seconds(), 1e-9)
	line := fmt.Sprintf("%d words, %d new, %d entries, %.0f words/s", p.Words, p.NewWords, p.Entries, float64(p.Words)/seconds)
	if size > 0 && p.Bytes > 0 {
		left := time.Duration(float64(size-p.Bytes) / (float64(p.Bytes) / seconds) * float64(time.Second))
		line += fmt.Sprintf(", %.1f%%, ETA %s", 100*float64(p.Bytes)/float64(size), left.Round(time.Second))
	}
	return line
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// breachSources answer /data_breach; the files, when given, also GET /range.
type breachSources struct {
	sha1, ntlm         breach.Source
	sha1File, ntlmFile *breach.File
}

// openBreachSources opens the Pwned Passwords files given; without a SHA-1
// file, the embedded common-password list answers /data_breach (with count
// 0: unknown) and GET /range has no SHA-1 answers.
func openBreachSources(sha1Path, ntlmPath string) (b breachSources, closeAll func(), err error) {
	closeAll = func() {
		for _, f := range []*breach.File{b.sha1File, b.ntlmFile} {
			if f != nil {
				f.Close()
			}
		}
	}
	if sha1Path == "" {
		b.sha1 = breach.NewListSource("embedded common-password list", strength.CommonPasswords(), breach.KindSHA1)
	} else if b.sha1File, err = breach.OpenFile(sha1Path, breach.KindSHA1); err != nil {
		return b, closeAll, fmt.Errorf("-breach-file: %w", err)
	} else {
		b.sha1 = breach.NewFileSource(b.sha1File)
	}
	if ntlmPath != "" {
		if b.ntlmFile, err = breach.OpenFile(ntlmPath, breach.KindNTLM); err != nil {
			closeAll()
			return b, closeAll, fmt.Errorf("-breach-file-ntlm: %w", err)
		}
		b.ntlm = breach.NewFileSource(b.ntlmFile)
	}
	return b, closeAll, nil
}

// reloadOnHangup reopens the GeoIP databases on SIGHUP, after an operator
// replaced them (they are also reloaded when their files change).
func reloadOnHangup(ctx context.Context, locator *geo.Locator, logger *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := locator.Reload(); err != nil {
				logger.Error("reloading GeoIP databases; keeping the old ones", "err", err)
			} else {
				logger.Info("reloaded GeoIP databases")
				warnStaleGeoIP(locator, logger)
			}
		}
	}
}

// parseServerKey decodes -server-key; nil when none was given.
func parseServerKey(given string) ([]byte, error) {
	if given == "" {
		return nil, nil
	}
	key, err := decodeServerKey(given)
	if err != nil {
		return nil, fmt.Errorf("%w: -server-key %v", errUsage, err)
	}
	return key, nil
}

func decodeServerKey(text string) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(text))
	if err != nil || len(key) != seal.KeySize {
		return nil, fmt.Errorf("must be %d bytes as %d hex characters", seal.KeySize, 2*seal.KeySize)
	}
	return key, nil
}

// parsePrefixes reads -trusted-proxies: CIDRs, or addresses standing for
// themselves.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			addr, addrErr := netip.ParseAddr(item)
			if addrErr != nil {
				return nil, fmt.Errorf("%w: -trusted-proxies: %q is not a CIDR or an IP address", errUsage, item)
			}
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// allowedHosts is -allowed-hosts as a list. Without one, a server listening
// on loopback answers only to loopback names and its listen address, which
// a DNS-rebinding page cannot send; one listening elsewhere answers any Host.
func allowedHosts(given, listen string) []string {
	if given != "" {
		return strings.Split(given, ",")
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil
	}
	if addr, err := netip.ParseAddr(host); (err != nil || !addr.IsLoopback()) && host != "localhost" {
		return nil
	}
	return []string{"localhost", "127.0.0.1", "::1", host}
}

// serverKeyFile is where the generated server key lives: beside the
// database (secutil.db → secutil-server.key), never in it, so a copy of
// the database does not open the IPs sealed in its audit log.
func serverKeyFile(db string) string { return besideDB(db, "-server.key") }

// settings is where earlier versions kept the server key (*store.Store).
type settings interface {
	Setting(ctx context.Context, name string) ([]byte, error)
	DeleteSetting(ctx context.Context, name string) error
}

// moveServerKeyOut moves a server key that earlier versions kept in the
// database into the key file. The file is written before the database's
// copy is deleted, so an interruption loses nothing.
func moveServerKeyOut(ctx context.Context, st settings, path string) error {
	inDB, err := st.Setting(ctx, "server_key")
	if err != nil || inDB == nil {
		return err
	}
	inFile, err := readKeyFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := writeKeyFile(path, inDB); err != nil {
			return err
		}
	case err != nil:
		return err
	case !bytes.Equal(inFile, inDB):
		return fmt.Errorf("the database holds a server key that differs from the one in %s: sealed audit IPs open only with the key that sealed them, so secutil will not pick one; move %s aside to keep the database's", path, path)
	}
	return st.DeleteSetting(ctx, "server_key")
}

// fileServerKey reads the key file, creating it with a new random key on
// first start.
func fileServerKey(path string) ([]byte, error) {
	key, err := readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key = make([]byte, seal.KeySize)
	rand.Read(key)
	err = writeKeyFile(path, key)
	if errors.Is(err, fs.ErrExist) {
		return readKeyFile(path) // another secutil on this database made it first
	}
	return key, err
}

// readKeyFile reads a key file, refusing one that others may read.
func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("server key file %s is open to other users (mode %v): chmod 600 it", path, info.Mode().Perm())
	}
	text, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return nil, err
	}
	key, err := decodeServerKey(string(text))
	if err != nil {
		return nil, fmt.Errorf("server key file %s: %v", path, err)
	}
	return key, nil
}

// writeKeyFile creates a key file readable by its owner only; it fails with
// fs.ErrExist when there is one.
func writeKeyFile(path string, key []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, hex.EncodeToString(key))
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(path) // a partial key file would stop the next start
	}
	return err
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

func userAdd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("user add", stderr)
	db := fs.String("db", "secutil.db", "SQLite database file")
	email := fs.String("email", "", "the account's email")
	password := fs.String("password", "", `the account's password, or "-" to read one line from standard input (keeps it out of the process list)`)
	plan := fs.String("plan", store.PlanStarter, "starter, pro or enterprise")
	admin := fs.Bool("admin", false, "make the account an administrator")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if *password == "-" {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		*password = strings.TrimRight(line, "\r\n")
	}
	switch {
	case *email == "" || *password == "":
		return fmt.Errorf("%w: -email and -password are required", errUsage)
	case !store.ValidPlan(*plan):
		return fmt.Errorf("%w: -plan must be starter, pro or enterprise", errUsage)
	}
	if err := passpolicy.Check(*password, *email, strength.IsCommon); err != nil {
		return err
	}
	hash, err := passhash.Hash(*password, passhash.Default)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := st.CreateAccount(ctx, store.NewAccount{Email: *email, PasswordHash: hash, Plan: *plan, Verified: true, Admin: *admin})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created account %d for %s (plan %s, admin %v)\n", id, *email, *plan, *admin)
	return nil
}

func backup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", stderr)
	db := fs.String("db", "secutil.db", "SQLite database file")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: secutil backup [-db FILE] DEST", errUsage)
	}
	dest := fs.Arg(0)
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s exists; refusing to overwrite it", dest)
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(ctx, dest); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", *db, dest)
	return nil
}
