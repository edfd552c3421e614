package server

import (
	"context"

	"secutil/tools/geo"
)

// POST /ip_info: where an IP address is, from the GeoIP databases in use.

type ipRequest struct {
	IPString string `json:"ip_string" required:"check" aka:"ip,ip_address,address,ipaddress,host" doc:"an IPv4 or IPv6 address"`
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
