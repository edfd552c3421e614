// Package geo geolocates IP addresses with MaxMind-format (.mmdb) databases:
// the embedded DB-IP Lite Country and RouteViews/DB-IP ASN databases by
// default, and City, ASN and ISP files an operator gives, which take
// precedence field by field. Country extras (name, flag, calling code,
// currency, languages, EU membership) come from an embedded ISO 3166 table.
package geo

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"
)

// Info is the GeoInfo2 object of the OpenAPI document: every field is present in JSON and
// null when unknown; Source names the databases the answer came from. Its
// pointers and slices may be shared with other answers: treat them as
// read-only.
type Info struct {
	IP          *string  `json:"ip"`
	City        *string  `json:"city"`
	Region      *string  `json:"region"`
	Country     *string  `json:"country"`
	CountryISO  *string  `json:"country_iso"`
	CountryFlag *string  `json:"country_flag"`
	Postal      *string  `json:"postal"`
	Timezone    *string  `json:"timezone"`
	CallingCode *string  `json:"calling_code"`
	Currency    *string  `json:"currency"`
	ISP         *string  `json:"isp"`
	Org         *string  `json:"org"`
	Latitude    *float64 `json:"latitude"`
	Longitude   *float64 `json:"longitude"`
	EU          *bool    `json:"eu"`
	Languages   []string `json:"languages"`
	ASN         *int     `json:"asn"`
	Source      string   `json:"source"`
	Note        string   `json:"note,omitempty"`
}

// DefaultCheckInterval is how often Lookup looks at the database files'
// modification times when Config.CheckInterval is zero.
const DefaultCheckInterval = time.Minute

// MaxAge is the age past which a database is stale: IP allocations move
// every month, so the server warns at start about an older one.
const MaxAge = 180 * 24 * time.Hour

// Config names the database files. Each is optional; the embedded databases
// answer whatever fields the files leave null.
type Config struct {
	CityPath, ASNPath, ISPPath string
	// Embedded adds the built-in DB-IP Lite Country and RouteViews/DB-IP ASN
	// databases after the files (-geoip-embedded, on by default).
	Embedded bool
	// CheckInterval: how often Lookup checks whether a file changed and
	// reloads it; 0 means DefaultCheckInterval, negative never.
	CheckInterval time.Duration
}

// ErrNoDatabase is returned by Lookup when no database at all is in use
// (the embedded ones turned off and no file given).
var ErrNoDatabase = errors.New("no GeoIP database configured")

// specialPurposeSource is the source of answers for private and reserved
// addresses, which no database is asked about.
const specialPurposeSource = "IANA special-purpose address registries (built in)"

// Database describes one database in use.
type Database struct {
	Role    string // City, ASN, ISP, Country (embedded), ASN (embedded)
	Path    string // the file; "" when embedded
	Origin  string // when embedded: the npm package, version and tarball sha256 it came from
	Type    string // the file's database_type metadata
	Name    string // how `source` names it: type (or embedded name) and build date
	Built   time.Time
	License string
	Nodes   uint // search tree nodes, from the metadata
}

// Stale reports whether the database was built more than MaxAge before now.
func (d Database) Stale(now time.Time) bool { return now.Sub(d.Built) > MaxAge }

// records says which fields a database's records hold.
type records int

const (
	locationRecords records = iota // City or Country
	asnRecords
	ispRecords
)

// database is an open reader with what Lookup needs to use it.
type database struct {
	Database
	reader *maxminddb.Reader
	holds  records
	flat   bool // ip-location-db's flat records ({"country_code"...}), not the GeoIP2 layout
	stamp  fileStamp
}

// fill adds what the database knows about ip to the fields of info that are
// still null, and reports whether it set any. (A switch, not a func value,
// so info can stay on the caller's stack.)
func (db *database) fill(info *Info, ip netip.Addr) (bool, error) {
	switch db.holds {
	case asnRecords:
		return addASN(info, db, ip)
	case ispRecords:
		return addISP(info, db, ip)
	}
	return addLocation(info, db, ip)
}

// fileSource is one configurable database file and the role it plays.
type fileSource struct {
	path, role string
	holds      records
}

// The roles of the database files a Locator can be given.
const (
	RoleCity = "City"
	RoleASN  = "ASN"
	RoleISP  = "ISP"
)

// OpenError is a configured database file that could not be opened; the
// caller knows which setting named it.
type OpenError struct {
	Role, Path string
	Err        error
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("geo: cannot open the %s database %s: %v", e.Role, e.Path, e.Err)
}

func (e *OpenError) Unwrap() error { return e.Err }

// fileStamp identifies one version of a file.
type fileStamp struct {
	modTime time.Time
	size    int64
}

