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
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"secutil/server"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/tools/apikey"
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

// commandFunc runs one command with its arguments (after its name).
type commandFunc func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error

// command is one command of the command line, as the overview lists it.
type command struct {
	name    string // as typed: "serve", "user add"
	summary string // its line in the overview
	run     commandFunc
}

// commands is the command line. (A function, not a variable: help lists
// the table that holds it.)
func commands() []command {
	return []command{
		{"serve", "serve the API, dashboard and docs (the default command)", serve},
		{"user add", "create a verified account: -email E [-password -] [-plan P] [-admin]", userAdd},
		{"user list", "list the accounts: id, email, plan, admin, verified, usage this month, created", userList},
		{"user set", "change an account: EMAIL [-plan P] [-admin=true|false] [-verified=true] [-disabled=true|false]", userSet},
		{"user passwd", "set an account's password: EMAIL (read from a prompt or standard input)", userPasswd},
		{"user delete", "delete an account with its keys, sessions and usage: EMAIL [-yes]", userDelete},
		{"backup", "write a consistent copy of the database, safe while serving: [-db FILE] DEST", backup},
		{"migrate-store", "copy every row into a new, empty database in one transaction: -from secutil.db -to postgres://user@host/db", migrateStore},
		{"import-wordlist", "add a wordlist (one word a line) to the reverse hash lookup index: FILE|-", importWordlist},
		{"geoip", "list the GeoIP databases /ip_info would use: type, build date, records, licence", geoip},
		{"version", "print the version, commit, commit date, API and Go versions (also -version, --version)", printVersion},
		{"help", "print this overview (also -h and --help)", help},
	}
}

const overviewHead = `secutil: a self-hosted security and password utility API

Usage: secutil [command] [flags]

Commands:
`

const overviewFoot = `
Run "secutil COMMAND -h" for a command's flags. Environment variables set
serve's flags: -db is SECUTIL_DB, -smtp-url is SECUTIL_SMTP_URL, and so on.
The other commands read only those of the flags they share with serve, such
as SECUTIL_DB; never their own, such as -admin.
`

// writeOverview lists the commands whose names start with prefix.
func writeOverview(w io.Writer, prefix string) {
	if prefix == "" {
		io.WriteString(w, overviewHead)
	}
	for _, cmd := range commands() {
		if strings.HasPrefix(cmd.name, prefix) {
			fmt.Fprintf(w, "  %-16s %s\n", cmd.name, cmd.summary)
		}
	}
	if prefix == "" {
		io.WriteString(w, overviewFoot)
	}
}

func geoip(_ context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	return geoipInfo(args, getenv, stdout, stderr)
}

func help(_ context.Context, _ []string, _ func(string) string, _ io.Reader, stdout, _ io.Writer) error {
	writeOverview(stdout, "")
	return nil
}

func printVersion(_ context.Context, args []string, _ func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	b := readBuildInfo()
	commit := b.commit
	if b.modified {
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(stdout, "secutil %s\ncommit  %s\ndate    %s\napi     %s\ngo      %s\n", b.version, commit, b.date, server.APIVersion, b.goVersion)
	return nil
}

// run is the whole program, with its environment passed in so tests can
// drive it without a process. With no command, or flags first, it serves.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	rest := args[1:]
	name := "serve"
	switch {
	case len(rest) == 0:
	case isHelpFlag(rest[0]):
		name, rest = "help", rest[1:]
	case rest[0] == "-version" || rest[0] == "--version":
		name, rest = "version", rest[1:]
	case !strings.HasPrefix(rest[0], "-"):
		name, rest = rest[0], rest[1:]
	}
	if name == "user" {
		if len(rest) == 0 || isHelpFlag(rest[0]) {
			return userOverview(rest, stdout, stderr)
		}
		name, rest = "user "+rest[0], rest[1:]
	}
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd.run(ctx, rest, getenv, stdin, stdout, stderr)
		}
	}
	if near := nearestCommand(name); near != "" {
		return fmt.Errorf("%w: unknown command %q; did you mean \"secutil %s\"?", errUsage, name, near)
	}
	writeOverview(stderr, "")
	return fmt.Errorf("%w: unknown command %q", errUsage, name)
}

