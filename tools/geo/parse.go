package geo

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// MaxIPTextLen bounds the text ParseIP looks at; the longest IPv6 form
// (IPv4-mapped, fully expanded) is 45 characters.
const MaxIPTextLen = 64

// ErrInvalidIP is wrapped by every ParseIP error.
var ErrInvalidIP = errors.New("invalid IP address")

// ParseIP reads one IPv4 or IPv6 address. Surrounding spaces are trimmed and
// IPv4-mapped IPv6 addresses become plain IPv4. Zones, CIDR prefixes and
// ports are refused with a message saying so.
func ParseIP(s string) (netip.Addr, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return netip.Addr{}, fmt.Errorf("%w: empty", ErrInvalidIP)
	case len(s) > MaxIPTextLen:
		return netip.Addr{}, fmt.Errorf("%w: longer than %d characters", ErrInvalidIP, MaxIPTextLen)
	case strings.Contains(s, "/"):
		return netip.Addr{}, fmt.Errorf("%w: give a single address, not a CIDR prefix", ErrInvalidIP)
	case strings.Contains(s, "%"):
		return netip.Addr{}, fmt.Errorf("%w: IPv6 zones (%%eth0) are not accepted", ErrInvalidIP)
	}
	if _, err := netip.ParseAddrPort(s); err == nil || strings.HasPrefix(s, "[") {
		return netip.Addr{}, fmt.Errorf("%w: remove the port (and brackets)", ErrInvalidIP)
	}
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%w: %q is neither IPv4 nor IPv6", ErrInvalidIP, s)
	}
	return addr.Unmap(), nil
}
