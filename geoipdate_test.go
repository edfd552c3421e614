package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"secutil/tools/geo"
)

func embeddedLocator(t *testing.T) *geo.Locator {
	t.Helper()
	locator, err := geo.Open(geo.Config{Embedded: true, CheckInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locator.Close)
	return locator
}

// TestOldEmbeddedGeoIPIsInfo: the embedded data past 180 days is not
// something the operator can fix by updating, so start-up says its date and
// the flags for newer data in one info line, and warns about nothing.
func TestOldEmbeddedGeoIPIsInfo(t *testing.T) {
	t.Parallel()
	locator := embeddedLocator(t)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	muchLater := locator.DataDate().Add(geo.MaxAge + 30*24*time.Hour)
	warnStaleGeoIP(locator, logger, muchLater)
	logEmbeddedGeoIP(locator, logger)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=INFO") || strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("want one info line and no warning, got:\n%s", logs.String())
	}
	for _, want := range []string{"-geoip-city", "-geoip-asn", "DB-IP Lite Country " + locator.DataDate().Format(time.DateOnly)} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("the info line lacks %q: %s", want, lines[0])
		}
	}
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
	var out bytes.Buffer
	if err := run(context.Background(), []string{"secutil", "geoip"}, env(nil), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := "GeoIP data dated " + embeddedLocator(t).DataDate().Format(time.DateOnly) + " (the oldest database in use)"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("output does not open with %q:\n%s", want, out.String())
	}
}
