package geo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// countriesJSON comes from the countries-list package; see data/README.md.
//
//go:embed data/countries.json
var countriesJSON []byte

// countryFields are one country's GeoInfo2 fields, built once at load and
// shared by every answer about that country, so a lookup allocates none of
// them (an Info's pointers and slices are read-only).
type countryFields struct {
	iso, name, flag, callingCode, currency *string
	languages                              []string
}

// countries maps ISO 3166-1 alpha-2 codes to their fields. It is decoded
// on the first lookup, not at package init, so a process that never looks
// up an address (secutil version) does not pay for the JSON.
var countries = sync.OnceValue(mustLoadCountries)

func mustLoadCountries() map[string]*countryFields {
	var m map[string]struct {
		Name      string   `json:"name"`
		Phone     []int    `json:"phone"`
		Currency  []string `json:"currency"`
		Languages []string `json:"languages"`
	}
	if err := json.Unmarshal(countriesJSON, &m); err != nil {
		panic("geo: embedded countries.json is corrupt: " + err.Error())
	}
	out := make(map[string]*countryFields, len(m))
	for iso, c := range m {
		f := &countryFields{iso: ptr(iso), name: nonEmpty(c.Name), flag: flagOf(iso)}
		if len(c.Phone) > 0 {
			f.callingCode = ptr(fmt.Sprintf("+%d", c.Phone[0]))
		}
		if len(c.Currency) > 0 {
			f.currency = &c.Currency[0]
		}
		if len(c.Languages) > 0 {
			f.languages = c.Languages
		}
		out[iso] = f
	}
	return out
}

// flagOf turns a two-letter ISO code into its emoji (each letter maps to
// the matching Unicode regional indicator symbol), or nil.
func flagOf(iso string) *string {
	if len(iso) != 2 {
		return nil
	}
	var b strings.Builder
	for _, c := range strings.ToUpper(iso) {
		if c < 'A' || c > 'Z' {
			return nil
		}
		b.WriteRune(0x1F1E6 + (c - 'A'))
	}
	return ptr(b.String())
}

// euMembers are the member states of the European Union since 1 February
// 2020, for databases whose records do not say (the flat layout).
var euMembers = map[string]bool{
	"AT": true, "BE": true, "BG": true, "CY": true, "CZ": true, "DE": true, "DK": true,
	"EE": true, "ES": true, "FI": true, "FR": true, "GR": true, "HR": true, "HU": true,
	"IE": true, "IT": true, "LT": true, "LU": true, "LV": true, "MT": true, "NL": true,
	"PL": true, "PT": true, "RO": true, "SE": true, "SI": true, "SK": true,
}

func euMember(iso string) bool { return euMembers[strings.ToUpper(iso)] }

// addCountry fills the country-derived fields of info from the ISO code,
// the database's English name (preferred over the table's) and EU flag. It
// reports false, setting nothing, for a code neither the table nor the
// database can name.
func addCountry(info *Info, iso, dbName string, inEU bool) bool {
	iso = strings.ToUpper(iso)
	c, known := countries()[iso]
	if !known {
		if dbName == "" {
			return false
		}
		c = &countryFields{iso: &iso, flag: flagOf(iso)}
	}
	info.CountryISO, info.Country, info.CountryFlag = c.iso, c.name, c.flag
	info.CallingCode, info.Currency, info.Languages = c.callingCode, c.currency, c.languages
	if dbName != "" {
		info.Country = &dbName
	}
	info.EU = &no
	if inEU {
		info.EU = &yes
	}
	return true
}

// yes and no are shared by every answer's eu field.
var yes, no = true, false

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	kept := s // so an empty s costs no allocation
	return &kept
}
