// Command secutil serves the Security and Password Utility API, its web
// dashboard and docs from one binary on an embedded SQLite file.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"secutil/mailer"
	"secutil/server"
	"secutil/store"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = server.APIVersion + "-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
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
  secutil version

Every flag can also be given as an environment variable: -db is SECUTIL_DB,
-smtp-url is SECUTIL_SMTP_URL, and so on. Run "secutil serve -h" for the flags.
`

// run is the whole program, with its environment passed in so tests can
// drive it without a process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd, rest := "serve", args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
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
	case "version":
		fmt.Fprintf(stdout, "secutil %s (API %s, %s)\n", version, server.APIVersion, runtime.Version())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
	}
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
	addr, db, smtpURL, tlsCert, tlsKey, logFormat string
	adminToken, billingSecret, checkoutURL        string
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
	fs.StringVar(&c.adminToken, "admin-token", "", "token that opens /boss/* as \"Authorization: Bearer <token>\" (default: admin accounts' sessions only; prefer SECUTIL_ADMIN_TOKEN)")
	fs.StringVar(&c.billingSecret, "billing-secret", "", "HMAC secret of the billing webhook (default: webhook disabled; prefer SECUTIL_BILLING_SECRET)")
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

	st, err := store.Open(ctx, c.db)
	if err != nil {
		return err
	}
	defer st.Close()

	var sender mailer.Sender = mailer.Log{Logger: logger}
	if c.smtpURL != "" {
		if sender, err = mailer.NewSMTP(c.smtpURL); err != nil {
			return fmt.Errorf("%w: -smtp-url: %v", errUsage, err)
		}
	}

	handler := server.New(server.Deps{
		Store:         st,
		Logger:        logger,
		Mailer:        sender,
		Version:       version,
		SecureCookies: c.tlsCert != "",
		AdminToken:    c.adminToken,
		BillingSecret: c.billingSecret,
		Checkout:      checkout,
	})
	srv := &http.Server{
		Handler: handler,
		// Slow-client protection: a client may not hold a connection open by
		// trickling headers or a body, nor keep an idle one forever.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
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
	fmt.Fprintf(stdout, "secutil %s listening on %s://%s (database %s)\n", version, scheme, ln.Addr(), c.db)
	logger.Info("listening", "addr", ln.Addr().String(), "db", c.db)

	errc := make(chan error, 1)
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
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	return nil
}

// billing checks the billing and admin settings and returns the checkout
// provider, nil when none is configured.
func (c serveConfig) billing() (server.CheckoutProvider, error) {
	for name, secret := range map[string]string{"-admin-token": c.adminToken, "-billing-secret": c.billingSecret} {
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
	if err := passpolicy.Check(*password, *email, nil); err != nil {
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
