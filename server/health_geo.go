package server

import "time"

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