// userOverview answers "secutil user" (a usage error) and "secutil user -h".
func userOverview(rest []string, stdout, stderr io.Writer) error {
	if len(rest) == 0 {
		writeOverview(stderr, "user ")
		return fmt.Errorf("%w: secutil user needs a command: add, list, set, passwd or delete", errUsage)
	}
	writeOverview(stdout, "user ")
	return nil
}

// isHelpFlag tells a request for the overview (secutil -h) from the first
// flag of the default serve command (secutil -addr :8080).
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// nearestCommand suggests the command a mistyped name probably meant: a
// name or last word within a small edit distance, or a name it starts,
// so "sevre" finds serve, "lst" user list and "import" import-wordlist.
func nearestCommand(typed string) string {
	best, bestDistance := "", 3
	for _, cmd := range commands() {
		words := strings.Fields(cmd.name)
		// A group's own name ("usr" for user) suggests the group, whose
		// overview lists its commands.
		for _, c := range [][2]string{{cmd.name, cmd.name}, {words[len(words)-1], cmd.name}, {words[0], words[0]}} {
			candidate, suggestion := c[0], c[1]
			d := editDistance(typed, candidate)
			if len(typed) >= 3 && strings.HasPrefix(candidate, typed) {
				d = 1
			}
			if limit := min(2, len(candidate)/3); d <= limit && d < bestDistance {
				best, bestDistance = suggestion, d
			}
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// flagError is a parse error of a command's flags: -h is flag.ErrHelp
// (exit 0: the flags were printed, as asked); anything else a usage error.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

// isServeFlag reports whether serve has a flag called name: only those
// flags are set by environment variables.
func isServeFlag(name string) bool {
	return newServeFlags(&serveConfig{}, io.Discard).Lookup(name) != nil
}

// parseFlags parses args, then fills every flag not given on the command
// line that serve also has from its environment variable (SECUTIL_ + the
// name in capitals, '-' as '_'). A variable naming one of the command's
// own flags is ignored, with a warning: SECUTIL_ADMIN=true must not make
// "secutil user add" create an administrator behind the operator's back.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := "SECUTIL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v := getenv(env)
		switch {
		case v == "" || given[f.Name] || err != nil:
		case !isServeFlag(f.Name):
			fmt.Fprintf(fs.Output(), "secutil: ignoring %s: environment variables set serve's flags only; give -%s on the command line\n", env, f.Name)
		default:
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%w: %s=%q: %v", errUsage, env, v, e)
			}
		}
	})
	return err
}

// newFlagSet makes the flag set of the command called name; its -h says
// what the command does, with the overview's line, then lists the flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("secutil "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, cmd := range commands() {
			if cmd.name == name {
				fmt.Fprintf(fs.Output(), "secutil %s: %s\n\n", name, cmd.summary)
			}
		}
		fmt.Fprintln(fs.Output(), "Flags:")
		fs.PrintDefaults()
	}
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
	pprofAddr                                                string
	registration                                             string
}

// minSecretLen is the shortest -admin-token or -billing-secret accepted:
// either one is a password that is never rate limited.
const minSecretLen = 24

// defaultDB is the database file when -db is not given.
const defaultDB = "secutil.db"

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

// profiler serves net/http/pprof's handlers on a mux of its own, never
// the API's: -pprof-addr is a separate listener, on loopback only.
func profiler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
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

// defaultRegistration is open on a loopback address, where only this
// machine can register, and closed on any other.
func defaultRegistration(addr string) string {
	if _, loopback := loopbackHost(addr); loopback {
		return server.RegistrationOpen
	}
	return server.RegistrationClosed
}

// loopbackHost is the host of a listen address, and whether it is a
// loopback name or address, which only this machine can reach.
func loopbackHost(listen string) (host string, loopback bool) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "", false
	}
	addr, err := netip.ParseAddr(host)
	return host, host == "localhost" || (err == nil && addr.IsLoopback())
}

