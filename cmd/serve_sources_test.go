package cmd

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

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

func TestServeWarnsAboutStaleGeoIP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	city := filepath.Join(dir, "old-city.mmdb")
	geotest.WriteDBBuiltAt(t, city, "GeoLite2-City", time.Now().Add(-geo.MaxAge-48*time.Hour), geotest.CityNetworks)
	index := cmdtest.SharedHashDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &cmdtest.SyncBuffer{}, &cmdtest.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"secutil", "-geoip-city", city}, env(map[string]string{
			"SECUTIL_DB": cmdtest.NewDatabase(t, filepath.Join(dir, "s.db")), "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": index,
		}), nil, stdout, stderr)
	}()
	cmdtest.WaitForURL(t, stdout)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "older than 180 days") || !strings.Contains(stderr.String(), "GeoLite2-City") {
		t.Fatalf("no stale-database warning in the log:\n%s", stderr)
	}
}
