// Package geotest builds small MaxMind-format databases for tests, so no
// real GeoIP database is ever committed or needed. Only tests import it.
package geotest

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"secutil/tools/geo"
)

// Network is one network of a test database and its record.
type Network struct {
	CIDR   string
	Record mmdbtype.Map
}

// WriteDB builds a small .mmdb file with the given networks, built now.
func WriteDB(t testing.TB, path, dbType string, networks []Network) {
	t.Helper()
	WriteDBBuiltAt(t, path, dbType, time.Now(), networks)
}

// WriteDBBuiltAt is WriteDB with the build date in the metadata given.
func WriteDBBuiltAt(t testing.TB, path, dbType string, built time.Time, networks []Network) {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: dbType, RecordSize: 24, BuildEpoch: built.Unix()})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range networks {
		_, ipnet, err := net.ParseCIDR(n.CIDR)
		if err != nil {
			t.Fatal(err)
		}
		if err := tree.Insert(ipnet, n.Record); err != nil {
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

func names(s string) mmdbtype.Map {
	return mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String(s)}}
}

// CityRecord is a GeoLite2-City record.
func CityRecord(city, region, iso, country string, eu bool, lat, lon float64, tz, postal string) mmdbtype.Map {
	c := mmdbtype.Map{"iso_code": mmdbtype.String(iso), "names": mmdbtype.Map{"en": mmdbtype.String(country)}}
	if eu {
		c["is_in_european_union"] = mmdbtype.Bool(true)
	}
	return mmdbtype.Map{
		"city":         names(city),
		"subdivisions": mmdbtype.Slice{names(region)},
		"country":      c,
		"location": mmdbtype.Map{
			"latitude": mmdbtype.Float64(lat), "longitude": mmdbtype.Float64(lon), "time_zone": mmdbtype.String(tz),
		},
		"postal": mmdbtype.Map{"code": mmdbtype.String(postal)},
	}
}

// ASNRecord is a GeoLite2-ASN record.
func ASNRecord(n uint32, org string) mmdbtype.Map {
	return mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(n), "autonomous_system_organization": mmdbtype.String(org)}
}

// FlatCityRecord is a record in ip-location-db's flat City layout, which
// stores coordinates as float32.
func FlatCityRecord(iso, state, city, postcode string, lat, lon float32, tz string) mmdbtype.Map {
	return mmdbtype.Map{
		"country_code": mmdbtype.String(iso), "state1": mmdbtype.String(state), "city": mmdbtype.String(city),
		"postcode": mmdbtype.String(postcode), "latitude": mmdbtype.Float32(lat), "longitude": mmdbtype.Float32(lon),
		"timezone": mmdbtype.String(tz),
	}
}

// CityNetworks: London (GB), Berlin (DE, EU) and Paris over IPv6 (FR, EU).
var CityNetworks = []Network{
	{"81.2.69.0/24", CityRecord("London", "England", "GB", "United Kingdom", false, 51.5142, -0.0931, "Europe/London", "EC2V")},
	{"89.160.20.0/24", CityRecord("Berlin", "Land Berlin", "DE", "Germany", true, 52.52, 13.40, "Europe/Berlin", "10117")},
	{"2a02:ff0::/32", CityRecord("Paris", "Île-de-France", "FR", "France", true, 48.86, 2.35, "Europe/Paris", "75001")},
}

// Databases writes City, ASN and ISP databases into a temporary directory.
func Databases(t testing.TB) geo.Config {
	dir := t.TempDir()
	cfg := geo.Config{
		CityPath: filepath.Join(dir, "city.mmdb"),
		ASNPath:  filepath.Join(dir, "asn.mmdb"),
		ISPPath:  filepath.Join(dir, "isp.mmdb"),
	}
	WriteDB(t, cfg.CityPath, "GeoLite2-City", CityNetworks)
	WriteDB(t, cfg.ASNPath, "GeoLite2-ASN", []Network{
		{"81.2.69.0/24", ASNRecord(20712, "Andrews & Arnold Ltd")},
		{"89.160.20.0/24", ASNRecord(3320, "Deutsche Telekom AG")},
		{"2a02:ff0::/32", ASNRecord(3215, "Orange")},
	})
	isp := ASNRecord(3320, "Deutsche Telekom AG")
	isp["isp"] = mmdbtype.String("Telekom Deutschland")
	WriteDB(t, cfg.ISPPath, "GeoIP2-ISP", []Network{{"89.160.20.0/24", isp}})
	return cfg
}
