package geo_test

import (
	"testing"
	"time"

	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

// TestDataDateIsTheOldest: the date /health reports is that of the oldest
// database in use, the one staleness turns on.
func TestDataDateIsTheOldest(t *testing.T) {
	t.Parallel()
	cfg := geotest.Databases(t)
	built := time.Date(2020, 3, 4, 0, 0, 0, 0, time.UTC)
	geotest.WriteDBBuiltAt(t, cfg.CityPath, "GeoLite2-City", built, geotest.CityNetworks)
	cfg.Embedded, cfg.CheckInterval = true, -1
	if got := open(t, cfg).DataDate(); !got.Equal(built) {
		t.Errorf("with a 2020 City file ahead of newer ones: DataDate = %v, want %v", got, built)
	}

	embedded := open(t, geo.Config{Embedded: true, CheckInterval: -1})
	got := embedded.DataDate()
	var isOne bool
	for _, db := range embedded.Databases() {
		if db.Built.Before(got) {
			t.Errorf("DataDate %v is after %s's build date", got, db.Name)
		}
		isOne = isOne || db.Built.Equal(got)
	}
	if !isOne {
		t.Errorf("embedded DataDate %v is no database's build date", got)
	}

	if got := open(t, geo.Config{CheckInterval: -1}).DataDate(); !got.IsZero() {
		t.Errorf("no database: DataDate = %v, want the zero time", got)
	}
}
