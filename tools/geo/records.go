package geo

import (
	"fmt"
	"net/netip"

	"github.com/oschwald/maxminddb-golang/v2"
)

// Record layouts follow MaxMind's GeoLite2/GeoIP2 City, ASN and ISP
// databases (DB-IP Lite uses the same field names).

type names struct {
	Names map[string]string `maxminddb:"names"`
}

type countryRecord struct {
	ISOCode           string            `maxminddb:"iso_code"`
	Names             map[string]string `maxminddb:"names"`
	IsInEuropeanUnion bool              `maxminddb:"is_in_european_union"`
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

func addCity(info *Info, r *maxminddb.Reader, ip netip.Addr) (bool, error) {
	var rec cityRecord
	found, err := lookup(r, ip, &rec)
	if !found || err != nil {
		return found, err
	}
	info.City = nonEmpty(rec.City.Names["en"])
	if len(rec.Subdivisions) > 0 {
		info.Region = nonEmpty(rec.Subdivisions[0].Names["en"])
	}
	c := rec.Country
	if c.ISOCode == "" {
		c = rec.RegisteredCountry
	}
	if c.ISOCode != "" {
		addCountry(info, c.ISOCode, c.Names["en"], c.IsInEuropeanUnion)
	}
	info.Latitude, info.Longitude = rec.Location.Latitude, rec.Location.Longitude
	info.Timezone = nonEmpty(rec.Location.TimeZone)
	info.Postal = nonEmpty(rec.Postal.Code)
	return true, nil
}

func setASN(info *Info, rec asnRecord) {
	if rec.Number != 0 && info.ASN == nil {
		info.ASN = ptr(int(rec.Number))
	}
	if info.Org == nil {
		info.Org = nonEmpty(rec.Organization)
	}
}

func addASN(info *Info, r *maxminddb.Reader, ip netip.Addr) error {
	var rec asnRecord
	found, err := lookup(r, ip, &rec)
	if found {
		setASN(info, rec)
	}
	return err
}

// addISP sets isp, and asn/org when the ASN database did not.
func addISP(info *Info, r *maxminddb.Reader, ip netip.Addr) error {
	var rec ispRecord
	found, err := lookup(r, ip, &rec)
	if !found || err != nil {
		return err
	}
	info.ISP = nonEmpty(rec.ISP)
	org := rec.ASNOrg
	if org == "" {
		org = rec.Organization
	}
	setASN(info, asnRecord{Number: rec.Number, Organization: org})
	return nil
}
