package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/store"
	"secutil/store/hashindex"
	"secutil/store/pgtest"
)

// testDB is a database of one backend that no other test uses.
type testDB struct {
	backend string
	dsn     string
}

// newTestDB is a database that holds no rows, for tests of what the store
// does with them. On PostgreSQL it is migrated already, and lent by
// migrated: migrating a new schema and connecting for it costs PostgreSQL
// many times what emptying one costs.
func newTestDB(t testing.TB, backend string) testDB {
	t.Helper()
	if backend == store.Postgres {
		return testDB{backend, migrated.URL(t)}
	}
	return newEmptyDB(t, backend)
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

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

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
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
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

func TestEmailUniqueCaseInsensitive(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		mustAccount(t, s, "a@example.com", "")
		_, err := s.CreateAccount(context.Background(), store.NewAccount{Email: "A@EXAMPLE.COM", PasswordHash: "x"})
		if !errors.Is(err, store.ErrEmailTaken) {
			t.Fatalf("got %v, want ErrEmailTaken", err)
		}
	})
}

func TestKeysIssueRotateRevoke(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		if err := s.IssueKey(ctx, id, "default", []byte("h1"), "sk_1…"); err != nil {
			t.Fatal(err)
		}
		k, a, err := s.KeyByHash(ctx, []byte("h1"))
		if err != nil || a.ID != id || k.Name != "default" {
			t.Fatalf("KeyByHash = %+v, %+v, %v", k, a, err)
		}
		// Issuing the same name again replaces the old key.
		if err := s.IssueKey(ctx, id, "default", []byte("h2"), "sk_2…"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("h1")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("old key still works: %v", err)
		}
		if err := s.RotateKey(ctx, k.ID, []byte("h2"), []byte("h3"), "sk_3…"); err != nil {
			t.Fatal(err)
		}
		if err := s.RotateKey(ctx, k.ID, []byte("h2"), []byte("h4"), "sk_4…"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second rotation of a stale key: got %v, want ErrNotFound", err)
		}
		if err := s.RevokeKey(ctx, id, "default"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("h3")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked key still works: %v", err)
		}
	})
}

func TestKeyLimit(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		for i := 0; i < store.MaxKeysPerAccount; i++ {
			if err := s.IssueKey(ctx, id, string(rune('a'+i)), []byte{byte(i)}, "h"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.IssueKey(ctx, id, "one-too-many", []byte("x"), "h"); !errors.Is(err, store.ErrTooManyKeys) {
			t.Fatalf("got %v, want ErrTooManyKeys", err)
		}
	})
}

func TestCommitUsageExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if got, _ := s.Usage(ctx, id); got != 200 {
			t.Fatalf("got %v, want 200", got)
		}
	})
}

func TestCommitUsageNeverPassesCap(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		limit := 100
		var wg sync.WaitGroup
		var mu sync.Mutex
		accepted, refused := 0, 0
		for i := 0; i < 150; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit, Suggestion: &store.Suggestion{AccountID: id, Message: "m"}})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					accepted++
				case errors.Is(err, store.ErrQuotaExceeded):
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if accepted != 100 || refused != 50 {
			t.Fatalf("accepted %d, refused %d; want 100, 50", accepted, refused)
		}
		sg, err := s.Suggestions(ctx, 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(sg), 100; got != want {
			t.Fatalf("stored suggestions: got %v, want %v (a refused call must leave none)", got, want)
		}
	})
}

// TestReserveHoldsTheCallsLeft: reservations taken before the work, with
// the committed calls, never pass the cap; a released one is given back,
// and a committed one becomes part of the count.
func TestReserveHoldsTheCallsLeft(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		limit := 10
		for range 7 {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		var held []*store.Reservation
		for range 3 {
			r, err := s.Reserve(ctx, id, limit)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, r)
		}
		if _, err := s.Reserve(ctx, id, limit); !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("a fourth reservation with 3 calls left: %v", err)
		}
		held[0].Release()
		held[0].Release() // twice is once
		again, err := s.Reserve(ctx, id, limit)
		if err != nil {
			t.Fatalf("a released call was not given back: %v", err)
		}
		for _, r := range []*store.Reservation{held[1], held[2], again} {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit, Reservation: r}); err != nil {
				t.Fatal(err)
			}
			r.Release() // after the commit: nothing to give back
		}
		if n, _ := s.Usage(ctx, id); n != limit {
			t.Fatalf("usage %d, want %d", n, limit)
		}
		if _, err := s.Reserve(ctx, id, limit); !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("a reservation at the cap: %v", err)
		}
		// Under concurrency: 150 calls, 100 reservations, 100 commits.
		other := mustAccount(t, s, "b@example.com", "")
		limit = 100
		var wg sync.WaitGroup
		var mu sync.Mutex
		reserved := 0
		for range 150 {
			wg.Go(func() {
				r, err := s.Reserve(ctx, other, limit)
				if errors.Is(err, store.ErrQuotaExceeded) {
					return
				}
				defer r.Release()
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: other, Cap: &limit, Reservation: r}); err != nil {
					t.Error(err)
				}
				mu.Lock()
				reserved++
				mu.Unlock()
			})
		}
		wg.Wait()
		if n, _ := s.Usage(ctx, other); reserved != 100 || n != 100 {
			t.Fatalf("%d reservations committed, usage %d; want 100 and 100", reserved, n)
		}
	})
}

