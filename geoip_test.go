package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

func TestGeoipCommandListsDatabases(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"secutil", "geoip"}, env(nil), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Country (embedded)", "DB-IP Lite Country 20", "ASN (embedded)", "RouteViews/DB-IP ASN 20",
		"type:     country", "built:", "networks", "CC BY 4.0", "db-ip.com", "routeviews.org", "@ip-location-db/asn",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// A City file ahead of them, built long ago, is listed first and flagged.
	city := filepath.Join(t.TempDir(), "old-city.mmdb")
	geotest.WriteDBBuiltAt(t, city, "GeoLite2-City", time.Now().Add(-geo.MaxAge-48*time.Hour), geotest.CityNetworks)
	out.Reset()
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

func TestServeWarnsAboutStaleGeoIP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	city := filepath.Join(dir, "old-city.mmdb")
	geotest.WriteDBBuiltAt(t, city, "GeoLite2-City", time.Now().Add(-geo.MaxAge-48*time.Hour), geotest.CityNetworks)
	index := sharedHashDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"secutil", "-geoip-city", city}, env(map[string]string{
			"SECUTIL_DB": filepath.Join(dir, "s.db"), "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": index,
		}), nil, stdout, stderr)
	}()
	waitForURL(t, stdout)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "older than 180 days") || !strings.Contains(stderr.String(), "GeoLite2-City") {
		t.Fatalf("no stale-database warning in the log:\n%s", stderr)
	}
}

// TestBinaryTakesNewDataWhileServing runs secutil as a process and gives
// it new data the ways an operator would, without a restart: a City file
// replaced and picked up on SIGHUP, and a wordlist imported into its hash
// index by another process. (A server with no GeoIP flag at all is
// TestBinaryEndToEnd's.)
func TestBinaryTakesNewDataWhileServing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	bin := secutilBinary(t)
	dir := t.TempDir()
	city := filepath.Join(dir, "city.mmdb")
	geotest.WriteDB(t, city, "GeoLite2-City", geotest.CityNetworks)
	db := filepath.Join(dir, "city.db")
	cmd, base, logs, key := serveWithAccount(t, bin, db, "bob@example.com", "pro", "-geoip-city", city)

	t.Run("a City file replaced is read on SIGHUP", func(t *testing.T) {
		t.Parallel()
		if _, gb := postJSON(t, base+"/api/v1/ip_info", key, map[string]string{"ip_string": "81.2.69.160"}); gb["city"] != "London" || gb["asn"] != float64(20712) {
			t.Fatalf("81.2.69.160 with a City file: %v", gb)
		}
		next := city + ".new"
		geotest.WriteDB(t, next, "GeoLite2-City", []geotest.Network{
			{CIDR: "81.2.69.0/24", Record: geotest.CityRecord("Manchester", "England", "GB", "United Kingdom", false, 53.48, -2.24, "Europe/London", "M1")},
		})
		if err := os.Rename(next, city); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		// The answer can change before the log line is written (a changed file
		// is also picked up without the signal), so wait for both.
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, gb := postJSON(t, base+"/api/v1/ip_info", key, map[string]string{"ip_string": "81.2.69.160"})
			if gb["city"] == "Manchester" && gb["asn"] == float64(20712) && strings.Contains(logs.String(), "reloaded GeoIP databases") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("SIGHUP did not reload the City file, or logged no reload: %v\nlogs:\n%s", gb, logs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	t.Run("import-wordlist while serving", func(t *testing.T) {
		t.Parallel()
		importWhileServing(t, bin, db, base, key)
	})
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