// browsableAddr is the listening address as a browser on this machine
// reaches it: an unspecified address (":8080", "0.0.0.0") as 127.0.0.1.
func browsableAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// newSetupURL makes the one-time setup link of a database without an
// administrator, storing its token's hash (a later start makes a new one);
// "" when an administrator exists.
func newSetupURL(ctx context.Context, st *store.Store, base string) (string, error) {
	if has, err := st.HasAdmin(ctx); err != nil || has {
		return "", err
	}
	token := apikey.NewToken()
	if err := st.SetSetupToken(ctx, apikey.Hash(token)); err != nil {
		return "", err
	}
	return base + "/setup?token=" + token, nil
}

// writeStartMessage tells the operator, once, where the server listens,
// who may register, where codes go, and on a database without an
// administrator how to create the first one.
func writeStartMessage(w io.Writer, c serveConfig, version, base, setupURL string) {
	fmt.Fprintf(w, "secutil %s listening on %s (database %s); \"secutil help\" lists the other commands\n", version, base, store.Describe(c.db))
	switch c.registration {
	case server.RegistrationOpen:
		fmt.Fprintln(w, "Registration: open. Anyone who reaches this address can create an account (-registration closed or invite changes it).")
	case server.RegistrationClosed:
		fmt.Fprintln(w, "Registration: closed. Only operators create accounts, with secutil user add (-registration open or invite changes it).")
	case server.RegistrationInvite:
		fmt.Fprintln(w, "Registration: by invite. Administrators make invite links on the Admin page or with POST /boss/invites/create.")
	}
	if c.smtpURL == "" {
		fmt.Fprintln(w, "Mail: none (no -smtp-url). Verification and password-reset codes are written to this server's log (standard error).")
	}
	if setupURL == "" {
		return
	}
	dbFlag := ""
	if c.db != defaultDB {
		dbFlag = " -db " + shellQuote(store.Describe(c.db)) // a URL's password stays out of the log
	}
	fmt.Fprintf(w, `
This server has no administrator yet. Create the first one in a browser, with
this one-time link (it works until an administrator exists):

    %s

or on this machine:

    secutil user add%s -email you@example.com -admin

`, setupURL, dbFlag)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
// secutil-hashes.db. With PostgreSQL, each server keeps its own index in
// its working directory (secutil-hashes.db).
func hashDBPath(given, db string) string {
	if given != "" {
		return given
	}
	return besideDB(db, "-hashes.db")
}

// besideDB names a file beside the database: secutil.db → secutil<suffix>;
// for a PostgreSQL database, secutil<suffix> in the working directory.
func besideDB(db, suffix string) string {
	if store.IsPostgres(db) {
		return "secutil" + suffix
	}
	db = strings.TrimPrefix(db, "file:")
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
	db := fs.String("db", "secutil.db", "the database; an SQLite file locates the index beside it")
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
	host, loopback := loopbackHost(listen)
	if !loopback {
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

// userFlags are the flags every user command has, -db, and the parsing
// of the account's EMAIL, which comes before or after the flags.
func userFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := newFlagSet(name, stderr)
	return fs, fs.String("db", defaultDB, dbUsage)
}

// parseUserArgs parses a user command's flags and its one argument, the
// account's email, given before the flags or after them; it returns the
// email trimmed and checked like the API checks it.
func parseUserArgs(fs *flag.FlagSet, args []string, getenv func(string) string) (string, error) {
	var email string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		email, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, getenv); err != nil {
		return "", err
	}
	if email == "" && fs.NArg() == 1 {
		email = fs.Arg(0)
	} else if fs.NArg() > 0 || email == "" {
		return "", fmt.Errorf("%w: %s EMAIL [flags]: give one email", errUsage, fs.Name())
	}
	return checkEmail(email)
}

// checkEmail trims email and checks it as the API does.
func checkEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if err := server.CheckEmail(email); err != nil {
		return "", fmt.Errorf("%w: the email %q %v", errUsage, email, err)
	}
	return email, nil
}

// openExisting opens a database that must exist: the commands that change
// or copy accounts never create an empty one by mistake.
func openExisting(ctx context.Context, path string) (*store.Store, error) {
	if store.IsPostgres(path) {
		return store.Open(ctx, path)
	}
	if _, err := os.Stat(strings.TrimPrefix(path, "file:")); err != nil {
		return nil, fmt.Errorf("no database at %s (give -db, or set SECUTIL_DB): %w", path, err)
	}
	return store.Open(ctx, path)
}