func TestUsageResetsOnTheFirstOfTheMonthUTC(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		now := time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		s.CommitUsage(ctx, store.Charge{AccountID: id})
		if got, _ := s.Usage(ctx, id); got != 1 {
			t.Fatalf("got %v, want 1", got)
		}
		now = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		if got, _ := s.Usage(ctx, id); got != 0 {
			t.Fatalf("after reset: got %v, want 0", got)
		}
		if got, want := store.PeriodEnd(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

func TestEffectivePlanExpires(t *testing.T) {
	t.Parallel()
	past := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := store.Account{Plan: store.PlanPro, PaidUntil: &past}
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	if got, want := a.EffectivePlan(now), store.PlanStarter; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if c := a.Cap(now); c == nil || *c != store.StarterCap {
		t.Fatalf("cap of an expired plan: %v", c)
	}
	a.PaidUntil = nil
	if c := a.Cap(now); c != nil {
		t.Fatalf("pro without expiry has cap %v", *c)
	}
}

func TestCodes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Minute)
		for i := 0; i < store.MaxCodeAttempts; i++ {
			if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("wrong")); !errors.Is(err, store.ErrCodeInvalid) {
				t.Fatalf("wrong code: %v", err)
			}
		}
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("right")); !errors.Is(err, store.ErrCodeInvalid) {
			t.Fatalf("right code after 5 misses must be dead: %v", err)
		}
		s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Minute)
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("right")); err != nil {
			t.Fatal(err)
		}
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("right")); !errors.Is(err, store.ErrCodeInvalid) {
			t.Fatalf("a code works once: %v", err)
		}
	})
}

// TestCodeLimitsSurviveReissue: re-issuing a code used to reset its try
// counter, so a guesser asking for fresh codes got 5 new tries each time.
// Now an account gets at most MaxCodesPerHour codes and MaxCodeTriesPerHour
// wrong tries an hour, across codes and purposes.
func TestCodeLimitsSurviveReissue(t *testing.T) {
	t.Parallel()
	// SQLite only: the hourly windows are computed in Go from the store's
	// clock; the statements that count codes and tries run on PostgreSQL in
	// TestCodes and TestCodeLimitsOverAllClients.
	onSQLiteOnly(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Now()
		s.SetClock(func() time.Time { return now })
		id := mustAccount(t, s, "a@example.com", "")
		wrong := func() {
			t.Helper()
			if err := s.ConsumeCode(ctx, id, store.PurposeReset, []byte("wrong")); !errors.Is(err, store.ErrCodeInvalid) {
				t.Fatalf("wrong code: %v", err)
			}
		}
		// Two codes, each tried 5 times: the hour's tries are spent...
		for range 2 {
			if err := s.SetCode(ctx, id, store.PurposeReset, []byte("right"), time.Hour); err != nil {
				t.Fatal(err)
			}
			for range store.MaxCodeTriesPerHour / 2 {
				wrong()
			}
		}
		// ...so a third code, even the right one, does not open before the hour is over.
		if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("right")); !errors.Is(err, store.ErrCodeInvalid) {
			t.Fatalf("the right code after %d wrong tries this hour: %v", store.MaxCodeTriesPerHour, err)
		}
		// Codes per hour: three were sent; two more may be, then none.
		for range store.MaxCodesPerHour - 3 {
			if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Hour); !errors.Is(err, store.ErrTooManyCodes) {
			t.Fatalf("code %d within the hour: %v", store.MaxCodesPerHour+1, err)
		}
		// An hour later both limits start over.
		now = now.Add(time.Hour)
		if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("fresh"), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("fresh")); err != nil {
			t.Fatal(err)
		}
		if n, err := s.DeleteExpiredCodes(ctx); err != nil {
			t.Fatal(n, err)
		}
	})
}

