package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// userList is `secutil user list`: a table of the accounts.
func (Program) userList(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user list", stderr)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: secutil user list takes no arguments", ErrUsage)
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
