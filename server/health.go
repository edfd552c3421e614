package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"secutil/store"
)

// GET /health: whether the server and its database answer, and whether
// it is draining (about to stop).

type healthResponse struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	DB      string `json:"db"`
	Backend string `json:"backend"` // sqlite or postgres
	GeoIP   string `json:"geoip_data_date,omitempty"`
}

// handleHealth answers 503 when the database does not answer, so a load
// balancer or supervisor can tell, and 503 with the status "draining"
// while the instance drains (Deps.Draining): the balancer takes it out
// while its other routes still answer whatever reaches them.
func (s *Server) handleHealth() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		answer, status := healthResponse{Status: "ok", Version: s.Version, DB: "ok", Backend: s.Store.Backend(), GeoIP: s.geoIPDataDate()}, http.StatusOK
		if err := s.Store.Ping(ctx); err != nil {
			answer.Status, answer.DB, status = "unavailable", "error", http.StatusServiceUnavailable
			if errors.Is(err, store.ErrUnavailable) {
				// An outage the store has already logged once: the
				// balancer polling here must not add a line a second.
				answer.DB = "unreachable"
				w.Header().Set("Retry-After", databaseRetryAfter)
			} else {
				s.Logger.Error("health: database does not answer", "err", err)
			}
		}
		if s.Draining != nil && s.Draining() {
			answer.Status, status = "draining", http.StatusServiceUnavailable
		}
		writeJSON(w, status, answer)
	})
}

// geoIPDataDate is /health's geoip_data_date: the build date of the oldest
// GeoIP database /ip_info answers from, so a monitor can see how old the
// location data is; "" (the field left out) when there is none.
func (s *Server) geoIPDataDate() string {
	built := s.Geo.DataDate()
	if built.IsZero() {
		return ""
	}
	return built.Format(time.DateOnly)
}