func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := mustOpenStore(t)
	id := mustAccount(t, s, "a@example.com", store.PlanPro)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			s.CommitUsage(ctx, store.Charge{AccountID: id})
		}
	}()
	dst := filepath.Join(t.TempDir(), "backup.db")
	if err := s.Backup(ctx, dst); err != nil {
		t.Fatal(err)
	}
	<-done
	b, err := store.Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AccountByEmail(ctx, "a@example.com"); err != nil {
		t.Fatal(err)
	}
}

func TestAuthCacheSeesEveryChange(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanStarter)
		h1 := make([]byte, 32)
		h1[0] = 1
		h2 := make([]byte, 32)
		h2[0] = 2
		s.IssueKey(ctx, id, "default", h1, "sk_1…")
		for i := 0; i < 2; i++ { // the second lookup is served by the cache
			if _, a, err := s.KeyByHash(ctx, h1); err != nil || a.Plan != store.PlanStarter {
				t.Fatalf("lookup %d: %v %v", i, a, err)
			}
		}
		if err := s.SetPlan(ctx, id, store.PlanPro, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, a, _ := s.KeyByHash(ctx, h1); a.Plan != store.PlanPro {
			t.Fatalf("plan change not seen: %v", a.Plan)
		}
		k, _, _ := s.KeyByHash(ctx, h1)
		if err := s.RotateKey(ctx, k.ID, h1, h2, "sk_2…"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, h1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("rotated key still authenticates from the cache: %v", err)
		}
		s.KeyByHash(ctx, h2)
		s.RevokeKey(ctx, id, "default")
		if _, _, err := s.KeyByHash(ctx, h2); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked key still authenticates from the cache: %v", err)
		}
	})
}

func TestCloseCommitsQueuedCharges(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, path := db.open(t), db.dsn
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		var wg sync.WaitGroup
		var mu sync.Mutex
		acked := 0
		for i := 0; i < 100; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err == nil {
					mu.Lock()
					acked++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		s.Close()
		s2, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if got, _ := s2.Usage(ctx, id); got != acked {
			t.Fatalf("usage after reopen %d, acknowledged %d", got, acked)
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

func TestRowsOfAMissingAccountAreNotFound(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		const missing = 999 // the foreign key to accounts refuses it
		for name, write := range map[string]func() error{
			"CreateSession": func() error { return s.CreateSession(ctx, []byte("tok"), missing, time.Hour) },
			"SetCode":       func() error { return s.SetCode(ctx, missing, store.PurposeReset, []byte("c"), time.Minute) },
			"IssueKey":      func() error { return s.IssueKey(ctx, missing, "default", []byte("h"), "sk_h…") },
		} {
			if err := write(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: got %v, want ErrNotFound", name, err)
			}
		}
	})
}

func TestErrorsNameTheOperation(t *testing.T) {
	t.Parallel()
	// SQLite only: the prefix is Go's wrapping of whatever error database/sql
	// returns for a closed pool, the same for both drivers.
	onSQLiteOnly(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		s.Close()
		_, err := s.AccountByID(context.Background(), 1)
		if err == nil || !strings.HasPrefix(err.Error(), "store: account by id: ") || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v, want a closed-database error prefixed with the operation", err)
		}
	})
}

func TestSessionsExpireAndAreDeleted(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		now := time.Now()
		s.SetClock(func() time.Time { return now })
		for tok, ttl := range map[string]time.Duration{"short": time.Minute, "long": time.Hour} {
			if err := s.CreateSession(ctx, []byte(tok), id, ttl); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.SessionAccount(ctx, []byte("short")); err != nil {
			t.Fatal(err)
		}
		if n, err := s.DeleteExpiredSessions(ctx); err != nil || n != 0 {
			t.Fatalf("deleted %d, %v before any expiry; want 0", n, err)
		}
		now = now.Add(time.Minute)
		if _, err := s.SessionAccount(ctx, []byte("short")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired session: %v", err)
		}
		if n, err := s.DeleteExpiredSessions(ctx); err != nil || n != 1 {
			t.Fatalf("deleted %d, %v; want the one expired session", n, err)
		}
		if _, err := s.SessionAccount(ctx, []byte("long")); err != nil {
			t.Fatalf("the live session is gone: %v", err)
		}
	})
}

