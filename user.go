package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"secutil/server"
	"secutil/server/account"
	"secutil/store"
)

// userFlags are the flags every user command has, -db, and the parsing
// of the account's EMAIL, which comes before or after the flags.
func userFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := newFlagSet(name, stderr)
	usage := existingDBUsage // the commands but add open a database that exists
	if name == "user add" {
		usage = dbUsage
	}
	return fs, fs.String("db", defaultDB, usage)
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
		return fmt.Errorf("%w: -%s %s", errUsage, strings.ReplaceAll(rule.Field, "_", "-"), rule.Problem)
	}
	return err
}

func userAdd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user add", stderr)
	email := fs.String("email", "", "the account's email")
	password := fs.String("password", "", `the account's password; "-" or nothing reads it from a prompt or one line of standard input, which keeps it out of the process list`)
	plan := fs.String("plan", "", "starter, pro or enterprise (default starter, and pro with -admin, as the setup link gives)")
	admin := fs.Bool("admin", false, "make the account an administrator; a pending registration of the email is taken over, with the password given here")
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file whose passwords are refused, as serve -breach-file")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	switch {
	case *email == "":
		return fmt.Errorf("%w: -email is required", errUsage)
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected %q: secutil user add -email E [-password -] [-plan P] [-admin]", errUsage, fs.Arg(0))
	case *plan == "" && *admin:
		*plan = store.PlanPro
	case *plan == "":
		*plan = store.PlanStarter
	}
	if err := checkPlan(*plan); err != nil {
		return err
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
	a, err := cliOperator(st).Create(ctx, account.New{Email: address, PasswordHash: hash, Plan: *plan, Admin: *admin})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created account %d for %s (plan %s, admin %v)\n", a.ID, address, *plan, *admin)
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
	fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tADMIN\tVERIFIED\tDISABLED\tUSAGE THIS MONTH\tCREATED\tCAP\tPAID UNTIL")
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
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Email, a.EffectivePlan(now), yesNo(a.Admin), yesNo(a.Verified),
				yesNo(a.Disabled), usage, a.CreatedAt.Format(time.DateOnly), capText(a.UsageCap), paidUntilText(a.PaidUntil))
		}
		if len(accounts) < page {
			return tw.Flush()
		}
	}
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

