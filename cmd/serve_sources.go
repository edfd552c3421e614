package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"secutil/store/hashindex"
	"secutil/tools/breach"
	"secutil/tools/geo"
	"secutil/tools/strength"
)

// sources are the files the handlers read besides the databases: the
// GeoIP databases, the Pwned Passwords files and the embedded common-password list.
type sources struct {
	geo         *geo.Locator
	breaches    breachSources
	closeBreach func()
	// commonPasswords is the embedded common-password list, most common
	// first, which seeds the hash index.
	commonPasswords []string
}

func openSources(c serveConfig, logger *slog.Logger) (*sources, error) {
	locator, err := openGeo(c.geo)
	if err != nil {
		return nil, err
	}
	reportGeoIPData(locator, logger)
	// Decoded once: the breach sources and the hash index's seed both read it.
	common := strength.CommonPasswords()
	breaches, closeBreach, err := openBreachSources(c.breachFile, c.breachFileNTLM, common)
	if err != nil {
		locator.Close()
		return nil, err
	}
	return &sources{geo: locator, breaches: breaches, closeBreach: closeBreach, commonPasswords: common}, nil
}

func (s *sources) close() {
	s.closeBreach()
	s.geo.Close()
}

// breachSources answer /data_breach; the files, when given, also GET /range.
type breachSources struct {
	sha1, ntlm         breach.Source
	sha1File, ntlmFile *breach.File
}

// openBreachSources opens the Pwned Passwords files given; without a SHA-1
// file, the embedded common-password list answers /data_breach (with count
// 0: unknown) and GET /range has no SHA-1 answers.
func openBreachSources(sha1Path, ntlmPath string, common []string) (b breachSources, closeAll func(), err error) {
	closeAll = func() {
		for _, f := range []*breach.File{b.sha1File, b.ntlmFile} {
			if f != nil {
				f.Close()
			}
		}
	}
	if sha1Path == "" {
		b.sha1 = breach.NewListSource("embedded common-password list", common, breach.KindSHA1)
	} else if b.sha1File, err = breach.OpenFile(sha1Path, breach.KindSHA1); err != nil {
		return b, closeAll, fmt.Errorf("-breach-file: %w", err)
	} else {
		b.sha1 = breach.NewFileSource(b.sha1File)
	}
	if ntlmPath != "" {
		if b.ntlmFile, err = breach.OpenFile(ntlmPath, breach.KindNTLM); err != nil {
			closeAll()
			return b, closeAll, fmt.Errorf("-breach-file-ntlm: %w", err)
		}
		b.ntlm = breach.NewFileSource(b.ntlmFile)
	}
	return b, closeAll, nil
}

// openHashIndex opens the reverse-lookup index and, on first start (or when
// the embedded list changed), fills it from seed, the common-password list.
func openHashIndex(ctx context.Context, given, db string, seed []string) (*hashindex.Index, error) {
	ix, err := hashindex.Open(hashDBPath(given, db))
	if err != nil {
		return nil, err
	}
	if err := ix.EnsureSeeded(ctx, seed); err != nil {
		ix.Close()
		return nil, fmt.Errorf("seeding the hash index: %w", err)
	}
	return ix, nil
}

// reportGeoIPData logs, at start, the age of the GeoIP data in use.
func reportGeoIPData(locator *geo.Locator, logger *slog.Logger) {
	now := time.Now()
	warnStaleGeoIP(locator, logger, now)
	logEmbeddedGeoIP(locator, logger)
}

// warnStaleGeoIP logs a warning for each database file in use that is
// older than geo.MaxAge: the operator who gave it can replace it. The
// embedded data cannot be replaced by updating it; its age is the info line
// of logEmbeddedGeoIP.
func warnStaleGeoIP(locator *geo.Locator, logger *slog.Logger, now time.Time) {
	for _, db := range locator.Databases() {
		if db.Path != "" && db.Stale(now) {
			logger.Warn("GeoIP database is older than 180 days; replace it (docs/GEOIP.md)",
				"database", db.Name, "role", db.Role, "set_by", geoFlagOf(db), "built", db.Built.Format(time.DateOnly))
		}
	}
}

// logEmbeddedGeoIP logs, once at start, the embedded GeoIP data in use,
// each database with its date, and how to supply newer data.
func logEmbeddedGeoIP(locator *geo.Locator, logger *slog.Logger) {
	var names []string
	for _, db := range locator.Databases() {
		if db.Path == "" {
			names = append(names, db.Name)
		}
	}
	if names != nil {
		logger.Info("GeoIP: answering from the embedded data, " + strings.Join(names, " + ") + "; " + newerGeoIPData)
	}
}

// reloadOnHangup reopens the GeoIP databases on SIGHUP, after an operator
// replaced them (they are also reloaded when their files change).
func reloadOnHangup(ctx context.Context, locator *geo.Locator, logger *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := locator.Reload(); err != nil {
				logger.Error("reloading GeoIP databases; keeping the old ones", "err", err)
			} else {
				logger.Info("reloaded GeoIP databases")
				warnStaleGeoIP(locator, logger, time.Now())
			}
		}
	}
}
