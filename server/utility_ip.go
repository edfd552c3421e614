package server

import (
	"context"

	"secutil/tools/geo"
	"secutil/tools/seal"
)

type ipRequest struct {
	IPString string `json:"ip_string" required:"check" doc:"an IPv4 or IPv6 address"`
}

func (q *ipRequest) check() error { return required("ip_string", q.IPString) }

// locateIP looks an address up in the GeoIP databases in use: the
// embedded country and ASN ones and any files configured ahead of them.
// Every answer names its `source`. No database at all (the embedded ones
// turned off and no file given) is a 500 that says what to configure; a
// failing one is an internal error, its detail in the log.
func (s *Server) locateIP(_ context.Context, req ipRequest) (geo.Info, error) {
	ip, err := geo.ParseIP(req.IPString)
	if err != nil {
		return geo.Info{}, err
	}
	return s.Geo.Lookup(ip)
}

type sealedRequest struct {
	Sealed string `json:"sealed"`
}

func (q *sealedRequest) check() error { return required("sealed", q.Sealed) }

// decryptGeoInfo opens a client IP sealed in the audit log and geolocates
// it. Only admins reach it (adminOnly). Malformed, tampered and
// sealed-under-another-key values all read the same.
func (s *Server) decryptGeoInfo(ctx context.Context, req sealedRequest) (geo.Info, error) {
	if s.ServerKey == nil {
		return geo.Info{}, newError(codeNoServerKey, "this server seals no IPs: it runs without a server key")
	}
	raw, err := seal.Open(s.ServerKey, req.Sealed)
	if err != nil {
		return geo.Info{}, err
	}
	ip, err := geo.ParseIP(string(raw))
	if err != nil {
		return geo.Info{}, newError(codeInvalidSealedValue, "the sealed value is not an IP address")
	}
	return s.Geo.Lookup(ip)
}
