package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"secutil/server"
	"secutil/store"
	"secutil/tools/apikey"
)

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
// where its reverse-lookup index is when that is not beside an SQLite
// database, who may register, where codes go, and on a database without
// an administrator how to create the first one.
func writeStartMessage(w io.Writer, c serveConfig, version, base, setupURL string) {
	fmt.Fprintf(w, "secutil %s listening on %s (database %s); \"secutil help\" lists the other commands\n", version, base, store.Describe(c.db))
	if store.IsPostgres(c.db) {
		index := hashDBPath(c.hashDB, c.db)
		if abs, err := filepath.Abs(index); err == nil {
			index = abs
		}
		fmt.Fprintf(w, "Hash index: %s, this instance's own (each instance on the database keeps one; -hash-db says where).\n", index)
	}
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

    %s user add%s -email you@example.com -admin

`, setupURL, invokedAs(), dbFlag)
}

// goRun is how a command is run from the source, without a built binary.
const goRun = "go run ."

// invokedAs is how the operator ran this process, to give commands they
// can paste: commandName of the running process.
func invokedAs() string {
	exe, _ := os.Executable()
	return commandName(os.Args[0], exe)
}

// commandName is the command that runs secutil the way the process whose
// os.Args[0] is args0 and executable exe was run: "go run ." for a
// binary go run built in its temporary directory (go test's binaries,
// *.test, are not go run), the path as typed for a binary run by path
// ("./secutil"), else "secutil", found on the PATH.
func commandName(args0, exe string) string {
	switch {
	case strings.Contains(filepath.ToSlash(exe), "/go-build") && !strings.HasSuffix(exe, ".test"):
		return goRun
	case strings.ContainsRune(args0, '/') && !strings.HasSuffix(args0, ".test"):
		return shellQuote(args0)
	}
	return "secutil"
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
