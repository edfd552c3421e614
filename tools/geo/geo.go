// Package geo geolocates IP addresses with MaxMind-format (.mmdb) City, ASN
// and ISP databases and adds country extras (flag, calling code, currency,
// languages) from an embedded ISO 3166 table.
package geo

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"
)

// Info is the GeoInfo2 object of the OpenAPI document: every field is present in JSON and
// null when unknown.
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
	Note        string   `json:"note,omitempty"`
}

// DefaultCheckInterval is how often Lookup looks at the database files'
// modification times when Config.CheckInterval is zero.
const DefaultCheckInterval = time.Minute

// Config names the database files. Only CityPath is needed for lookups;
// ASNPath and ISPPath add asn, org and isp.
type Config struct {
	CityPath, ASNPath, ISPPath string
	// CheckInterval: how often Lookup checks whether a file changed and
	// reloads it; 0 means DefaultCheckInterval, negative never.
	CheckInterval time.Duration
}

// ErrNoDatabase is returned by Lookup when no City database is configured.
var ErrNoDatabase = errors.New("no GeoIP City database configured")

// source is one configured database file and the flag that sets it.
type source struct {
	path, kind, flag, env string
}

// fileStamp identifies one version of a file.
type fileStamp struct {
	modTime time.Time
	size    int64
}

// generation is one set of open readers; nil readers are not configured.
type generation struct {
	city, asn, isp *maxminddb.Reader
	stamps         [3]fileStamp
}

func (g *generation) readers() [3]**maxminddb.Reader {
	return [3]**maxminddb.Reader{&g.city, &g.asn, &g.isp}
}

func (g *generation) close() {
	for _, r := range g.readers() {
		if *r != nil {
			(*r).Close()
		}
	}
}

// Locator answers lookups. It is safe for concurrent use. Readers are
// memory-mapped; a reload swaps in new readers under the write lock and
// unmaps the old ones only after in-flight lookups (read lock holders) end.
type Locator struct {
	sources   [3]source
	interval  time.Duration
	lastCheck atomic.Int64 // unix nanoseconds of the last mtime check

	mu  sync.RWMutex
	gen *generation
}

// Open opens the configured databases. A missing or unreadable file is an
// error naming the flag that set it.
func Open(cfg Config) (*Locator, error) {
	l := &Locator{
		sources: [3]source{
			{cfg.CityPath, "City", "-geoip-city", "SECUTIL_GEOIP_CITY"},
			{cfg.ASNPath, "ASN", "-geoip-asn", "SECUTIL_GEOIP_ASN"},
			{cfg.ISPPath, "ISP", "-geoip-isp", "SECUTIL_GEOIP_ISP"},
		},
		interval: cfg.CheckInterval,
	}
	if l.interval == 0 {
		l.interval = DefaultCheckInterval
	}
	gen, err := l.open()
	if err != nil {
		return nil, err
	}
	l.gen = gen
	l.lastCheck.Store(time.Now().UnixNano())
	return l, nil
}

func (l *Locator) open() (*generation, error) {
	gen := &generation{}
	for i, r := range gen.readers() {
		src := l.sources[i]
		if src.path == "" {
			continue
		}
		stamp, err := stat(src.path)
		if err == nil {
			*r, err = maxminddb.Open(src.path)
		}
		if err != nil {
			gen.close()
			return nil, fmt.Errorf("geo: cannot open %s database (set by %s / %s): %w", src.kind, src.flag, src.env, err)
		}
		gen.stamps[i] = stamp
	}
	return gen, nil
}

func stat(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.ModTime(), fi.Size()}, nil
}

// Reload reopens every configured database (the server calls it on SIGHUP).
// On error the previous databases stay in use.
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
	l.gen = &generation{}
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
	stamps := l.gen.stamps
	l.mu.RUnlock()
	for i, src := range l.sources {
		if src.path == "" {
			continue
		}
		if current, err := stat(src.path); err == nil && current != stamps[i] {
			_ = l.Reload()
			return
		}
	}
}

// Lookup geolocates ip. Private, loopback and other non-public addresses
// give an Info with only IP and Note set, not an error.
func (l *Locator) Lookup(ip netip.Addr) (Info, error) {
	ip = ip.Unmap()
	info := Info{IP: ptr(ip.String())}
	if note := nonPublicNote(ip); note != "" {
		info.Note = note
		return info, nil
	}
	l.reloadIfChanged()
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.gen.city == nil {
		return Info{}, ErrNoDatabase
	}
	found, err := addCity(&info, l.gen.city, ip)
	if err != nil {
		return Info{}, err
	}
	if !found {
		info.Note = "address not found in the GeoIP City database"
	}
	if l.gen.asn != nil {
		if err := addASN(&info, l.gen.asn, ip); err != nil {
			return Info{}, err
		}
	}
	if l.gen.isp != nil {
		if err := addISP(&info, l.gen.isp, ip); err != nil {
			return Info{}, err
		}
	}
	if info.ISP == nil {
		info.ISP = info.Org
	}
	return info, nil
}
