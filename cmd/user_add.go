package cmd

import (
	"context"
	"fmt"
	"io"

	"secutil/server/account"
	"secutil/store"
)

// userAdd is `secutil user add`: it creates a verified account.
func (Program) userAdd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
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
		return fmt.Errorf("%w: -email is required", ErrUsage)
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected %q: secutil user add -email E [-password -] [-plan P] [-admin]", ErrUsage, fs.Arg(0))
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
