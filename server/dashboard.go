package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/server/internal/usagechart"
	"secutil/store"
	"secutil/tools/plural"
)

// The dashboard (GET /dashboard): usage against the plan's cap, calls per
// day, the keys, and the plan cards.

// planChoice is one plan on the dashboard's plan cards.
type planChoice struct {
	Name    string
	Blurb   string
	Current bool
	Paid    bool   // bought through checkout
	Price   string // "9.00 EUR a month"; "" when no product sells it or the server takes no payments
}

var planBlurbs = []planChoice{
	{Name: store.PlanStarter, Blurb: fmt.Sprintf("%d metered items a month.", store.StarterCap)},
	{Name: store.PlanPro, Blurb: "Unlimited items.", Paid: true},
	{Name: store.PlanEnterprise, Blurb: "A cap agreed with your administrator, none by default.", Paid: true},
}

// dashboardData is what templates/dashboard.html shows.
type dashboardData struct {
	Plan      string
	Used      int
	Cap       *int
	Percent   int // of the cap, in steps of 5 (the CSS has a class per step)
	Full      bool
	ResetAt   time.Time
	PaidUntil *time.Time
	// PlanByAdmin: an administrator set the plan in force, so only an
	// administrator changes it; the cards offer no switch.
	PlanByAdmin bool
	// SetsOwnPlan: the account is an administrator's, who sets plans (its
	// own too) on the admin page; the cards offer no switch, nor to ask.
	SetsOwnPlan bool
	// Cancelled: the user left the paid plan, which ends at PaidUntil.
	Cancelled bool
	// AtCap says what to do at the plan's cap ("" below it).
	AtCap string
	// Leave: the move to starter waits for confirmation (?leave=starter);
	// LeaveDoes says what it does.
	Leave     bool
	LeaveDoes string
	Chart     usageChart
	Keys      []store.Key
	Plans     []planChoice
	Checkout  bool // a payment provider is configured
	// Fresh is a key just issued, shown once from the flash cookie.
	Fresh *freshKey
	// Confirm is the revocation or rotation of a key that waits for
	// confirmation (?revoke=NAME, ?rotate=NAME): both stop the key scripts
	// are using.
	Confirm *keyConfirmation
}

// keyConfirmation is a key action the dashboard asks about first.
type keyConfirmation struct {
	Action, Verb, Name, Consequence string
}

// keyConfirmations are the key actions that ask first, by the query
// parameter that asks.
var keyConfirmations = []keyConfirmation{
	{Action: "revoke", Verb: "Revoke", Consequence: "Scripts using it stop working at once; this cannot be undone."},
	{Action: "rotate", Verb: "Rotate", Consequence: "The old key stops working at once; scripts using it need the new one, shown once after this."},
}

// keyNamed is name if the account has a key of that name, else "": a
// confirmation is offered only for a key that exists.
func (d *dashboardData) keyNamed(name string) string {
	for _, k := range d.Keys {
		if name != "" && k.Name == name {
			return name
		}
	}
	return ""
}

// capAdvice says what a user whose account a has used its cap at now
// can do: the cap, when it resets, and who can raise it. The dashboard
// and the utilities page show it.
func capAdvice(a *store.Account, now time.Time, checkout bool) string {
	plan := a.EffectivePlan(now)
	limit := a.Cap(now)
	if limit == nil {
		return ""
	}
	msg := fmt.Sprintf("You have used all %s of your %s plan this month: calls answer 429 until %s (00:00 UTC), when the count starts again. ",
		plural.Count(*limit, "metered item", "metered items"), plan, store.PeriodEnd(now).UTC().Format("2 Jan 2006"))
	switch {
	case a.Admin:
		return msg + "You are an administrator: give your account a larger plan on the admin page."
	case account.SetByAdmin(a, now):
		return msg + "An administrator set this cap: ask an administrator of this server to raise it."
	case checkout:
		return msg + "To call more now, upgrade on the dashboard (pro has no cap), or ask an administrator of this server."
	}
	return msg + "To call more now, ask an administrator of this server for a larger plan: this server takes no payments."
}

// usagePercent rounds used/limit up to a step of 5, 0 to 100, so any use
// at all shows on the bar.
func usagePercent(used, limit int) int {
	if limit <= 0 {
		return 100
	}
	percent := (used*100 + limit - 1) / limit
	return min((percent+4)/5*5, 100)
}

