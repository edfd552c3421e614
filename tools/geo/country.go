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
}

// countries maps ISO 3166-1 alpha-2 codes to their extras.
var countries = mustLoadCountries()

func mustLoadCountries() map[string]country {
	var m map[string]country
	if err := json.Unmarshal(countriesJSON, &m); err != nil {
		panic("geo: embedded countries.json is corrupt: " + err.Error())
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

// addCountry fills the country-derived fields of info from the ISO code,
// the database's English name (preferred over the table's) and EU flag.
func addCountry(info *Info, iso, dbName string, inEU bool) {
	iso = strings.ToUpper(iso)
	extras, known := countries[iso]
	if !known && dbName == "" {
		return
	}
	info.CountryISO = ptr(iso)
	info.EU = ptr(inEU)
	info.Country = nonEmpty(dbName)
	if info.Country == nil {
		info.Country = nonEmpty(extras.Name)
	}
	if f, ok := flag(iso); ok {
		info.CountryFlag = &f
	}
	if len(extras.Phone) > 0 {
		info.CallingCode = ptr(fmt.Sprintf("+%d", extras.Phone[0]))
	}
	if len(extras.Currency) > 0 {
		info.Currency = ptr(extras.Currency[0])
	}
	if len(extras.Languages) > 0 {
		info.Languages = append([]string(nil), extras.Languages...)
	}
}

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
