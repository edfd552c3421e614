package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"secutil/server/account"
)

// userDelete is `secutil user delete EMAIL`: it deletes an account, after
// asking unless given -yes.
func (Program) userDelete(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
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