// dashboard gathers what a's dashboard shows.
func (s *Server) dashboard(ctx context.Context, a *store.Account) (dashboardData, error) {
	now := s.Store.Now()
	usage, err := s.usageOf(ctx, a, now)
	if err != nil {
		return dashboardData{}, err
	}
	keys, err := s.Store.Keys(ctx, a.ID)
	if err != nil {
		return dashboardData{}, err
	}
	chart, err := s.usageChart(ctx, a.ID, now)
	if err != nil {
		return dashboardData{}, err
	}
	d := dashboardData{
		Plan: a.EffectivePlan(now), Used: usage.Used, Cap: usage.Cap, AtCap: usage.AtCap, ResetAt: store.PeriodEnd(now),
		PaidUntil: a.PaidUntil, Chart: chart, Keys: keys, Checkout: s.Checkout != nil,
	}
	d.PlanByAdmin = account.SetByAdmin(a, now)
	d.SetsOwnPlan = a.Admin
	d.Cancelled = a.PlanCancelled && d.Plan != store.PlanStarter
	if account.LeavingNeedsConfirmation(a, store.PlanStarter, now) {
		d.LeaveDoes = whatLeavingDoes(a, now)
	}
	if d.Cap != nil {
		d.Percent = usagePercent(d.Used, *d.Cap)
		d.Full = d.Used >= *d.Cap
	}
	for _, p := range planBlurbs {
		p.Current = p.Name == d.Plan
		if p.Name == store.PlanEnterprise && a.UsageCap != nil {
			p.Blurb = fmt.Sprintf("%d metered items a month: the cap your administrator set.", *a.UsageCap)
		}
		if p.Paid && d.Checkout {
			product, err := s.Store.ProductForPlan(ctx, p.Name)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return dashboardData{}, err
			}
			if product != nil {
				p.Price = price(product)
			}
		}
		d.Plans = append(d.Plans, p)
	}
	return d, nil
}

// price is what a product costs, as a plan card says it: "9.00 EUR a month".
func price(p *store.Product) string {
	return fmt.Sprintf("%d.%02d %s a %s", p.PriceCents/100, p.PriceCents%100, p.Currency, p.Interval)
}

// renderDashboard shows a's dashboard, with the failure of a form and its
// status when there is one.
func (s *Server) renderDashboard(w http.ResponseWriter, r *http.Request, a *store.Account, failure error) {
	d, err := s.dashboard(r.Context(), a)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d.Leave = r.URL.Query().Get("leave") == store.PlanStarter && d.LeaveDoes != "" && failure == nil
	if failure == nil {
		for _, c := range keyConfirmations {
			if name := d.keyNamed(r.URL.Query().Get(c.Action)); name != "" {
				c.Name = name
				d.Confirm = &c
			}
		}
	}
	v := newView(s, r, d)
	v.Account = a
	v.Path = "/dashboard"
	status := showFailure(s, r, &v, failure)
	if failure == nil {
		if fresh, ok := s.takeFreshKey(w, r, a.ID); ok {
			v.Data.Fresh = &fresh
		}
	}
	render(s, w, r, status, "dashboard", v)
}

// showFailure puts a form's failure (nil for none) on the page's view and
// returns the status to show it with.
func showFailure[T any](s *Server, r *http.Request, v *view[T], failure error) int {
	if failure == nil {
		return http.StatusOK
	}
	ae := s.publicError(r, failure)
	v.Error = ae.msg
	return ae.status()
}

// dashboardAccount is the logged-in account; without one, the browser is
// sent to the login page, which brings it back here, and ok is false.
func (s *Server) dashboardAccount(w http.ResponseWriter, r *http.Request) (a *store.Account, ok bool) {
	a, err := s.sessionAccount(r)
	if errors.Is(err, errLoginRequired) {
		back := r.URL.Path
		if r.Method == http.MethodGet {
			back = r.URL.RequestURI()
		} else if !strings.HasPrefix(back, "/admin") {
			back = "/dashboard" // a form's action is no page to come back to
		}
		http.Redirect(w, r, "/login?"+url.Values{"next": {back}}.Encode(), http.StatusSeeOther)
		return nil, false
	}
	if err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return a, true
}

func (s *Server) handleDashboard() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := s.dashboardAccount(w, r); ok {
			s.renderDashboard(w, r, a, nil)
		}
	})
}

// dashboardFailure answers a browser's failed form post that belongs to
// the dashboard (a plan change): the dashboard with the message, or the
// login page without a session.
func (s *Server) dashboardFailure(w http.ResponseWriter, r *http.Request, failure error) {
	if a, ok := s.dashboardAccount(w, r); ok {
		s.renderDashboard(w, r, a, failure)
	}
}

// usageChart is the dashboard's bar chart of metered calls per day
// (laid out by usagechart).
type usageChart = usagechart.Chart

// usageChart reads the account's calls per day from the first of last
// month to now and lays them out.
func (s *Server) usageChart(ctx context.Context, accountID int64, now time.Time) (usageChart, error) {
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	lastMonth := thisMonth.AddDate(0, -1, 0)
	days, err := s.Store.UsageByDay(ctx, accountID, lastMonth, now)
	if err != nil {
		return usageChart{}, err
	}
	split := int(thisMonth.Sub(lastMonth).Hours() / 24)
	return usagechart.Layout(lastMonth, days[:split], thisMonth, days[split:]), nil
}
