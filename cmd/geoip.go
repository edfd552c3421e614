package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"secutil/tools/geo"
	"secutil/tools/plural"
)

// geoip is `secutil geoip`: it opens the databases serve would use and
// prints each with its type, build date, record count and licence.
func (Program) geoip(_ context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	var cfg geo.Config
	fs := newFlagSet("geoip", stderr)
	geoFlags(fs, &cfg)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	cfg.CheckInterval = -1
	locator, err := openGeo(cfg)
	if err != nil {
		return err
	}
	defer locator.Close()
	dbs := locator.Databases()
	if len(dbs) == 0 {
		return fmt.Errorf("%w: leave -geoip-embedded on, or set -geoip-city, -geoip-asn or -geoip-isp", geo.ErrNoDatabase)
	}
	counts, err := locator.CountNetworks()
	if err != nil {
		return err
	}
	now := time.Now()
	fmt.Fprintf(stdout, "GeoIP data dated %s (the oldest database in use)\n\n", locator.DataDate().Format(time.DateOnly))
	fmt.Fprintln(stdout, "GeoIP databases, in precedence order (each fills the fields the ones above leave null):")
	for i, db := range dbs {
		where := db.Path
		if where == "" {
			where = "embedded in the binary, " + db.Origin
		}
		fmt.Fprintf(stdout, "\n%s (%s)\n  name:     %s\n  type:     %s\n  built:    %s (%s)\n  records:  %s (%s)\n  license:  %s\n  file:     %s\n",
			db.Role, geoFlagOf(db), db.Name, db.Type, db.Built.Format(time.DateOnly), geoIPAge(db, now), plural.Count(counts[i], "network", "networks"), plural.Count(int(db.Nodes), "tree node", "tree nodes"), db.License, where)
	}
	return nil
}

// geoFlags registers the GeoIP database flags, shared by serve and geoip.
func geoFlags(fs *flag.FlagSet, cfg *geo.Config) {
	fs.StringVar(&cfg.CityPath, "geoip-city", "", "MaxMind-format City (or Country) database (.mmdb) for /ip_info: city, region, postal, time zone, coordinates, and country ahead of the embedded one; see docs/GEOIP.md")
	fs.StringVar(&cfg.ASNPath, "geoip-asn", "", "MaxMind-format ASN database (.mmdb): asn and org, ahead of the embedded ones")
	fs.StringVar(&cfg.ISPPath, "geoip-isp", "", "MaxMind-format ISP database (.mmdb): isp")
	fs.BoolVar(&cfg.Embedded, "geoip-embedded", true, "answer country and ASN from the databases built into the binary (DB-IP Lite Country, RouteViews/DB-IP ASN) where the files above do not")
}

// geoFlagOf names the setting that put a database in use, for messages to
// the operator.
func geoFlagOf(db geo.Database) string {
	switch {
	case db.Path == "":
		return "-geoip-embedded"
	case db.Role == geo.RoleCity:
		return "-geoip-city"
	case db.Role == geo.RoleASN:
		return "-geoip-asn"
	default:
		return "-geoip-isp"
	}
}

// openGeo opens the GeoIP databases; a file that does not open is named
// with the flag that set it.
func openGeo(cfg geo.Config) (*geo.Locator, error) {
	locator, err := geo.Open(cfg)
	var open *geo.OpenError
	if errors.As(err, &open) {
		return nil, fmt.Errorf("%w (set by %s)", err, geoFlagOf(geo.Database{Role: open.Role, Path: open.Path}))
	}
	return locator, err
}

// newerGeoIPData says how an operator supplies newer location data than
// the binary carries.
const newerGeoIPData = "for newer data give MaxMind-format files with -geoip-city and -geoip-asn (docs/GEOIP.md)"

func daysBetween(then, now time.Time) int { return int(now.Sub(then).Hours() / 24) }

// geoIPAge is a database's age as `secutil geoip` shows it, with what to do
// once it is stale: replace a file; supply a file ahead of the embedded data.
func geoIPAge(db geo.Database, now time.Time) string {
	age := plural.Count(daysBetween(db.Built, now), "day", "days") + " old"
	switch {
	case !db.Stale(now):
		return age
	case db.Path == "":
		return age + ", older than 180 days: the data this binary carries; " + newerGeoIPData
	default:
		return age + ", STALE: older than 180 days, replace it"
	}
}