// userAccount parses a user command's arguments (parseUserArgs), runs
// check on its flags if given, opens the existing database at path and
// finds the account the command names. path is the -db flag's value,
// read once the flags are parsed.
func userAccount(ctx context.Context, fs *flag.FlagSet, path *string, args []string, getenv func(string) string, check func() error) (*store.Store, *store.Account, error) {
	email, err := parseUserArgs(fs, args, getenv)
	if err == nil && check != nil {
		err = check()
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := openExisting(ctx, *path)
	if err != nil {
		return nil, nil, err
	}
	a, err := st.AccountByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		err = fmt.Errorf("no account has the email %s", email)
	}
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, a, nil
}

// byCommandLine is the detail of the audit events of the user commands.
const byCommandLine = "by the command line"

// auditCLI records what a user command did to the account a.
func auditCLI(ctx context.Context, st *store.Store, kind string, a *store.Account, detail string) error {
	return st.AddAudit(ctx, store.AuditEvent{Kind: kind, AccountID: a.ID, Email: a.Email, Detail: detail})
}

// changeByCLI makes a user command's change to the account a and records
// it as kind.
func changeByCLI(ctx context.Context, st *store.Store, kind string, a *store.Account, detail string, change func() error) error {
	if err := change(); err != nil {
		return err
	}
	return auditCLI(ctx, st, kind, a, detail)
}

// passwordPolicy is the account password policy of the command line: the
// embedded common-password list and, given -breach-file, the Pwned
// Passwords file serve uses.
func passwordPolicy(breachFile string) (passpolicy.Lists, func(), error) {
	lists := passpolicy.Lists{IsCommon: strength.IsCommon}
	if breachFile == "" {
		return lists, func() {}, nil
	}
	f, err := breach.OpenFile(breachFile, breach.KindSHA1)
	if err != nil {
		return lists, nil, fmt.Errorf("-breach-file: %w", err)
	}
	lists.Breached = func(password string) (int64, bool, error) { return f.Count(breach.SHA1(password)) }
	return lists, func() { f.Close() }, nil
}

// newPasswordHash reads a new password for email (from prompt or standard
// input, see readPassword), applies the policy and hashes it.
func newPasswordHash(email, given, breachFile string, stdin io.Reader, stderr io.Writer) (string, error) {
	password := given
	if given == "" || given == "-" {
		var err error
		if password, err = readPassword(stdin, stderr, "Password for "+email+": "); err != nil {
			return "", err
		}
	}
	lists, closeLists, err := passwordPolicy(breachFile)
	if err != nil {
		return "", err
	}
	defer closeLists()
	if err := passpolicy.Check(password, email, lists); err != nil {
		return "", err
	}
	return passhash.Hash(password, passhash.Default)
}

// readPassword asks for a password on a terminal, twice and without echo;
// otherwise it reads one line from standard input (a pipe or a file).
func readPassword(stdin io.Reader, stderr io.Writer, prompt string) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var typed [2]string
		for i, p := range []string{prompt, "Again: "} {
			fmt.Fprint(stderr, p)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(stderr)
			if err != nil {
				return "", err
			}
			typed[i] = string(b)
		}
		if typed[0] != typed[1] {
			return "", errors.New("the two passwords differ")
		}
		return typed[0], nil
	}
	line, err := readLine(stdin)
	if err != nil {
		return "", err
	}
	if line == "" {
		return "", fmt.Errorf("%w: no password: type it at the prompt, or send it on standard input", errUsage)
	}
	return line, nil
}

