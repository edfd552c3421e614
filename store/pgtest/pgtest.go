// Package pgtest gives tests a PostgreSQL database of their own: a new
// schema in the database that SECUTIL_TEST_POSTGRES names, dropped when the
// test ends. Without the variable the PostgreSQL tests skip; with it, a
// database that does not answer fails them (CI sets it, and must not pass
// by skipping).
package pgtest

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the database the tests may create schemas in, as a
// postgres:// URL.
const EnvVar = "SECUTIL_TEST_POSTGRES"

// Enabled reports whether EnvVar is set.
func Enabled() bool { return os.Getenv(EnvVar) != "" }

// URL returns a URL of the database EnvVar names whose search_path is a new,
// empty schema, dropped with everything in it when t ends. It skips t when
// EnvVar is not set.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		t.Skip(EnvVar + " is not set: no PostgreSQL to test against")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	schema := "test_" + strings.ToLower(rand.Text()[:12])
	exec(t, base, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { exec(t, base, "DROP SCHEMA "+schema+" CASCADE") })
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func exec(t testing.TB, dsn, statement string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, statement); err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
}
