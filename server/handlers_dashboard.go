package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"secutil/store"
)

// planChoice is one plan on the dashboard's plan switcher.
type planChoice struct {
	Name    string
	Blurb   string
	Current bool
}

var planBlurbs = []planChoice{
	{Name: store.PlanStarter, Blurb: "100 metered calls a month."},
	{Name: store.PlanPro, Blurb: "Unlimited calls."},
	{Name: store.PlanEnterprise, Blurb: "A cap agreed with your administrator, none by default."},
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
	Keys      []store.Key
	Plans     []planChoice
	// NewKey is a key just issued: shown once, on a page that is never cached.
	NewKey     string
	NewKeyName string
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

// freshKey is a key just issued, shown once on a page that is never cached.
type freshKey struct{ key, name string }

// dashboard gathers what a's dashboard shows.
func (s *Server) dashboard(ctx context.Context, a *store.Account, fresh freshKey) (dashboardData, error) {
	used, err := s.Store.Usage(ctx, a.ID)
	if err != nil {
		return dashboardData{}, err
	}
	keys, err := s.Store.Keys(ctx, a.ID)
	if err != nil {
		return dashboardData{}, err
	}
	now := s.Store.Now()
	d := dashboardData{
		Plan: a.EffectivePlan(now), Used: used, Cap: a.Cap(now), ResetAt: store.PeriodEnd(now),
		PaidUntil: a.PaidUntil, Keys: keys, NewKey: fresh.key, NewKeyName: fresh.name,
	}
	if d.Cap != nil {
		d.Percent = usagePercent(used, *d.Cap)
		d.Full = used >= *d.Cap
	}
	for _, p := range planBlurbs {
		p.Current = p.Name == d.Plan
		d.Plans = append(d.Plans, p)
	}
	return d, nil
}

// renderDashboard shows a's dashboard: with the failure of a form and its
// status, or with a fresh key.
func (s *Server) renderDashboard(w http.ResponseWriter, r *http.Request, a *store.Account, failure error, fresh freshKey) {
	d, err := s.dashboard(r.Context(), a, fresh)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	v := newView(s, r, d)
	v.Account = a
	status := http.StatusOK
	if failure != nil {
		ae := s.publicError(r, failure)
		v.Error, status = ae.msg, ae.status()
	}
	render(s, w, r, status, "dashboard", v)
}

// dashboardAccount is the logged-in account; without one, the browser is
// sent to the login page and ok is false.
func (s *Server) dashboardAccount(w http.ResponseWriter, r *http.Request) (a *store.Account, ok bool) {
	a, err := s.sessionAccount(r)
	if errors.Is(err, errLoginRequired) {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
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
			s.renderDashboard(w, r, a, nil, freshKey{})
		}
	})
}

// dashboardForm serves a form of the dashboard for the logged-in account
// (a browser without a session goes to /login). act answers on success; its
// error is shown on the dashboard.
func (s *Server) dashboardForm(act func(w http.ResponseWriter, r *http.Request, a *store.Account) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		if err := act(w, r, a); err != nil {
			s.renderDashboard(w, r, a, err, freshKey{})
		}
	})
}

type keyNameRequest struct {
	Name string `json:"name"`
}

func (k *keyNameRequest) check() error {
	if !keyNamePattern.MatchString(k.Name) {
		return badRequest("a key name is 1 to 64 letters, digits, '.', '_' or '-'")
	}
	return nil
}

// handleDashboardCreateKey issues a key under a name not in use yet.
func (s *Server) handleDashboardCreateKey() http.Handler { return s.dashboardKeyForm(s.createKey) }

// handleDashboardRotateKey replaces the key of a name, which revokes the
// old one at once.
func (s *Server) handleDashboardRotateKey() http.Handler { return s.dashboardKeyForm(s.issueKey) }

// dashboardKeyForm issues a key with issue and shows it once.
func (s *Server) dashboardKeyForm(issue func(r *http.Request, accountID int64, name string) (string, error)) http.Handler {
	return s.dashboardForm(func(w http.ResponseWriter, r *http.Request, a *store.Account) error {
		req, err := decode[keyNameRequest](w, r)
		if err != nil {
			return err
		}
		key, err := issue(r, a.ID, req.Name)
		if err != nil {
			return err
		}
		s.renderDashboard(w, r, a, nil, freshKey{key: key, name: req.Name})
		return nil
	})
}

// createKey issues a key called name, refusing a name already in use.
func (s *Server) createKey(r *http.Request, accountID int64, name string) (string, error) {
	_, err := s.Store.KeyByName(r.Context(), accountID, name)
	switch {
	case err == nil:
		return "", newError(codeKeyExists, "a key named %q exists already: rotate it to replace it", name)
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	return s.issueKey(r, accountID, name)
}

func (s *Server) handleDashboardRevoke() http.Handler {
	return s.dashboardForm(func(w http.ResponseWriter, r *http.Request, a *store.Account) error {
		req, err := decode[keyNameRequest](w, r)
		if err != nil {
			return err
		}
		if err := s.revokeKey(r, a.ID, req.Name); err != nil {
			return err
		}
		http.Redirect(w, r, "/dashboard?notice=key_revoked", http.StatusSeeOther)
		return nil
	})
}

// revokeKey revokes the account's key called name.
func (s *Server) revokeKey(r *http.Request, accountID int64, name string) error {
	err := s.Store.RevokeKey(r.Context(), accountID, name)
	if errors.Is(err, store.ErrNotFound) {
		return newError(codeKeyNotFound, "there is no key named %q", name)
	}
	if err != nil {
		return err
	}
	s.audit(r.Context(), r, store.AuditKeyRevoked, accountID, name)
	return nil
}

// handleTools serves the tools page; its forms call the root-level tool
// routes from static/app.js.
func (s *Server) handleTools() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		render(s, w, r, http.StatusOK, "tools", newView(s, r, hashAlgorithmsOffered))
	})
}

// hashAlgorithmsOffered are the hash generator's choices on the tools page
// (the OpenAPI document lists what /hash_generator accepts).
var hashAlgorithmsOffered = []string{"sha256", "sha512", "sha1", "md5", "sha3_256", "blake2b_256", "ntlm", "bcrypt", "argon2id"}