// readLine reads one line (without its end) from r, which may be nil.
func readLine(r io.Reader) (string, error) {
	if r == nil {
		return "", nil
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func userAdd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user add", stderr)
	email := fs.String("email", "", "the account's email")
	password := fs.String("password", "", `the account's password; "-" or nothing reads it from a prompt or one line of standard input, which keeps it out of the process list`)
	plan := fs.String("plan", store.PlanStarter, "starter, pro or enterprise")
	admin := fs.Bool("admin", false, "make the account an administrator")
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file whose passwords are refused, as serve -breach-file")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	switch {
	case *email == "":
		return fmt.Errorf("%w: -email is required", errUsage)
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected %q: secutil user add -email E [-password -] [-plan P] [-admin]", errUsage, fs.Arg(0))
	case !store.ValidPlan(*plan):
		return fmt.Errorf("%w: -plan must be starter, pro or enterprise", errUsage)
	}
	address, err := checkEmail(*email)
	if err != nil {
		return err
	}
	hash, err := newPasswordHash(address, *password, *breachFile, stdin, stderr)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := st.CreateAccount(ctx, store.NewAccount{Email: address, PasswordHash: hash, Plan: *plan, Verified: true, Admin: *admin})
	if err != nil {
		return err
	}
	a := &store.Account{ID: id, Email: address}
	if err := auditCLI(ctx, st, store.AuditRegistered, a, byCommandLine); err != nil {
		return err
	}
	if *admin {
		if err := auditCLI(ctx, st, store.AuditAdminGranted, a, byCommandLine); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "created account %d for %s (plan %s, admin %v)\n", id, address, *plan, *admin)
	return nil
}