// generation is one set of open databases in precedence order, and the
// `source` text for each subset of them that can answer a lookup (indexed by
// a bit mask of their positions), built once so lookups do not allocate it.
type generation struct {
	dbs     []*database
	sources []string
}

func newGeneration(dbs []*database) *generation {
	g := &generation{dbs: dbs, sources: make([]string, 1<<len(dbs))}
	for mask := range g.sources {
		var names []string
		for i, db := range dbs {
			if mask&(1<<i) != 0 {
				names = append(names, db.Name)
			}
		}
		g.sources[mask] = strings.Join(names, " + ")
	}
	return g
}

// close unmaps the generation's files; the embedded databases outlive it.
func (g *generation) close() {
	for _, db := range g.dbs {
		if db.Path != "" {
			db.reader.Close()
		}
	}
}

// Locator answers lookups. It is safe for concurrent use. File readers are
// memory-mapped and embedded ones read the binary's own bytes in place; a
// reload swaps in new file readers under the write lock and unmaps the old
// ones only after in-flight lookups (read lock holders) end.
type Locator struct {
	files     []fileSource
	embedded  []*database // opened once, kept across reloads
	interval  time.Duration
	lastCheck atomic.Int64 // unix nanoseconds of the last mtime check

	mu  sync.RWMutex
	gen *generation
}

// Open opens the configured databases. A missing or unreadable file is an
// *OpenError.
func Open(cfg Config) (*Locator, error) {
	l := &Locator{
		files: []fileSource{
			{cfg.CityPath, RoleCity, locationRecords},
			{cfg.ASNPath, RoleASN, asnRecords},
			{cfg.ISPPath, RoleISP, ispRecords},
		},
		interval: cfg.CheckInterval,
	}
	if l.interval == 0 {
		l.interval = DefaultCheckInterval
	}
	if cfg.Embedded {
		embedded, err := openEmbedded()
		if err != nil {
			return nil, err
		}
		l.embedded = embedded
	}
	gen, err := l.open()
	if err != nil {
		return nil, err
	}
	l.gen = gen
	l.lastCheck.Store(time.Now().UnixNano())
	return l, nil
}

// openEmbedded opens the built-in databases on the bytes compiled into the
// binary: nothing is copied, and only the pages a lookup touches are read.
func openEmbedded() ([]*database, error) {
	prov, err := EmbeddedProvenance()
	if err != nil {
		return nil, err
	}
	var dbs []*database
	for _, e := range []struct {
		role  string
		data  []byte
		src   EmbeddedSource
		holds records
	}{
		{"Country (embedded)", embeddedCountry, prov.Country, locationRecords},
		{"ASN (embedded)", embeddedASN, prov.ASN, asnRecords},
	} {
		r, err := maxminddb.OpenBytes(e.data)
		if err != nil {
			return nil, fmt.Errorf("geo: embedded %s database is corrupt: %w", e.src.File, err)
		}
		origin := fmt.Sprintf("npm %s %s (tarball sha256 %s)", e.src.Package, e.src.Version, e.src.TarballSHA256)
		dbs = append(dbs, newDatabase(r, Database{Role: e.role, Origin: origin, License: e.src.License}, e.src.Name, e.holds))
	}
	return dbs, nil
}

func newDatabase(r *maxminddb.Reader, d Database, name string, holds records) *database {
	d.Type = r.Metadata.DatabaseType
	d.Built = r.Metadata.BuildTime().UTC()
	d.Nodes = r.Metadata.NodeCount
	if name == "" {
		name = d.Type
	}
	d.Name = name + " " + d.Built.Format(time.DateOnly)
	if d.License == "" {
		d.License = licenseOf(d.Type)
	}
	return &database{Database: d, reader: r, holds: holds, flat: holds == locationRecords && hasFlatRecords(r)}
}

// hasFlatRecords tells ip-location-db's flat layout ({"country_code": "US",
// "city": "..."}) from the GeoIP2 one ({"country": {"iso_code": "US"}}) by
// the first record: a database uses one layout throughout.
func hasFlatRecords(r *maxminddb.Reader) bool {
	for res := range r.Networks() {
		var code string
		return res.DecodePath(&code, "country_code") == nil && code != ""
	}
	return false
}

// licenseOf names the licence of a database file by its type; a file does
// not record its licence, so this goes by the publishers' naming.
func licenseOf(dbType string) string {
	t := strings.ToLower(dbType)
	switch {
	case strings.HasPrefix(t, "geolite2"):
		return "MaxMind GeoLite2 End User License Agreement (attribution to MaxMind required)"
	case strings.HasPrefix(t, "geoip2"):
		return "MaxMind commercial licence"
	case strings.HasPrefix(t, "dbip"):
		return "CC BY 4.0: IP geolocation by DB-IP (https://db-ip.com)"
	}
	return "not recorded in the file: see its publisher"
}

