package store_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"secutil/internal/testpar"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/store/pgtest"
	"secutil/store/storetest"
)

// testDB is a database of one backend that no other test uses.
type testDB struct {
	backend string
	dsn     string
}

// newTestDB is a database that holds no rows, for tests of what the store
// does with them, migrated already: on PostgreSQL a schema lent by
// migrated (migrating a new schema and connecting for it costs PostgreSQL
// many times what emptying one costs), on SQLite a copy of a migrated file.
func newTestDB(t testing.TB, backend string) testDB {
	t.Helper()
	if backend == store.Postgres {
		return testDB{backend, migrated.URL(t)}
	}
	path := filepath.Join(t.TempDir(), "test.db")
	if err := storetest.WriteMigrated(path); err != nil {
		t.Fatal(err)
	}
	return testDB{backend, path}
}

// newEmptyDB is a new database that nothing has opened yet, for tests of
// migrating it.
func newEmptyDB(t testing.TB, backend string) testDB {
	t.Helper()
	if backend == store.Postgres {
		return testDB{backend, pgtest.URL(t)}
	}
	return testDB{backend, filepath.Join(t.TempDir(), "test.db")}
}

// migrated lends the PostgreSQL tests migrated schemas (pgtest.Run in
// TestMain drops them).
var migrated = &pgtest.Pool{Open: func(ctx context.Context, url string) (io.Closer, error) {
	return store.Open(ctx, url)
}}

// The tests wait for PostgreSQL and the disk more than they compute.
func TestMain(m *testing.M) {
	testpar.Raise(4)
	os.Exit(pgtest.Run(m))
}

// open opens the database; the store is closed when the test ends.
func (db testDB) open(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// eachBackend runs test as a subtest on SQLite and on PostgreSQL (which
// skips unless SECUTIL_TEST_POSTGRES names a database), each with a
// database of newTestDB: the one suite holds both backends to the same
// behaviour.
func eachBackend(t *testing.T, test func(t *testing.T, db testDB)) {
	onBackends(t, newTestDB, test)
}

// eachEmptyBackend is eachBackend with a database of newEmptyDB.
func eachEmptyBackend(t *testing.T, test func(t *testing.T, db testDB)) {
	onBackends(t, newEmptyDB, test)
}

// onSQLiteOnly runs test on SQLite alone: for a test of logic in Go that
// PostgreSQL would reach through statements other tests already run on
// both backends. Each such test says why; a connection costs PostgreSQL
// tens of milliseconds of CPU, and the package's tests open many stores.
func onSQLiteOnly(t *testing.T, test func(t *testing.T, db testDB)) {
	test(t, newTestDB(t, store.SQLite))
}

func onBackends(t *testing.T, newDB func(testing.TB, string) testDB, test func(t *testing.T, db testDB)) {
	for _, backend := range []string{store.SQLite, store.Postgres} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			test(t, newDB(t, backend))
		})
	}
}

// mustOpenStore opens a new SQLite file, for tests of what only SQLite has
// (its files on disk); the store is closed when the test ends.
func mustOpenStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	db := newTestDB(t, store.SQLite)
	return db.open(t), db.dsn
}

func mustAccount(t *testing.T, s *store.Store, email, plan string) int64 {
	t.Helper()
	id, err := s.CreateAccount(context.Background(), store.NewAccount{Email: email, PasswordHash: "x", Plan: plan, Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestOpenTwiceKeepsData(t *testing.T) {
	t.Parallel()
	// SQLite only: that PostgreSQL keeps committed rows needs no test;
	// reopening a PostgreSQL database is TestCloseCommitsQueuedCharges's.
	onSQLiteOnly(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, path := db.open(t), db.dsn
		mustAccount(t, s, "a@example.com", store.PlanPro)
		s.Close()
		s2, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		a, err := s2.AccountByEmail(ctx, "A@Example.com")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.Plan, store.PlanPro; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		if err := s2.IntegrityCheck(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// Both SQLite files, the database and the hash index, refuse a schema
// version above the one this binary knows.
func TestOpenRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, open := range map[string]func(path string) (io.Closer, error){
		"database":   func(path string) (io.Closer, error) { return store.Open(ctx, path) },
		"hash index": func(path string) (io.Closer, error) { return hashindex.Open(path) },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "test.db")
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := raw.Exec("PRAGMA user_version = 1000"); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			f, err := open(path)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, store.ErrSchemaTooNew) {
				t.Fatalf("got %v, want ErrSchemaTooNew", err)
			}
		})
	}
}

// PostgreSQL keeps its schema version in a table: a database that a newer
// secutil migrated is refused alike, and left as it was.
func TestOpenRefusesANewerSchemaOnPostgres(t *testing.T) {
	t.Parallel()
	db := newEmptyDB(t, store.Postgres)
	db.open(t).Close()
	raw, err := sql.Open("pgx", db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec("UPDATE schema_version SET version = 1000"); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), db.dsn)
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("got %v, want ErrSchemaTooNew", err)
	}
	var version int
	if err := raw.QueryRow("SELECT version FROM schema_version").Scan(&version); err != nil || version != 1000 {
		t.Fatalf("schema version after the refusal: %d %v", version, err)
	}
}

// pending registers email with the password hash pw and the invite, and
// fails the test on an error.
func pending(t *testing.T, s *store.Store, email, pw string, invite []byte) int64 {
	t.Helper()
	r, err := registerPending(s, email, pw, invite)
	if err != nil {
		t.Fatalf("register %s: %v", email, err)
	}
	return r.ID
}

// registerPending registers email with the password hash pw and the
// invite, from one client, with the code "code".
func registerPending(s *store.Store, email, pw string, invite []byte) (store.Registered, error) {
	return s.RegisterPending(context.Background(), store.Registration{
		Account: store.NewAccount{Email: email, PasswordHash: pw}, Invite: invite,
		Client: "registrant", Code: func(int64) []byte { return []byte("code") }, CodeTTL: time.Hour})
}

// waitUntil polls cond until it holds and returns how long that took, or
// fails the test after limit.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

func countRows(t *testing.T, db testDB, table string) int {
	t.Helper()
	driver := map[string]string{store.SQLite: "sqlite", store.Postgres: "pgx"}[db.backend]
	raw, err := sql.Open(driver, db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
