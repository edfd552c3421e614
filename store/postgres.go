package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	if _, err := pgx.ParseConfig(dsn); err != nil {
		return nil, err
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	// Every server holds up to this many connections (and one more that
	// listens for revocations): three servers fit well in PostgreSQL's
	// default max_connections of 100.
	conns := max(8, 4*runtime.NumCPU())
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &Store{backend: Postgres, write: db, read: db, dsn: dsn, forUpdate: " FOR UPDATE"}, nil
}

// Describe is dsn fit for a log line or a message: a PostgreSQL URL
// without its password.
func Describe(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "a PostgreSQL URL that does not parse"
	}
	return u.Redacted()
}

// authChannel is the notification channel the auth_changed trigger
// (migrations/postgres/0006_instances.sql) notifies.
const authChannel = "secutil_auth"

// listenerName is the application_name of the connection that listens on
// authChannel, with the process id of its server, so that an operator can
// tell which server's it is in pg_stat_activity.
var listenerName = fmt.Sprintf("secutil auth listener, pid %d", os.Getpid())

// listenAuth sends on notified (without blocking: one pending signal is
// enough) whenever a change to keys or accounts commits, until stop is
// closed. A lost connection is made again after a second; changes missed
// meanwhile are caught by the generation check in watchAuth.
func (s *Store) listenAuth(stop <-chan struct{}, notified chan<- struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	for ctx.Err() == nil {
		var conn *pgx.Conn
		config, err := pgx.ParseConfig(s.dsn)
		if err == nil {
			config.RuntimeParams["application_name"] = listenerName
			conn, err = pgx.ConnectConfig(ctx, config)
		}
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+authChannel)
			for err == nil {
				if _, err = conn.WaitForNotification(ctx); err == nil {
					select {
					case notified <- struct{}{}:
					default:
					}
				}
			}
			conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
