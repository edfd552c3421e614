package cmd

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

// embeddedGeoipOutput is what `secutil geoip` writes with the embedded
// data alone, run once for the tests that read it: counting the networks
// walks every page of the embedded databases (about 0.2 CPU-second).
var embeddedGeoipOutput = sync.OnceValues(func() (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"secutil", "geoip"}, env(nil), nil, &out, io.Discard)
	return out.String(), err
})

// mustEmbeddedGeoipOutput is embeddedGeoipOutput, failing t when the
// command failed.
func mustEmbeddedGeoipOutput(t *testing.T) string {
	t.Helper()
	out, err := embeddedGeoipOutput()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGeoipCommandListsDatabases(t *testing.T) {
	t.Parallel()
	embedded := mustEmbeddedGeoipOutput(t)
	for _, want := range []string{
		"Country (embedded)", "DB-IP Lite Country 20", "ASN (embedded)", "RouteViews/DB-IP ASN 20",
		"type:     country", "built:", "networks", "CC BY 4.0", "db-ip.com", "routeviews.org", "@ip-location-db/asn",
	} {
		if !strings.Contains(embedded, want) {
			t.Errorf("output lacks %q:\n%s", want, embedded)
		}
	}

	// A City file ahead of them, built long ago, is listed first and flagged.
	city := filepath.Join(t.TempDir(), "old-city.mmdb")
	geotest.WriteDBBuiltAt(t, city, "GeoLite2-City", time.Now().Add(-geo.MaxAge-48*time.Hour), geotest.CityNetworks)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"secutil", "geoip", "-geoip-city", city, "-geoip-embedded=false"}, env(nil), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "City (-geoip-city)") || !strings.Contains(got, "STALE") || !strings.Contains(got, "3 networks") || strings.Contains(got, "embedded") {
		t.Errorf("with an old City file and no embedded data:\n%s", got)
	}

	err := run(context.Background(), []string{"secutil", "geoip"}, env(map[string]string{"SECUTIL_GEOIP_EMBEDDED": "false"}), nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-geoip-embedded") {
		t.Errorf("no database at all: got %v, want an error saying what to set", err)
	}
}

// A GeoIP file that does not open is named with the flag that set it: the
// geo package knows roles and paths, the command line knows its flags.
func TestMissingGeoIPFileNamesItsFlag(t *testing.T) {
	t.Parallel()
	for flag, cfg := range map[string]geo.Config{
		"-geoip-city": {CityPath: "/nonexistent/city.mmdb"},
		"-geoip-asn":  {ASNPath: "/nonexistent/asn.mmdb"},
		"-geoip-isp":  {ISPPath: "/nonexistent/isp.mmdb"},
	} {
		if _, err := openGeo(cfg); err == nil || !strings.Contains(err.Error(), "(set by "+flag+")") {
			t.Errorf("got %v, want an error naming %s", err, flag)
		}
	}
}

func embeddedLocator(t *testing.T) *geo.Locator {
	t.Helper()
	locator, err := geo.Open(geo.Config{Embedded: true, CheckInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locator.Close)
	return locator
}

func TestGeoIPAge(t *testing.T) {
	t.Parallel()
	built := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name        string
		db          geo.Database
		now         time.Time
		want, never string
	}{
		{"fresh file", geo.Database{Path: "/x.mmdb", Built: built}, built.AddDate(0, 0, 10), "10 days old", "180"},
		{"stale file", geo.Database{Path: "/x.mmdb", Built: built}, built.AddDate(0, 0, 200), "200 days old, STALE: older than 180 days, replace it", "-geoip-city"},
		{"fresh embedded", geo.Database{Built: built}, built.AddDate(0, 0, 179), "179 days old", "180"},
		{"old embedded", geo.Database{Built: built}, built.AddDate(0, 0, 200), "200 days old, older than 180 days: the data this binary carries; for newer data give MaxMind-format files with -geoip-city and -geoip-asn", "STALE"},
	} {
		got := geoIPAge(c.db, c.now)
		if !strings.HasPrefix(got, c.want) || strings.Contains(got, c.never) {
			t.Errorf("%s: %q, want it to start %q and not hold %q", c.name, got, c.want, c.never)
		}
	}
}

// TestGeoipCommandNamesDataDate: `secutil geoip` opens with the date of
// the data, as /health reports it.
func TestGeoipCommandNamesDataDate(t *testing.T) {
	t.Parallel()
	out := mustEmbeddedGeoipOutput(t)
	want := "GeoIP data dated " + embeddedLocator(t).DataDate().Format(time.DateOnly) + " (the oldest database in use)"
	if !strings.HasPrefix(out, want) {
		t.Errorf("output does not open with %q:\n%s", want, out)
	}
}