func (l *Locator) open() (*generation, error) {
	var dbs []*database
	for _, src := range l.files {
		if src.path == "" {
			continue
		}
		stamp, err := stat(src.path)
		var r *maxminddb.Reader
		if err == nil {
			r, err = maxminddb.Open(src.path)
		}
		if err != nil {
			(&generation{dbs: dbs}).close()
			return nil, &OpenError{Role: src.role, Path: src.path, Err: err}
		}
		db := newDatabase(r, Database{Role: src.role, Path: src.path}, "", src.holds)
		db.stamp = stamp
		dbs = append(dbs, db)
	}
	return newGeneration(append(dbs, l.embedded...)), nil
}

func stat(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.ModTime(), fi.Size()}, nil
}

// Reload reopens every configured database file (the server calls it on
// SIGHUP). On error the previous databases stay in use.
func (l *Locator) Reload() error {
	gen, err := l.open()
	if err != nil {
		return err
	}
	l.mu.Lock()
	old := l.gen
	l.gen = gen
	l.mu.Unlock()
	old.close() // no lookup holds old: they all ran under the read lock
	return nil
}

// Close unmaps the databases; the Locator must not be used afterwards.
func (l *Locator) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen.close()
	for _, db := range l.embedded {
		db.reader.Close()
	}
	l.gen = newGeneration(nil)
}

// reloadIfChanged stats the files at most once per interval and reloads
// when one changed. A failed reload keeps the old databases (a file being
// replaced may be momentarily incomplete; the next check retries).
func (l *Locator) reloadIfChanged() {
	if l.interval < 0 {
		return
	}
	now := time.Now().UnixNano()
	last := l.lastCheck.Load()
	if now-last < int64(l.interval) || !l.lastCheck.CompareAndSwap(last, now) {
		return
	}
	l.mu.RLock()
	var stale bool
	for _, db := range l.gen.dbs {
		if db.Path == "" {
			continue
		}
		if current, err := stat(db.Path); err == nil && current != db.stamp {
			stale = true
			break
		}
	}
	l.mu.RUnlock()
	if stale {
		_ = l.Reload()
	}
}

// Databases describes the databases in use, in precedence order.
func (l *Locator) Databases() []Database {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]Database, len(l.gen.dbs))
	for i, db := range l.gen.dbs {
		out[i] = db.Database
	}
	return out
}

// DataDate is the build date of the oldest database in use: how old the
// data behind an answer can be. It is the zero time when none is in use.
func (l *Locator) DataDate() time.Time {
	var oldest time.Time
	for _, db := range l.Databases() {
		if oldest.IsZero() || db.Built.Before(oldest) {
			oldest = db.Built
		}
	}
	return oldest
}

// CountNetworks counts the networks with a record in each database in use,
// in Databases' order. It walks every tree, reading every page of every
// file, so only the `secutil geoip` command calls it, never the server.
func (l *Locator) CountNetworks() ([]int, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	counts := make([]int, len(l.gen.dbs))
	for i, db := range l.gen.dbs {
		for res := range db.reader.Networks() {
			if err := res.Err(); err != nil {
				return nil, fmt.Errorf("geo: walking %s: %w", db.Name, err)
			}
			counts[i]++
		}
	}
	return counts, nil
}

// Lookup geolocates ip. Each database in use, in precedence order, fills
// the fields still null. Private, loopback and other non-public addresses
// give an Info with only IP, Source and Note set, not an error; so does an
// address no database holds.
func (l *Locator) Lookup(ip netip.Addr) (Info, error) {
	ip = ip.Unmap()
	info := Info{IP: ptr(ip.String())}
	if note := nonPublicNote(ip); note != "" {
		info.Note, info.Source = note, specialPurposeSource
		return info, nil
	}
	l.reloadIfChanged()
	l.mu.RLock()
	defer l.mu.RUnlock()
	g := l.gen
	if len(g.dbs) == 0 {
		return Info{}, ErrNoDatabase
	}
	answered := 0
	for i, db := range g.dbs {
		contributed, err := db.fill(&info, ip)
		if err != nil {
			return Info{}, err
		}
		if contributed {
			answered |= 1 << i
		}
	}
	if answered == 0 {
		info.Note = "address not found in any GeoIP database"
		answered = len(g.sources) - 1 // the answer is that every database was asked
	}
	info.Source = g.sources[answered]
	if info.ISP == nil {
		info.ISP = info.Org
	}
	return info, nil
}
