package cmd

import (
	"context"
	"fmt"
	"io"

	"secutil/server/account"
	"secutil/store"
)

// userAdd is `secutil user add EMAIL`: it creates a verified account in
// the existing database.
func (p Program) userAdd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user add", stderr)
	password := fs.String("password", "", `the account's password; "-" or nothing reads it from a prompt or one line of standard input, which keeps it out of the process list`)
	plan := fs.String("plan", "", "starter, pro or enterprise (default starter, and pro with -admin, as the setup link gives)")
	admin := fs.Bool("admin", false, "make the account an administrator; a pending registration of the email is taken over, with the password given here")
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file whose passwords are refused, as serve -breach-file")
	address, err := parseUserArgs(fs, args, getenv)
	if err != nil {
		return err
	}
	switch {
	case *plan == "" && *admin:
		*plan = store.PlanPro
	case *plan == "":
		*plan = store.PlanStarter
	}
	if err := checkPlan(*plan); err != nil {
		return err
	}
	// Before the password prompt: a mistyped -db is found at once.
	if err := checkExisting(*db); err != nil {
		return err
	}
	hash, err := newPasswordHash(p.PasswordParams, address, *password, *breachFile, stdin, stderr)
	if err != nil {
		return err
	}
	st, err := openExisting(ctx, *db)
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
