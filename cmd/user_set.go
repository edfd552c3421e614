package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"secutil/server/account"
	"secutil/store"
)

// userSet is `secutil user set EMAIL`: it changes an account, each change
// audited on its own.
func (p Program) userSet(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, db := userFlags("user set", stderr)
	plan := fs.String("plan", "", "the new plan: starter, pro or enterprise (a paid plan set by hand never expires, unless -paid-until says when)")
	usageCap := fs.Int("usage-cap", 0, "the enterprise plan's monthly cap of metered items; 0 removes it")
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
			return fmt.Errorf("%w: nothing to change: give -plan, -usage-cap, -paid-until, -admin, -verified, -disabled or -password", ErrUsage)
		case given["verified"] && !*verified:
			return fmt.Errorf("%w: an account cannot be made unverified; -disabled=true stops it", ErrUsage)
		case given["usage-cap"] && *usageCap < 0:
			return fmt.Errorf("%w: -usage-cap must be 1 or more, or 0 for no cap", ErrUsage)
		case given["plan"]:
			if err := checkPlan(*plan); err != nil {
				return err
			}
		}
		var err error
		if given["paid-until"] {
			until, err = parsePaidUntil(*paidUntil, time.Now())
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
		return fmt.Errorf("%w: %s is not verified, so whoever registered it chose its password: give -password - to set a new one in the same change", ErrUsage, a.Email)
	}
	var hash string
	if given["password"] {
		if hash, err = newPasswordHash(p.PasswordParams, a.Email, *password, *breachFile, stdin, stderr); err != nil {
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
		if err := ch.change(); errors.Is(err, ErrUsage) {
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

// parsePaidUntil reads -paid-until: a date (the plan runs to its end,
// UTC), an RFC 3339 time, or "never". A time before now is refused: the
// paid plan would have ended already, and the account show starter.
func parsePaidUntil(s string, now time.Time) (*time.Time, error) {
	if s == "never" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if d, dateErr := time.Parse(time.DateOnly, s); dateErr == nil {
		t, err = d.Add(24*time.Hour-time.Second), nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: -paid-until %q: give a date (2027-01-31), an RFC 3339 time or never", ErrUsage, s)
	}
	if t.Before(now) {
		return nil, fmt.Errorf("%w: -paid-until %s is in the past: the paid plan would end before it starts; give a later date, or never", ErrUsage, s)
	}
	return &t, nil
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
