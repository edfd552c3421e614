package server

import (
	"errors"
	"net/http"

	"secutil/tools/geo"
	"secutil/tools/seal"
)

type ipRequest struct {
	IPString string `json:"ip_string"`
}

func (q *ipRequest) check() error { return required("ip_string", q.IPString) }

// handleIPInfo looks an address up in the configured MaxMind-format
// databases. No database, or a failing one, is a 500 with a message
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

type sealedRequest struct {
	Sealed string `json:"sealed"`
}

func (q *sealedRequest) check() error { return required("sealed", q.Sealed) }

// handleDecryptGeoInfo opens a client IP sealed in the audit log and
// geolocates it. Only admins reach it (adminOnly).
func (s *Server) handleDecryptGeoInfo() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decode[sealedRequest](w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if s.ServerKey == nil {
			s.writeError(w, r, newError(http.StatusServiceUnavailable, "no_server_key", "this server seals no IPs: it runs without a server key"))
			return
		}
		raw, err := seal.Open(s.ServerKey, req.Sealed)
		if err != nil {
			// Malformed, tampered and sealed-under-another-key all read the same.
			s.writeError(w, r, newError(http.StatusBadRequest, "invalid_sealed_value", "not a value sealed by this server"))
			return
		}
		ip, err := geo.ParseIP(string(raw))
		if err != nil {
			s.writeError(w, r, newError(http.StatusBadRequest, "invalid_sealed_value", "the sealed value is not an IP address"))
			return
		}
		info, err := s.Geo.Lookup(ip)
		if errors.Is(err, geo.ErrNoDatabase) {
			s.writeError(w, r, newError(http.StatusInternalServerError, "geoip_not_configured", "%s", err.Error()))
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	})
}
