package cmd

import (
	"context"
	"fmt"
	"io"
)

// userPasswd is `secutil user passwd EMAIL`: it sets an account's
// password, read from a prompt or standard input, never an argument.
func (p Program) userPasswd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user passwd", stderr)
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file whose passwords are refused, as serve -breach-file")
	revokeKeys := fs.Bool("revoke-keys", false, "also revoke every API key of the account, as after a leak")
	st, a, err := userAccount(ctx, fs, db, args, getenv, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	hash, err := newPasswordHash(p.PasswordParams, a.Email, "", *breachFile, stdin, stderr)
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
