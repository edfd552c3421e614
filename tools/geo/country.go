package geo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// countriesJSON comes from the countries-list package; see data/README.md.
//
//go:embed data/countries.json
var countriesJSON []byte

type country struct {
	Name      string   `json:"name"`
	Phone     []int    `json:"phone"`
	Currency  []string `json:"currency"`
	Languages []string `json:"languages"`

	// Worked out once at load, so a lookup only copies them.
	flag, callingCode, currency string
}

// countries maps ISO 3166-1 alpha-2 codes to their extras.
var countries = mustLoadCountries()

func mustLoadCountries() map[string]country {
	var m map[string]country
	if err := json.Unmarshal(countriesJSON, &m); err != nil {
		panic("geo: embedded countries.json is corrupt: " + err.Error())
	}
	for iso, c := range m {
		c.flag, _ = flag(iso)
		if len(c.Phone) > 0 {
			c.callingCode = fmt.Sprintf("+%d", c.Phone[0])
		}
		if len(c.Currency) > 0 {
			c.currency = c.Currency[0]
		}
		m[iso] = c
	}
	return m
}

// flag turns a two-letter ISO code into its emoji: each letter maps to the
// matching Unicode regional indicator symbol.
func flag(iso string) (string, bool) {
	if len(iso) != 2 {
		return "", false
	}
	var b strings.Builder
	for _, c := range strings.ToUpper(iso) {
		if c < 'A' || c > 'Z' {
			return "", false
		}
		b.WriteRune(0x1F1E6 + (c - 'A'))
	}
	return b.String(), true
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
	extras, known := countries[iso]
	if !known && dbName == "" {
		return false
	}
	info.CountryISO = ptr(iso)
	info.EU = ptr(inEU)
	info.Country = nonEmpty(dbName)
	if info.Country == nil {
		info.Country = nonEmpty(extras.Name)
	}
	if !known {
		extras.flag, _ = flag(iso)
	}
	info.CountryFlag = nonEmpty(extras.flag)
	info.CallingCode = nonEmpty(extras.callingCode)
	info.Currency = nonEmpty(extras.currency)
	if len(extras.Languages) > 0 {
		info.Languages = append([]string(nil), extras.Languages...)
	}
	return true
}

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
