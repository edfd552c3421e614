package geo

import "net/netip"

// reserved lists special-purpose ranges (RFC 6890 and successors) that
// netip's predicates do not cover; no database can place them on a map.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // future use and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("3fff::/20"),       // documentation (RFC 9637)
}

// nonPublicNote explains why ip cannot be geolocated, or returns "".
func nonPublicNote(ip netip.Addr) string {
	switch {
	case !ip.IsValid():
		return "invalid address: no geolocation"
	case ip.IsLoopback():
		return "loopback address: no geolocation"
	case ip.IsPrivate():
		return "private address: no geolocation"
	case ip.IsUnspecified():
		return "unspecified address: no geolocation"
	case ip.IsLinkLocalUnicast():
		return "link-local address: no geolocation"
	case ip.IsMulticast():
		return "multicast address: no geolocation"
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return "reserved address: no geolocation"
		}
	}
	return ""
}
