// Package cmd is secutil's command line. Package main hands it the
// embedded assets and the version, and turns the error it returns into the
// exit status.
//
// Each command lives in a file named as it is typed, with its test beside
// it: serve.go (with serve_*.go for what it wires up: listeners, sources,
// log, server key, sweep, start message, profiler), user.go (what the user
// commands share) with user_add.go, user_list.go, user_set.go,
// user_passwd.go and user_delete.go, import_wordlist.go, backup.go,
// migrate_store.go, geoip.go, version.go and help.go. This file holds the
// command table and Run, which dispatches to it; flags.go the flag and
// environment plumbing every command shares, db.go the -db flag and the
// files beside the database, prompt.go the password prompt, typo.go the
// suggestion for a mistyped command.
//
// The list commands, identify.go, check.go, lookup.go, audit.go and
// index.go, share lines.go: a file or standard input read in chunks of
// lines that a worker per core answers, written in input order.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"secutil/tools/passhash"
)

// Program is the command line, with what package main builds into the
// binary. Each command is a method of it; serve and version read these
// fields.
type Program struct {
	// Assets holds the web pages' templates/ and static/ files.
	Assets fs.FS
	// Version is the release's, set with -ldflags "-X main.version=...";
	// empty, version and serve give the module version Go recorded, or the
	// API version + "-dev".
	Version string
	// PasswordParams are the argon2id costs of the account passwords that
	// user add, user passwd, user set and serve hash; passhash.Default
	// when zero. Tests make them cheap: the cost changes no logic.
	PasswordParams passhash.Params
}

// ErrUsage marks a mistake in the invocation, which exits with status 2.
var ErrUsage = errors.New("usage error")

// commandFunc runs one command with its arguments (after its name).
type commandFunc func(p Program, ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error

// command is one command of the command line, as the overview lists it.
type command struct {
	name    string // as typed: "serve", "user add"
	summary string // its line in the overview
	run     commandFunc
}

// The causes of a command's context ended by a signal (context.Cause):
// serve drains on SIGTERM, a service manager's stop, and stops at once on
// an interrupt (Ctrl-C at a terminal).
var (
	errTerminated  = errors.New("SIGTERM received")
	errInterrupted = errors.New("interrupted")
)

// stopOnSignal runs cmd with a context that ends at an interrupt or
// SIGTERM, with errInterrupted or errTerminated as its cause, so a server
// drains and a long copy stops cleanly. version and help go without:
// installing the handlers is a measurable part of their start.
func stopOnSignal(cmd commandFunc) commandFunc {
	return func(p Program, ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
		ctx, cancel := context.WithCancelCause(ctx)
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
		var watching sync.WaitGroup
		watching.Go(func() {
			select {
			case s := <-signals:
				if s == syscall.SIGTERM {
					cancel(errTerminated)
				} else {
					cancel(errInterrupted)
				}
			case <-ctx.Done():
			}
		})
		defer watching.Wait()
		defer cancel(nil)
		defer signal.Stop(signals)
		return cmd(p, ctx, args, getenv, stdin, stdout, stderr)
	}
}

// commands is the command line. (A function, not a variable: help lists
// the table that holds it.)
func commands() []command {
	return []command{
		{"serve", "serve the API, dashboard and docs (the default command)", stopOnSignal(Program.serve)},
		{"user add", "create a verified account: EMAIL [-password -] [-plan P] [-admin]", stopOnSignal(Program.userAdd)},
		{"user list", "list the accounts: id, email, plan, admin, verified, disabled, usage this month, created, cap, paid until", stopOnSignal(Program.userList)},
		{"user set", "change an account: EMAIL [-plan P] [-usage-cap N] [-paid-until DATE] [-admin=true|false] [-verified=true] [-disabled=true|false] [-password -]", stopOnSignal(Program.userSet)},
		{"user passwd", "set an account's password: EMAIL (read from a prompt or standard input)", stopOnSignal(Program.userPasswd)},
		{"user delete", "delete an account with its keys, sessions and codes (its monthly usage is kept): EMAIL [-yes]", stopOnSignal(Program.userDelete)},
		{"backup", "write a consistent copy of the database, safe while serving: [-db FILE] DEST", stopOnSignal(Program.backup)},
		{"migrate-store", "copy every row into a new, empty database in one transaction: -from secutil.db -to postgres://user@host/db", stopOnSignal(Program.migrateStore)},
		{"identify", "name the hash on each line of FILE or standard input: best candidate, hashcat mode, John format, confidence", stopOnSignal(Program.identify)},
		{"check", "rate the passwords of FILE or standard input, one a line: strength, entropy, common, breached [-breach-file F] [-min-score N]", stopOnSignal(Program.check)},
		{"lookup", "look the hashes of FILE or standard input up in the reverse hash lookup index", stopOnSignal(Program.lookup)},
		{"audit", "audit the passwords of a credential dump (pwdump, secretsdump, user:hash, shadow): DUMP|- [-breach-file-ntlm F]", stopOnSignal(Program.audit)},
		{"import-wordlist", "add a wordlist (one word a line) to the reverse hash lookup index: FILE|-", stopOnSignal(Program.importWordlist)},
		{"index", "show what the reverse hash lookup index holds: words, entries per algorithm, lists imported, size on disk", stopOnSignal(Program.index)},
		{"geoip", "list the GeoIP databases /ip_info would use: type, build date, records, licence", stopOnSignal(Program.geoip)},
		{"version", "print the version, commit, commit date, API and Go versions (also -version, --version)", Program.printVersion},
		{"help", "print this overview (also -h and --help)", Program.help},
	}
}

// Run is the whole program, with its environment passed in so tests can
// drive it without a process: args are os.Args, command name first. With
// no command, or flags first, it serves. -h is flag.ErrHelp (the flags
// were printed, as asked); a mistake in the invocation wraps ErrUsage.
func (p Program) Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
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
			return cmd.run(p, ctx, rest, getenv, stdin, stdout, stderr)
		}
	}
	if near := nearestCommand(name); near != "" {
		return fmt.Errorf("%w: unknown command %q; did you mean \"secutil %s\"?", ErrUsage, name, near)
	}
	writeOverview(stderr, "")
	return fmt.Errorf("%w: unknown command %q", ErrUsage, name)
}
