package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"secutil/server"
	"secutil/server/account"
	"secutil/store"
	"secutil/tools/breach"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
	"secutil/tools/strength"
)

// userFlags are the flags every user command has: -db, which names an
// existing database (only serve creates one).
func userFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := newFlagSet(name, stderr)
	return fs, fs.String("db", defaultDB, existingDBUsage)
}

// parseUserArgs defines -email on fs, parses a user command's flags and
// returns the account's email, trimmed and checked like the API checks
// it. Every user command that names an account takes its email either
// way: as -email or as the one argument, before the flags or after them.
func parseUserArgs(fs *flag.FlagSet, args []string, getenv func(string) string) (string, error) {
	flagEmail := fs.String("email", "", "the account's email (or give it as the argument)")
	var email string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		email, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, getenv); err != nil {
		return "", err
	}
	if email == "" && fs.NArg() > 0 {
		email = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil { // flags after the email
			return "", flagError(fs, err)
		}
	}
	usage := fs.Name() + " EMAIL [flags] (or -email EMAIL)"
	switch {
	case fs.NArg() > 0:
		return "", fmt.Errorf("%w: %s: %q is a second argument; give one email", ErrUsage, usage, fs.Arg(0))
	case *flagEmail != "" && email != "" && *flagEmail != email:
		return "", fmt.Errorf("%w: %s: two emails, %q and %q; give one", ErrUsage, usage, email, *flagEmail)
	case *flagEmail != "":
		email = *flagEmail
	case email == "":
		return "", fmt.Errorf("%w: %s: give the account's email", ErrUsage, usage)
	}
	return checkEmail(email)
}

// checkEmail trims email and checks it as the API does.
func checkEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if err := server.CheckEmail(email); err != nil {
		return "", fmt.Errorf("%w: the email %q %v", ErrUsage, email, err)
	}
	return email, nil
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

// cliOperator makes the user commands' changes with st, recorded as made
// by the command line.
func cliOperator(st *store.Store) account.Operator {
	return account.Operator{Store: st, By: byCommandLine}
}

// checkPlan applies the plan rules to -plan, as the admin routes apply
// them to their "plan" field.
func checkPlan(plan string) error {
	return asFlagError(account.CheckPlan(plan, nil, false))
}

// asFlagError names the field of a plan rule's refusal as its flag
// (usage_cap: -usage-cap), a usage error; other errors pass unchanged.
func asFlagError(err error) error {
	var rule *account.RuleError
	if errors.As(err, &rule) {
		return fmt.Errorf("%w: -%s %s", ErrUsage, strings.ReplaceAll(rule.Field, "_", "-"), rule.Problem)
	}
	return err
}

// capText is an account's enterprise cap as user list and user set show
// it: "-" for none.
func capText(c *int) string {
	if c == nil {
		return "-"
	}
	return strconv.Itoa(*c)
}

// paidUntilText is an account's paid_until as user list and user set show
// it: "-" for none (a paid plan that never expires).
func paidUntilText(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.DateOnly)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
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
// input, see readPassword), applies the policy and hashes it with params
// (passhash.Default when zero).
func newPasswordHash(params passhash.Params, email, given, breachFile string, stdin io.Reader, stderr io.Writer) (string, error) {
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
	return passhash.Hash(password, params)
}
