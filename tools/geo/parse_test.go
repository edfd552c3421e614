package geo_test

import (
	"errors"
	"strings"
	"testing"

	"secutil/tools/geo"
)

func TestParseIP(t *testing.T) {
	tests := []struct {
		in, want string // want "" means an error
		reason   string
	}{
		{"81.2.69.160", "81.2.69.160", ""},
		{"  81.2.69.160\n", "81.2.69.160", ""},
		{"2001:db8::1", "2001:db8::1", ""},
		{"2001:DB8:0:0:0:0:0:1", "2001:db8::1", ""},
		{"::ffff:81.2.69.160", "81.2.69.160", ""},
		{"::", "::", ""},
		{"", "", "empty"},
		{"   ", "", "empty"},
		{"81.2.69.0/24", "", "CIDR"},
		{"fe80::1%eth0", "", "zone"},
		{"81.2.69.160:443", "", "port"},
		{"[2001:db8::1]:443", "", "port"},
		{"[2001:db8::1]", "", "port"},
		{"256.1.1.1", "", "neither"},
		{"081.2.69.160", "", "neither"},
		{"example.com", "", "neither"},
		{strings.Repeat("1", 100), "", "longer"},
	}
	for _, tt := range tests {
		got, err := geo.ParseIP(tt.in)
		if tt.want == "" {
			if !errors.Is(err, geo.ErrInvalidIP) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("ParseIP(%q): got %v, want an error mentioning %q", tt.in, err, tt.reason)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseIP(%q): got %v, %v, want %s", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"81.2.69.160", "::1", "::ffff:1.2.3.4", "fe80::1%eth0", "1.2.3.0/24", "[::1]:80", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip, err := geo.ParseIP(s)
		if err != nil {
			if !errors.Is(err, geo.ErrInvalidIP) {
				t.Fatalf("error %v does not wrap ErrInvalidIP", err)
			}
			return
		}
		if !ip.IsValid() || ip.Zone() != "" || ip.Is4In6() {
			t.Fatalf("ParseIP(%q) = %v", s, ip)
		}
		if again, err := geo.ParseIP(ip.String()); err != nil || again != ip {
			t.Fatalf("%v does not round-trip: %v, %v", ip, again, err)
		}
	})
}
