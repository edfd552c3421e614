package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"secutil/store"
)

type healthResponse struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	DB      string `json:"db"`
	Backend string `json:"backend"` // sqlite or postgres
	GeoIP   string `json:"geoip_data_date,omitempty"`
}

// handleHealth answers 503 when the database does not answer, so a load
// balancer or supervisor can tell.
func (s *Server) handleHealth() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.Store.Ping(ctx); err != nil {
			db := "error"
			if errors.Is(err, store.ErrUnavailable) {
				// An outage the store has already logged once: the
				// balancer polling here must not add a line a second.
				db = "unreachable"
				w.Header().Set("Retry-After", databaseRetryAfter)
			} else {
				s.Logger.Error("health: database does not answer", "err", err)
			}
			writeJSON(w, http.StatusServiceUnavailable, healthResponse{Status: "unavailable", Version: s.Version, DB: db, Backend: s.Store.Backend(), GeoIP: s.geoIPDataDate()})
			return
		}
		writeJSON(w, http.StatusOK, healthResponse{Status: "ok", Version: s.Version, DB: "ok", Backend: s.Store.Backend(), GeoIP: s.geoIPDataDate()})
	})
}

const robotsTxt = `User-agent: *
Disallow: /api/
Disallow: /dashboard
Disallow: /boss/
Disallow: /billing/
Allow: /
`

func handleRobots() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, robotsTxt)
	})
}
