package geo

import (
	"fmt"
	"math"
	"net/netip"

	"github.com/oschwald/maxminddb-golang/v2"
)

// Two record layouts are read. The GeoIP2 one of MaxMind's GeoLite2/GeoIP2
// City, Country, ASN and ISP databases (DB-IP's own Lite downloads use the
// same field names), and the flat one of ip-location-db's packages, the
// embedded country database among them: {"country_code", "state1", "city",
// "postcode", "latitude", "longitude", "timezone"}. Their ASN records share
// the GeoLite2-ASN fields.

// englishName keeps only the English one of a record's names: decoding into
// a struct skips the other languages instead of allocating a map of them.
type englishName struct {
	EN string `maxminddb:"en"`
}

type names struct {
	Names englishName `maxminddb:"names"`
}

type countryRecord struct {
	ISOCode           string      `maxminddb:"iso_code"`
	Names             englishName `maxminddb:"names"`
	IsInEuropeanUnion bool        `maxminddb:"is_in_european_union"`
}

type cityRecord struct {
	City              names         `maxminddb:"city"`
	Subdivisions      []names       `maxminddb:"subdivisions"`
	Country           countryRecord `maxminddb:"country"`
	RegisteredCountry countryRecord `maxminddb:"registered_country"`
	Location          struct {
		Latitude  *float64 `maxminddb:"latitude"`
		Longitude *float64 `maxminddb:"longitude"`
		TimeZone  string   `maxminddb:"time_zone"`
	} `maxminddb:"location"`
	Postal struct {
		Code string `maxminddb:"code"`
	} `maxminddb:"postal"`
}

type flatRecord struct {
	CountryCode string   `maxminddb:"country_code"`
	State       string   `maxminddb:"state1"`
	City        string   `maxminddb:"city"`
	Postcode    string   `maxminddb:"postcode"`
	Latitude    *float64 `maxminddb:"latitude"`
	Longitude   *float64 `maxminddb:"longitude"`
	Timezone    string   `maxminddb:"timezone"`
}

type asnRecord struct {
	Number       uint32 `maxminddb:"autonomous_system_number"`
	Organization string `maxminddb:"autonomous_system_organization"`
}

type ispRecord struct {
	Number       uint32 `maxminddb:"autonomous_system_number"`
	ASNOrg       string `maxminddb:"autonomous_system_organization"`
	ISP          string `maxminddb:"isp"`
	Organization string `maxminddb:"organization"`
}

// lookup decodes ip's record into v and reports whether there was one.
func lookup(r *maxminddb.Reader, ip netip.Addr, v any) (bool, error) {
	res := r.Lookup(ip)
	if err := res.Err(); err != nil {
		return false, fmt.Errorf("geo: lookup %s: %w", ip, err)
	}
	if !res.Found() {
		return false, nil
	}
	if err := res.Decode(v); err != nil {
		return false, fmt.Errorf("geo: decode record for %s: %w", ip, err)
	}
	return true, nil
}

// filler sets fields of an Info that are still null and remembers whether
// it set any.
type filler struct {
	info *Info
	set  bool
}

func (f *filler) str(field **string, v string) {
	if *field == nil && v != "" {
		copied := v // only a value that is kept goes to the heap
		*field, f.set = &copied, true
	}
}

// coordinates keeps four decimals (about 10 m), as MaxMind publishes them:
// flat databases store float32, whose float64 form has noise digits.
func (f *filler) coordinates(lat, lon *float64) {
	if f.info.Latitude == nil && f.info.Longitude == nil && lat != nil && lon != nil {
		f.info.Latitude, f.info.Longitude, f.set = ptr(round4(*lat)), ptr(round4(*lon)), true
	}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// country sets the country fields as one group, so they never mix two
// databases' answers.
func (f *filler) country(iso, dbName string, inEU bool) {
	if f.info.CountryISO == nil && iso != "" {
		f.set = addCountry(f.info, iso, dbName, inEU) || f.set
	}
}

// addLocation reads a City or Country database in either layout.
func addLocation(info *Info, db *database, ip netip.Addr) (bool, error) {
	f := filler{info: info}
	if db.flat {
		var rec flatRecord
		if found, err := lookup(db.reader, ip, &rec); !found || err != nil {
			return false, err
		}
		f.country(rec.CountryCode, "", euMember(rec.CountryCode))
		f.str(&info.Region, rec.State)
		f.str(&info.City, rec.City)
		f.str(&info.Postal, rec.Postcode)
		f.str(&info.Timezone, rec.Timezone)
		f.coordinates(rec.Latitude, rec.Longitude)
		return f.set, nil
	}
	var rec cityRecord
	if found, err := lookup(db.reader, ip, &rec); !found || err != nil {
		return false, err
	}
	c := rec.Country
	if c.ISOCode == "" {
		c = rec.RegisteredCountry
	}
	f.country(c.ISOCode, c.Names.EN, c.IsInEuropeanUnion)
	if len(rec.Subdivisions) > 0 {
		f.str(&info.Region, rec.Subdivisions[0].Names.EN)
	}
	f.str(&info.City, rec.City.Names.EN)
	f.str(&info.Postal, rec.Postal.Code)
	f.str(&info.Timezone, rec.Location.TimeZone)
	f.coordinates(rec.Location.Latitude, rec.Location.Longitude)
	return f.set, nil
}

// asn sets asn and org where still null. An organisation is taken only
// together with its own AS number (or with none), so asn and org never
// describe two different networks.
func (f *filler) asn(number uint32, org string) {
	if f.info.ASN != nil && number != 0 && *f.info.ASN != int(number) {
		return
	}
	if f.info.ASN == nil && number != 0 {
		f.info.ASN, f.set = ptr(int(number)), true
	}
	f.str(&f.info.Org, org)
}

func addASN(info *Info, db *database, ip netip.Addr) (bool, error) {
	var rec asnRecord
	if found, err := lookup(db.reader, ip, &rec); !found || err != nil {
		return false, err
	}
	f := filler{info: info}
	f.asn(rec.Number, rec.Organization)
	return f.set, nil
}

// addISP sets isp, and asn/org when the ASN database did not.
func addISP(info *Info, db *database, ip netip.Addr) (bool, error) {
	var rec ispRecord
	if found, err := lookup(db.reader, ip, &rec); !found || err != nil {
		return false, err
	}
	f := filler{info: info}
	f.str(&info.ISP, rec.ISP)
	org := rec.ASNOrg
	if org == "" {
		org = rec.Organization
	}
	f.asn(rec.Number, org)
	return f.set, nil
}