func TestDeleteExpiredCodes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Now()
		s.SetClock(func() time.Time { return now })
		expired := mustAccount(t, s, "expired@example.com", "")
		exhausted := mustAccount(t, s, "exhausted@example.com", "")
		live := mustAccount(t, s, "live@example.com", "")
		for id, ttl := range map[int64]time.Duration{expired: time.Minute, exhausted: time.Hour, live: time.Hour} {
			if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), ttl); err != nil {
				t.Fatal(err)
			}
		}
		for range store.MaxCodeAttempts {
			s.ConsumeCode(ctx, exhausted, store.PurposeRegister, []byte("wrong"))
		}
		now = now.Add(time.Minute)
		if n, err := s.DeleteExpiredCodes(ctx); err != nil || n != 2 {
			t.Fatalf("deleted %d, %v; want the expired and the exhausted code", n, err)
		}
		if n, err := s.DeleteExpiredCodes(ctx); err != nil || n != 0 {
			t.Fatalf("second sweep deleted %d, %v; want 0", n, err)
		}
		if err := s.ConsumeCode(ctx, live, store.PurposeRegister, []byte("right")); err != nil {
			t.Fatalf("the live code is gone: %v", err)
		}
	})
}

// TestDeleteSettingLeavesNoCopy: the server key that earlier versions kept
// in the database must not survive its move out in the database files.
func TestDeleteSettingLeavesNoCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := mustOpenStore(t)
	secret := []byte("0123456789abcdef-not-a-real-key-0123456789")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`INSERT INTO settings (name, value) VALUES ('server_key', ?)`, secret)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Setting(ctx, "server_key"); err != nil || string(got) != string(secret) {
		t.Fatalf("Setting = %q, %v", got, err)
	}
	if err := s.DeleteSetting(ctx, "server_key"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Setting(ctx, "server_key"); err != nil || got != nil {
		t.Fatalf("after the delete: %q, %v", got, err)
	}
	for _, name := range []string{path, path + "-wal"} {
		content, err := os.ReadFile(name)
		if err == nil && bytes.Contains(content, secret) {
			t.Errorf("%s still holds the deleted value", filepath.Base(name))
		}
	}
}

// PostgreSQL's text cannot hold the NUL character; both backends refuse
// it in text they would store, and find nothing by a name holding it.
func TestTextWithNULIsRefusedAlike(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		const nul = "a\x00b"
		for name, write := range map[string]func() error{
			"CreateAccount": func() error { // (an email holding NUL is ErrInvalidEmail)
				_, err := s.CreateAccount(ctx, store.NewAccount{Email: "b@example.com", PasswordHash: nul})
				return err
			},
			"CommitUsage": func() error {
				_, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Suggestion: &store.Suggestion{AccountID: id, Message: nul}})
				return err
			},
			"CreateProduct": func() error {
				_, err := s.CreateProduct(ctx, store.Product{Name: nul, Plan: store.PlanPro, PriceCents: 1, Currency: "EUR", Interval: "month"})
				return err
			},
			"ApplyPaymentEvent": func() error { _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: nul, Type: "x"}); return err },
			"AddAudit":          func() error { return s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditLoginOK, Detail: nul}) },
			"IssueKey":          func() error { return s.IssueKey(ctx, id, nul, []byte("h"), "sk_h…") },
		} {
			if err := write(); !errors.Is(err, store.ErrInvalidText) {
				t.Errorf("%s: got %v, want ErrInvalidText", name, err)
			}
		}
		if used, _ := s.Usage(ctx, id); used != 0 {
			t.Errorf("a refused suggestion was counted: usage %d", used)
		}
		if _, err := s.AccountByEmail(ctx, nul); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("AccountByEmail: got %v, want ErrNotFound", err)
		}
		if err := s.RevokeKey(ctx, id, nul); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeKey: got %v, want ErrNotFound", err)
		}
		res, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "evt_nul", Type: "subscription.activated", Email: nul, Change: &store.PlanChange{Plan: store.PlanPro}})
		if err != nil || res.Outcome != store.PaymentUnknownAccount {
			t.Errorf("payment for an email holding NUL: %v, %v; want unknown_account", res.Outcome, err)
		}
		if ok, _, err := s.TakeToken(ctx, "account "+nul, 5, time.Minute); !ok || err != nil {
			t.Errorf("TakeToken for a name holding NUL: %v, %v", ok, err)
		}
	})
}
