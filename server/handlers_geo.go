package server

import (
	"errors"
	"net/http"

	"secutil/tools/geo"
)

type ipRequest struct {
	IPString string `json:"ip_string"`
}

func (q *ipRequest) check() error { return required("ip_string", q.IPString) }

// handleIPInfo looks an address up in the configured MaxMind-format
// databases. No database, or a failing one, is SPEC's 500 with a message
// that says what to configure.
func (s *Server) handleIPInfo(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[ipRequest](w, r)
	if err != nil {
		return nil, err
	}
	ip, err := geo.ParseIP(req.IPString)
	if err != nil {
		return nil, newError(http.StatusBadRequest, "invalid_ip", "%s", err.Error())
	}
	info, err := s.Geo.Lookup(ip)
	if errors.Is(err, geo.ErrNoDatabase) {
		return nil, newError(http.StatusInternalServerError, "geoip_not_configured", "%s", err.Error())
	}
	if err != nil {
		s.Logger.Error("geoip lookup", "err", err)
		return nil, newError(http.StatusInternalServerError, "lookup_failed", "IP lookup failed; the server log has the detail")
	}
	return info, nil
}
