// Command secutil serves the Security and Password Utility API, its web
// dashboard and docs from one binary on an embedded SQLite file.
//
// This file holds the dispatch and the overview ("secutil help"); each
// command lives in a file of its own: serve.go (with listen.go, sweep.go,
// startmessage.go, breach.go and serverkey.go for what it wires up),
// user.go (with password.go), index.go (import-wordlist), backup.go,
// migratestore.go, geoip.go and version.go. flags.go holds the flag and
// environment plumbing every command shares, db.go the -db flag and the
// files beside the database, suggest.go the typo suggestions.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
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
	if err := run(context.Background(), os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
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

// stopOnSignal runs cmd with a context that ends at an interrupt or
// SIGTERM, so a server drains and a long copy stops cleanly. version and
// help go without: installing the handlers is a measurable part of their
// start.
func stopOnSignal(cmd commandFunc) commandFunc {
	return func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cmd(ctx, args, getenv, stdin, stdout, stderr)
	}
}

// commands is the command line. (A function, not a variable: help lists
// the table that holds it.)
func commands() []command {
	return []command{
		{"serve", "serve the API, dashboard and docs (the default command)", stopOnSignal(serve)},
		{"user add", "create a verified account: -email E [-password -] [-plan P] [-admin]", stopOnSignal(userAdd)},
		{"user list", "list the accounts: id, email, plan, admin, verified, disabled, usage this month, created, cap, paid until", stopOnSignal(userList)},
		{"user set", "change an account: EMAIL [-plan P] [-usage-cap N] [-paid-until DATE] [-admin=true|false] [-verified=true] [-disabled=true|false] [-password -]", stopOnSignal(userSet)},
		{"user passwd", "set an account's password: EMAIL (read from a prompt or standard input)", stopOnSignal(userPasswd)},
		{"user delete", "delete an account with its keys, sessions and codes (its monthly usage is kept): EMAIL [-yes]", stopOnSignal(userDelete)},
		{"backup", "write a consistent copy of the database, safe while serving: [-db FILE] DEST", stopOnSignal(backup)},
		{"migrate-store", "copy every row into a new, empty database in one transaction: -from secutil.db -to postgres://user@host/db", stopOnSignal(migrateStore)},
		{"import-wordlist", "add a wordlist (one word a line) to the reverse hash lookup index: FILE|-", stopOnSignal(importWordlist)},
		{"geoip", "list the GeoIP databases /ip_info would use: type, build date, records, licence", stopOnSignal(geoip)},
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

func help(_ context.Context, _ []string, _ func(string) string, _ io.Reader, stdout, _ io.Writer) error {
	writeOverview(stdout, "")
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
