package geo_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"secutil/tools/geo"
)

type network struct {
	cidr   string
	record mmdbtype.Map
}

// writeDB builds a small .mmdb file with the given networks.
func writeDB(t testing.TB, path, dbType string, networks []network) {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: dbType, RecordSize: 24})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range networks {
		_, ipnet, err := net.ParseCIDR(n.cidr)
		if err != nil {
			t.Fatal(err)
		}
		if err := tree.Insert(ipnet, n.record); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatal(err)
	}
}

func en(s string) mmdbtype.Map { return mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String(s)}} }

func cityRecord(city, region, iso, country string, eu bool, lat, lon float64, tz, postal string) mmdbtype.Map {
	c := mmdbtype.Map{"iso_code": mmdbtype.String(iso), "names": mmdbtype.Map{"en": mmdbtype.String(country)}}
	if eu {
		c["is_in_european_union"] = mmdbtype.Bool(true)
	}
	return mmdbtype.Map{
		"city":         en(city),
		"subdivisions": mmdbtype.Slice{en(region)},
		"country":      c,
		"location": mmdbtype.Map{
			"latitude": mmdbtype.Float64(lat), "longitude": mmdbtype.Float64(lon), "time_zone": mmdbtype.String(tz),
		},
		"postal": mmdbtype.Map{"code": mmdbtype.String(postal)},
	}
}

func asnRecord(n uint32, org string) mmdbtype.Map {
	return mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(n), "autonomous_system_organization": mmdbtype.String(org)}
}

var cityNetworks = []network{
	{"81.2.69.0/24", cityRecord("London", "England", "GB", "United Kingdom", false, 51.5142, -0.0931, "Europe/London", "EC2V")},
	{"89.160.20.0/24", cityRecord("Berlin", "Land Berlin", "DE", "Germany", true, 52.52, 13.40, "Europe/Berlin", "10117")},
	{"2a02:ff0::/32", cityRecord("Paris", "Île-de-France", "FR", "France", true, 48.86, 2.35, "Europe/Paris", "75001")},
}

// testConfig writes City, ASN and ISP databases into a temporary directory.
func testConfig(t testing.TB) geo.Config {
	dir := t.TempDir()
	cfg := geo.Config{
		CityPath: filepath.Join(dir, "city.mmdb"),
		ASNPath:  filepath.Join(dir, "asn.mmdb"),
		ISPPath:  filepath.Join(dir, "isp.mmdb"),
	}
	writeDB(t, cfg.CityPath, "GeoLite2-City", cityNetworks)
	writeDB(t, cfg.ASNPath, "GeoLite2-ASN", []network{
		{"81.2.69.0/24", asnRecord(20712, "Andrews & Arnold Ltd")},
		{"89.160.20.0/24", asnRecord(3320, "Deutsche Telekom AG")},
		{"2a02:ff0::/32", asnRecord(3215, "Orange")},
	})
	isp := asnRecord(3320, "Deutsche Telekom AG")
	isp["isp"] = mmdbtype.String("Telekom Deutschland")
	writeDB(t, cfg.ISPPath, "GeoIP2-ISP", []network{{"89.160.20.0/24", isp}})
	return cfg
}

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
	info := lookup(t, open(t, testConfig(t)), "81.2.69.160")
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
	info := lookup(t, open(t, testConfig(t)), "89.160.20.112")
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
	info := lookup(t, open(t, testConfig(t)), "2a02:ff0:1::1")
	if got, want := str(info.City), "Paris"; got != want {
		t.Fatalf("city: got %q, want %q", got, want)
	}
	if info.ASN == nil || *info.ASN != 3215 {
		t.Fatalf("asn: got %v, want 3215", info.ASN)
	}
}

func TestIPv4MappedIsUnmapped(t *testing.T) {
	info := lookup(t, open(t, testConfig(t)), "::ffff:81.2.69.160")
	if got, want := str(info.IP), "81.2.69.160"; got != want {
		t.Fatalf("ip: got %q, want %q", got, want)
	}
	if got, want := str(info.City), "London"; got != want {
		t.Fatalf("city: got %q, want %q", got, want)
	}
}

func TestNonPublicAddresses(t *testing.T) {
	l := open(t, testConfig(t))
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
	info := lookup(t, open(t, testConfig(t)), "8.8.8.8")
	if info.Country != nil || info.ASN != nil || info.Note == "" {
		t.Fatalf("got %+v", info)
	}
}

func TestJSONHasEveryFieldNull(t *testing.T) {
	info := lookup(t, open(t, testConfig(t)), "8.8.8.8")
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
	if !strings.Contains(geo.ErrNoDatabase.Error(), "-geoip-city") {
		t.Fatal("ErrNoDatabase does not name the flag")
	}
}

func TestMissingFileNamesFlag(t *testing.T) {
	for _, c := range []struct {
		cfg  geo.Config
		flag string
	}{
		{geo.Config{CityPath: "/nonexistent/city.mmdb"}, "-geoip-city"},
		{geo.Config{ASNPath: "/nonexistent/asn.mmdb"}, "-geoip-asn"},
		{geo.Config{ISPPath: "/nonexistent/isp.mmdb"}, "-geoip-isp"},
	} {
		_, err := geo.Open(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("got %v, want an error naming %s", err, c.flag)
		}
	}
}

// replaceCity atomically swaps the City file for one placing 81.2.69.0/24 in
// Manchester, with a later mtime.
func replaceCity(t *testing.T, cfg geo.Config) {
	tmp := cfg.CityPath + ".new"
	writeDB(t, tmp, "GeoLite2-City", []network{
		{"81.2.69.0/24", cityRecord("Manchester", "England", "GB", "United Kingdom", false, 53.48, -2.24, "Europe/London", "M1")},
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
	cfg := testConfig(t)
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
	cfg := testConfig(t)
	cfg.CheckInterval = time.Nanosecond
	l := open(t, cfg)
	replaceCity(t, cfg)
	if got, want := str(lookup(t, l, "81.2.69.160").City), "Manchester"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestFailedReloadKeepsOldDatabases(t *testing.T) {
	cfg := testConfig(t)
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
	l := open(b, testConfig(b))
	ip := netip.MustParseAddr("89.160.20.112")
	for b.Loop() {
		if _, err := l.Lookup(ip); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLookupsDuringReloads(t *testing.T) {
	cfg := testConfig(t)
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