// parsePaidUntil reads -paid-until: a date (the plan runs to its end,
// UTC), an RFC 3339 time, or "never".
func parsePaidUntil(s string) (*time.Time, error) {
	if s == "never" {
		return nil, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		end := d.Add(24*time.Hour - time.Second)
		return &end, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, fmt.Errorf("%w: -paid-until %q: give a date (2027-01-31), an RFC 3339 time or never", errUsage, s)
	}
	return &t, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func userSet(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user set", stderr)
	plan := fs.String("plan", "", "the new plan: starter, pro or enterprise (a paid plan set by hand never expires, unless -paid-until says when)")
	usageCap := fs.Int("usage-cap", 0, "the enterprise plan's monthly cap of metered calls; 0 removes it")
	paidUntil := fs.String("paid-until", "", "when the paid plan ends: a date (2027-01-31, to its end, UTC), an RFC 3339 time, or never")
	admin := fs.Bool("admin", false, "-admin=true makes the account an administrator, -admin=false no longer")
	verified := fs.Bool("verified", false, "-verified=true marks the email verified, as the code would")
	disabled := fs.Bool("disabled", false, "-disabled=true stops the account's keys and sessions, -disabled=false lets them work again")
	password := fs.String("password", "", `a new password ("-" reads it from a prompt or standard input); needed with -verified=true or -admin=true on an unverified account, whose password whoever registered it chose`)
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file whose passwords are refused, as serve -breach-file")
	given := map[string]bool{}
	var until *time.Time
	check := func() error {
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		switch {
		case !given["plan"] && !given["usage-cap"] && !given["paid-until"] && !given["admin"] && !given["verified"] && !given["disabled"] && !given["password"]:
			return fmt.Errorf("%w: nothing to change: give -plan, -usage-cap, -paid-until, -admin, -verified, -disabled or -password", errUsage)
		case given["verified"] && !*verified:
			return fmt.Errorf("%w: an account cannot be made unverified; -disabled=true stops it", errUsage)
		case given["usage-cap"] && *usageCap < 0:
			return fmt.Errorf("%w: -usage-cap must be 1 or more, or 0 for no cap", errUsage)
		case given["plan"]:
			if err := checkPlan(*plan); err != nil {
				return err
			}
		}
		var err error
		if given["paid-until"] {
			until, err = parsePaidUntil(*paidUntil)
		}
		return err
	}
	st, a, err := userAccount(ctx, fs, db, args, getenv, check)
	if err != nil {
		return err
	}
	defer st.Close()
	activate := !a.Verified && (given["verified"] || given["admin"] && *admin)
	if activate && !given["password"] {
		return fmt.Errorf("%w: %s is not verified, so whoever registered it chose its password: give -password - to set a new one in the same change", errUsage, a.Email)
	}
	var hash string
	if given["password"] {
		if hash, err = newPasswordHash(a.Email, *password, *breachFile, stdin, stderr); err != nil {
			return err
		}
	}
	// Each change is made and audited on its own, in the order listed.
	op := cliOperator(st)
	changes := []struct {
		given  bool
		flag   string
		change func() error
	}{
		{given["plan"] || given["usage-cap"] || given["paid-until"], "plan", func() error { return asFlagError(op.SetPlan(ctx, a, newPlan(a, given, *plan, *usageCap, until))) }},
		{activate, "password", func() error { return op.Activate(ctx, a, hash, given["admin"] && *admin) }},
		{given["password"] && !activate, "password", func() error { return op.SetPassword(ctx, a, hash, false) }},
		{given["admin"] && !(activate && *admin), "admin", func() error { return op.Apply(ctx, account.SetAdmin(*admin), a) }},
		{given["verified"] && !activate, "verified", func() error { return op.Apply(ctx, account.Verify, a) }},
		{given["disabled"], "disabled", func() error { return op.Apply(ctx, account.SetDisabled(*disabled), a) }},
	}
	for _, ch := range changes {
		if !ch.given {
			continue
		}
		if err := ch.change(); errors.Is(err, errUsage) {
			return err // names its flag already
		} else if err != nil {
			return fmt.Errorf("-%s: %w", ch.flag, err)
		}
	}
	if a, err = st.AccountByID(ctx, a.ID); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: plan %s, cap %s, paid until %s, admin %s, verified %s, disabled %s\n", a.Email, a.Plan, capText(a.UsageCap),
		paidUntilText(a.PaidUntil), yesNo(a.Admin), yesNo(a.Verified), yesNo(a.Disabled))
	return nil
}

// newPlan is the plan user set gives a: -plan or a's own, keeping a's cap
// on enterprise and, when -plan is not given, its paid_until; -usage-cap
// (0: none) and -paid-until replace them.
func newPlan(a *store.Account, given map[string]bool, plan string, usageCap int, paidUntil *time.Time) account.Plan {
	if !given["plan"] {
		plan = a.Plan
	}
	p := account.KeepingCap(a, plan)
	if !given["plan"] {
		p.PaidUntil = a.PaidUntil
	}
	if given["usage-cap"] {
		p.UsageCap = nil
		if usageCap > 0 {
			p.UsageCap = &usageCap
		}
	}
	if given["paid-until"] {
		p.PaidUntil = paidUntil
	}
	return p
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
	if err := cliOperator(st).SetPassword(ctx, a, hash, *revokeKeys); err != nil {
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
		fmt.Fprintf(stderr, "Delete %s with its API keys and sessions (its monthly usage is kept)? This cannot be undone. [y/N] ", a.Email)
		answer, err := readLine(stdin)
		if err != nil {
			return err
		}
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return errors.New("not deleted (answer y, or give -yes)")
		}
	}
	if err := cliOperator(st).Apply(ctx, account.Delete, a); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deleted %s\n", a.Email)
	return nil
}
