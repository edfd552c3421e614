package server

import (
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

// renderDashboard shows a's dashboard, with an error or a fresh key.
func (s *Server) renderDashboard(w http.ResponseWriter, r *http.Request, a *store.Account, status int, failure error, newKey, newKeyName string) {
	used, err := s.Store.Usage(r.Context(), a.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	keys, err := s.Store.Keys(r.Context(), a.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	now := s.Store.Now()
	d := dashboardData{
		Plan: a.EffectivePlan(now), Used: used, Cap: a.Cap(now), ResetAt: store.PeriodEnd(now),
		PaidUntil: a.PaidUntil, Keys: keys, NewKey: newKey, NewKeyName: newKeyName,
	}
	if d.Cap != nil {
		d.Percent = usagePercent(used, *d.Cap)
		d.Full = used >= *d.Cap
	}
	for _, p := range planBlurbs {
		p.Current = p.Name == d.Plan
		d.Plans = append(d.Plans, p)
	}
	v := s.newView(r)
	v.Account = a
	v.Data = d
	if failure != nil {
		ae := s.publicError(r, failure)
		v.Error, status = ae.msg, ae.status()
	}
	s.render(w, r, status, "dashboard", v)
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
			s.renderDashboard(w, r, a, http.StatusOK, nil, "", "")
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

// handleDashboardKey issues a key from the dashboard and shows it once.
// With mustBeNew, a name already in use is refused (create); without, the
// key of that name is replaced (rotate), which revokes the old one at once.
func (s *Server) handleDashboardKey(mustBeNew bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		req, err := decode[keyNameRequest](w, r)
		if err == nil && mustBeNew {
			_, err = s.Store.KeyByName(r.Context(), a.ID, req.Name)
			switch {
			case err == nil:
				err = newError(codeKeyExists, "a key named %q exists already: rotate it to replace it", req.Name)
			case errors.Is(err, store.ErrNotFound):
				err = nil
			}
		}
		var key string
		if err == nil {
			key, err = s.issueKey(r, a.ID, req.Name)
		}
		if err != nil {
			s.renderDashboard(w, r, a, http.StatusOK, err, "", "")
			return
		}
		s.renderDashboard(w, r, a, http.StatusOK, nil, key, req.Name)
	})
}

func (s *Server) handleDashboardRevoke() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		req, err := decode[keyNameRequest](w, r)
		if err == nil {
			err = s.Store.RevokeKey(r.Context(), a.ID, req.Name)
			if errors.Is(err, store.ErrNotFound) {
				err = newError(codeKeyNotFound, "there is no key named %q", req.Name)
			}
		}
		if err != nil {
			s.renderDashboard(w, r, a, http.StatusOK, err, "", "")
			return
		}
		s.audit(r.Context(), r, store.AuditKeyRevoked, a.ID, req.Name)
		http.Redirect(w, r, "/dashboard?notice=key_revoked", http.StatusSeeOther)
	})
}

// handleTools serves the tools page; its forms call the root-level tool
// routes from static/app.js.
func (s *Server) handleTools() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := s.newView(r)
		v.Data = hashAlgorithmsOffered
		s.render(w, r, http.StatusOK, "tools", v)
	})
}

// hashAlgorithmsOffered are the hash generator's choices on the tools page
// (the OpenAPI document lists what /hash_generator accepts).
var hashAlgorithmsOffered = []string{"sha256", "sha512", "sha1", "md5", "sha3_256", "blake2b_256", "ntlm", "bcrypt", "argon2id"}
