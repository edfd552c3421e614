package geo_test

import (
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/maxmind/mmdbwriter/mmdbtype"

	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

func open(t testing.TB, cfg geo.Config) *geo.Locator {
	t.Helper()
	l, err := geo.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func lookup(t *testing.T, l *geo.Locator, ip string) geo.Info {
	t.Helper()
	info, err := l.Lookup(netip.MustParseAddr(ip))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestLookupGB(t *testing.T) {
	info := lookup(t, open(t, geotest.Databases(t)), "81.2.69.160")
	for _, c := range []struct{ name, got, want string }{
		{"ip", str(info.IP), "81.2.69.160"},
		{"city", str(info.City), "London"},
		{"region", str(info.Region), "England"},
		{"country", str(info.Country), "United Kingdom"},
		{"country_iso", str(info.CountryISO), "GB"},
		{"country_flag", str(info.CountryFlag), "🇬🇧"},
		{"calling_code", str(info.CallingCode), "+44"},
		{"currency", str(info.Currency), "GBP"},
		{"timezone", str(info.Timezone), "Europe/London"},
		{"postal", str(info.Postal), "EC2V"},
		{"org", str(info.Org), "Andrews & Arnold Ltd"},
		{"isp (from ASN org)", str(info.ISP), "Andrews & Arnold Ltd"},
		{"languages", strings.Join(info.Languages, ","), "en"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
	if info.EU == nil || *info.EU {
		t.Errorf("eu: got %v, want false", info.EU)
	}
	if info.ASN == nil || *info.ASN != 20712 {
		t.Errorf("asn: got %v, want 20712", info.ASN)
	}
	if info.Latitude == nil || *info.Latitude != 51.5142 || info.Longitude == nil || *info.Longitude != -0.0931 {
		t.Errorf("location: got %v, %v", info.Latitude, info.Longitude)
	}
}

func TestLookupDEWithISP(t *testing.T) {
	info := lookup(t, open(t, geotest.Databases(t)), "89.160.20.112")
	if info.EU == nil || !*info.EU {
		t.Fatalf("eu: got %v, want true", info.EU)
	}
	if got, want := str(info.ISP), "Telekom Deutschland"; got != want {
		t.Fatalf("isp: got %q, want %q", got, want)
	}
	if got, want := str(info.Currency), "EUR"; got != want {
		t.Fatalf("currency: got %q, want %q", got, want)
	}
}

func TestLookupIPv6(t *testing.T) {
	info := lookup(t, open(t, geotest.Databases(t)), "2a02:ff0:1::1")
	if got, want := str(info.City), "Paris"; got != want {
		t.Fatalf("city: got %q, want %q", got, want)
	}
	if info.ASN == nil || *info.ASN != 3215 {
		t.Fatalf("asn: got %v, want 3215", info.ASN)
	}
}

func TestIPv4MappedIsUnmapped(t *testing.T) {
	info := lookup(t, open(t, geotest.Databases(t)), "::ffff:81.2.69.160")
	if got, want := str(info.IP), "81.2.69.160"; got != want {
		t.Fatalf("ip: got %q, want %q", got, want)
	}
	if got, want := str(info.City), "London"; got != want {
		t.Fatalf("city: got %q, want %q", got, want)
	}
}

func TestNonPublicAddresses(t *testing.T) {
	l := open(t, geotest.Databases(t))
	for _, ip := range []string{"10.1.2.3", "192.168.0.1", "127.0.0.1", "::1", "fe80::1", "100.64.0.1", "192.0.2.1", "2001:db8::1", "0.0.0.0", "224.0.0.1", "fd00::1"} {
		info := lookup(t, l, ip)
		if info.Note == "" || info.Country != nil || str(info.IP) != ip {
			t.Errorf("%s: got %+v", ip, info)
		}
	}
	if got := lookup(t, l, "10.0.0.1").Note; !strings.Contains(got, "private") {
		t.Errorf("note: got %q, want it to say private", got)
	}
}

func TestNotFoundHasNullsAndNote(t *testing.T) {
	info := lookup(t, open(t, geotest.Databases(t)), "8.8.8.8")
	if info.Country != nil || info.ASN != nil || info.Note == "" {
		t.Fatalf("got %+v", info)
	}
}

func TestJSONHasEveryFieldNull(t *testing.T) {
	info := lookup(t, open(t, geotest.Databases(t)), "8.8.8.8")
	raw, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Fields("city region country country_iso country_flag postal timezone calling_code currency isp org latitude longitude eu languages asn") {
		v, present := m[k]
		if !present || v != nil {
			t.Errorf("%s: present %v value %v, want null", k, present, v)
		}
	}
}

func TestNoDatabase(t *testing.T) {
	l := open(t, geo.Config{})
	if _, err := l.Lookup(netip.MustParseAddr("81.2.69.160")); !errors.Is(err, geo.ErrNoDatabase) {
		t.Fatalf("got %v, want %v", err, geo.ErrNoDatabase)
	}
}

func TestMissingFileIsAnOpenError(t *testing.T) {
	for _, c := range []struct {
		cfg  geo.Config
		role string
	}{
		{geo.Config{CityPath: "/nonexistent/city.mmdb"}, geo.RoleCity},
		{geo.Config{ASNPath: "/nonexistent/asn.mmdb"}, geo.RoleASN},
		{geo.Config{ISPPath: "/nonexistent/isp.mmdb"}, geo.RoleISP},
	} {
		_, err := geo.Open(c.cfg)
		var open *geo.OpenError
		if !errors.As(err, &open) || open.Role != c.role || !strings.Contains(err.Error(), "/nonexistent/") {
			t.Errorf("got %v, want an OpenError for the %s file naming its path", err, c.role)
		}
	}
}

// replaceCity atomically swaps the City file for one placing 81.2.69.0/24 in
// Manchester, with a later mtime.
func replaceCity(t *testing.T, cfg geo.Config) {
	tmp := cfg.CityPath + ".new"
	geotest.WriteDB(t, tmp, "GeoLite2-City", []geotest.Network{
		{CIDR: "81.2.69.0/24", Record: geotest.CityRecord("Manchester", "England", "GB", "United Kingdom", false, 53.48, -2.24, "Europe/London", "M1")},
	})
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(tmp, later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, cfg.CityPath); err != nil {
		t.Fatal(err)
	}
}

func TestReload(t *testing.T) {
	cfg := geotest.Databases(t)
	cfg.CheckInterval = -1 // only explicit reloads
	l := open(t, cfg)
	replaceCity(t, cfg)
	if got, want := str(lookup(t, l, "81.2.69.160").City), "London"; got != want {
		t.Fatalf("before reload: got %q, want %q", got, want)
	}
	if err := l.Reload(); err != nil {
		t.Fatal(err)
	}
	if got, want := str(lookup(t, l, "81.2.69.160").City), "Manchester"; got != want {
		t.Fatalf("after reload: got %q, want %q", got, want)
	}
}

func TestReloadOnFileChange(t *testing.T) {
	cfg := geotest.Databases(t)
	cfg.CheckInterval = time.Nanosecond
	l := open(t, cfg)
	replaceCity(t, cfg)
	if got, want := str(lookup(t, l, "81.2.69.160").City), "Manchester"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestFailedReloadKeepsOldDatabases(t *testing.T) {
	cfg := geotest.Databases(t)
	l := open(t, cfg)
	// Replace by rename, as geoipupdate does: writing into the mapped file
	// in place would corrupt the live mapping.
	tmp := cfg.CityPath + ".new"
	if err := os.WriteFile(tmp, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, cfg.CityPath); err != nil {
		t.Fatal(err)
	}
	if err := l.Reload(); err == nil {
		t.Fatal("reload of a corrupt file succeeded")
	}
	if got, want := str(lookup(t, l, "81.2.69.160").City), "London"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func BenchmarkLookup(b *testing.B) {
	b.ReportAllocs()
	l := open(b, geotest.Databases(b))
	ip := netip.MustParseAddr("89.160.20.112")
	for b.Loop() {
		if _, err := l.Lookup(ip); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLookupsDuringReloads(t *testing.T) {
	cfg := geotest.Databases(t)
	cfg.CheckInterval = -1
	l := open(t, cfg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			if err := l.Reload(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
			if got, want := str(lookup(t, l, "81.2.69.160").City), "London"; got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	}
}

// TestDatabaseCountryNameWins: the City database's English country name is
// preferred over the table's, and the other languages are not needed.
func TestDatabaseCountryNameWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "city.mmdb")
	rec := geotest.CityRecord("London", "England", "GB", "Great Britain", false, 51.5, -0.1, "Europe/London", "EC2V")
	rec["country"].(mmdbtype.Map)["names"].(mmdbtype.Map)["de"] = mmdbtype.String("Vereinigtes Königreich")
	geotest.WriteDB(t, path, "GeoLite2-City", []geotest.Network{{CIDR: "81.2.69.0/24", Record: rec}})
	info := lookup(t, open(t, geo.Config{CityPath: path}), "81.2.69.160")
	if got, want := str(info.Country), "Great Britain"; got != want {
		t.Fatalf("country: got %q, want %q", got, want)
	}
	if got, want := str(info.Currency), "GBP"; got != want {
		t.Fatalf("currency: got %q, want %q (from the table)", got, want)
	}
}