func userList(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user list", stderr)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: secutil user list takes no arguments", errUsage)
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tADMIN\tVERIFIED\tDISABLED\tUSAGE THIS MONTH\tCREATED")
	now := st.Now()
	const page = 500
	for offset := 0; ; offset += page {
		accounts, err := st.Accounts(ctx, page, offset)
		if err != nil {
			return err
		}
		for _, a := range accounts {
			usage := strconv.Itoa(a.Usage)
			if limit := a.Cap(now); limit != nil {
				usage += " of " + strconv.Itoa(*limit)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Email, a.EffectivePlan(now),
				yesNo(a.Admin), yesNo(a.Verified), yesNo(a.Disabled), usage, a.CreatedAt.Format(time.DateOnly))
		}
		if len(accounts) < page {
			return tw.Flush()
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func userSet(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user set", stderr)
	plan := fs.String("plan", "", "the new plan: starter, pro or enterprise (a paid plan set by hand never expires)")
	admin := fs.Bool("admin", false, "-admin=true makes the account an administrator, -admin=false no longer")
	verified := fs.Bool("verified", false, "-verified=true marks the email verified, as the code would")
	disabled := fs.Bool("disabled", false, "-disabled=true stops the account's keys and sessions, -disabled=false lets them work again")
	given := map[string]bool{}
	check := func() error {
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		switch {
		case !given["plan"] && !given["admin"] && !given["verified"] && !given["disabled"]:
			return fmt.Errorf("%w: nothing to change: give -plan, -admin, -verified or -disabled", errUsage)
		case given["plan"] && !store.ValidPlan(*plan):
			return fmt.Errorf("%w: -plan must be starter, pro or enterprise", errUsage)
		case given["verified"] && !*verified:
			return fmt.Errorf("%w: an account cannot be made unverified; -disabled=true stops it", errUsage)
		}
		return nil
	}
	st, a, err := userAccount(ctx, fs, db, args, getenv, check)
	if err != nil {
		return err
	}
	defer st.Close()
	// Each change is made and audited on its own, in the order listed.
	changes := []struct {
		flag, kind string
		apply      func() error
	}{
		{"plan", store.AuditPlanChanged, func() error {
			usageCap := a.UsageCap
			if *plan != store.PlanEnterprise {
				usageCap = nil
			}
			return st.SetPlan(ctx, a.ID, *plan, nil, usageCap)
		}},
		{"admin", map[bool]string{true: store.AuditAdminGranted, false: store.AuditAdminRevoked}[*admin],
			func() error { return st.SetAdmin(ctx, a.ID, *admin) }},
		{"verified", store.AuditAccountVerified, func() error { return st.MarkVerified(ctx, a.ID) }},
		{"disabled", map[bool]string{true: store.AuditAccountDisabled, false: store.AuditAccountEnabled}[*disabled],
			func() error { return st.SetDisabled(ctx, a.ID, *disabled) }},
	}
	for _, ch := range changes {
		if !given[ch.flag] {
			continue
		}
		detail := byCommandLine
		if ch.flag == "plan" {
			detail = fmt.Sprintf("%s → %s, %s", a.Plan, *plan, byCommandLine)
		}
		if err := changeByCLI(ctx, st, ch.kind, a, detail, ch.apply); err != nil {
			return fmt.Errorf("-%s: %w", ch.flag, err)
		}
	}
	if a, err = st.AccountByID(ctx, a.ID); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: plan %s, admin %s, verified %s, disabled %s\n", a.Email, a.Plan, yesNo(a.Admin), yesNo(a.Verified), yesNo(a.Disabled))
	return nil
}

func userPasswd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user passwd", stderr)
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file whose passwords are refused, as serve -breach-file")
	revokeKeys := fs.Bool("revoke-keys", false, "also revoke every API key of the account, as after a leak")
	st, a, err := userAccount(ctx, fs, db, args, getenv, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	hash, err := newPasswordHash(a.Email, "", *breachFile, stdin, stderr)
	if err != nil {
		return err
	}
	if err := changeByCLI(ctx, st, store.AuditPasswordSet, a, byCommandLine, func() error { return st.SetPassword(ctx, a.ID, hash, *revokeKeys) }); err != nil {
		return err
	}
	revoked := ""
	if *revokeKeys {
		revoked = " and its API keys revoked"
	}
	fmt.Fprintf(stdout, "set the password of %s; its sessions were logged out%s\n", a.Email, revoked)
	return nil
}

func userDelete(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user delete", stderr)
	yes := fs.Bool("yes", false, "delete without asking")
	st, a, err := userAccount(ctx, fs, db, args, getenv, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if !*yes {
		fmt.Fprintf(stderr, "Delete %s with its API keys, sessions and usage? This cannot be undone. [y/N] ", a.Email)
		answer, err := readLine(stdin)
		if err != nil {
			return err
		}
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return errors.New("not deleted (answer y, or give -yes)")
		}
	}
	if err := changeByCLI(ctx, st, store.AuditAccountDeleted, a, byCommandLine, func() error { return st.DeleteAccount(ctx, a.ID) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deleted %s\n", a.Email)
	return nil
}

// dbUsage describes -db, for every command that takes it.
const dbUsage = "the database: an SQLite file (created when missing), or a postgres://user@host/db URL for PostgreSQL, which several servers can share"

// migrateStore copies an install into a new, empty database, typically
// from SQLite to PostgreSQL when a second server is added.
func migrateStore(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate-store", stderr)
	from := fs.String("from", "", "the database to copy: an SQLite file, or a postgres:// URL")
	to := fs.String("to", "", "the new, empty database to copy into: a postgres:// URL, or an SQLite file")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	switch {
	case *from == "" || *to == "" || fs.NArg() > 0:
		return fmt.Errorf("%w: secutil migrate-store -from secutil.db -to postgres://user@host/db", errUsage)
	case *from == *to:
		return fmt.Errorf("%w: -from and -to are the same database", errUsage)
	}
	src, err := openExisting(ctx, *from) // rather than copy a new, empty file
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := store.Open(ctx, *to)
	if err != nil {
		return err
	}
	defer dst.Close()
	counts, err := store.Copy(ctx, src, dst)
	if err != nil {
		return err
	}
	var total int64
	for _, c := range counts {
		fmt.Fprintf(stdout, "%-20s %8d rows\n", c.Table, c.Rows)
		total += c.Rows
	}
	fmt.Fprintf(stdout, "copied %d rows from %s to %s; the row counts match\n", total, store.Describe(*from), store.Describe(*to))
	return nil
}

func backup(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", stderr)
	db := fs.String("db", defaultDB, dbUsage)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: secutil backup [-db FILE] DEST", errUsage)
	}
	dest := fs.Arg(0)
	if store.IsPostgres(*db) {
		fmt.Fprintf(stdout, "A PostgreSQL database is backed up with pg_dump, which copies one consistent snapshot while the servers keep running:\n\n"+
			"  pg_dump --format=custom --file=%s '%s'\n\n"+
			"and restored into a new, empty database with pg_restore --dbname=URL %[1]s.\n", dest, store.Describe(*db))
		if strings.Contains(store.Describe(*db), ":xxxxx@") {
			fmt.Fprintln(stdout, "The password is hidden: give pg_dump the real one, or set it in PGPASSWORD or ~/.pgpass.")
		}
		return errors.New("no backup written: use pg_dump as shown")
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s exists; refusing to overwrite it", dest)
	}
	st, err := openExisting(ctx, *db)
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
