package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/store"
	"secutil/store/pgtest"
)

// Several servers on one database: each opens its own Store. These tests
// hold the guarantees that must not depend on which server a call reaches.
// They run on SQLite too, where two processes on one file get the same
// answers (the deployment with several servers is PostgreSQL's).

func TestCapHoldsAcrossStores(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		id := mustAccount(t, a, "a@example.com", store.PlanStarter)
		limit := store.StarterCap
		var accepted, refused atomic.Int64
		var wg sync.WaitGroup
		for i := range 300 {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Go(func() {
				_, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit})
				switch {
				case err == nil:
					accepted.Add(1)
				case errors.Is(err, store.ErrQuotaExceeded):
					refused.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if accepted.Load() != 100 || refused.Load() != 200 {
			t.Fatalf("accepted %d, refused %d; want 100 and 200", accepted.Load(), refused.Load())
		}
		for _, s := range []*store.Store{a, b} {
			if got, err := s.Usage(ctx, id); err != nil || got != 100 {
				t.Fatalf("usage %d, %v; want 100", got, err)
			}
		}
	})
}

// A usage reset on one store reaches the other's floor within the second:
// b then grants the calls the reset gave back.
func TestResetReachesEveryStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		id := mustAccount(t, a, "a@example.com", store.PlanStarter)
		for range 2 {
			if _, err := b.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := b.Reserve(ctx, id, 2); !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("reserve at the cap: %v", err)
		}
		if err := a.ResetUsage(ctx, id); err != nil {
			t.Fatal(err)
		}
		t.Logf("reset seen after %v", waitUntil(t, time.Second, "a call granted after the reset", func() bool {
			r, err := b.Reserve(ctx, id, 2)
			r.Release()
			return err == nil
		}))
		if n, err := b.Usage(ctx, id); err != nil || n != 0 {
			t.Fatalf("usage after the reset: %d %v", n, err)
		}
	})
}

// A store's last-seen count lags the other's charges: a reservation it
// grants may be refused at commit, which has the last word, and never
// passes the cap; the refusal teaches the store the true count.
func TestCommitHasTheLastWord(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		limit := 3
		// a learns the true count whenever its cache is invalidated (its
		// PostgreSQL listener connecting, late news of an account): then it
		// refuses at once, which is right but shows nothing here, and the
		// scenario runs again on a new account.
		var id int64
		var r *store.Reservation
		for attempt := 0; r == nil; attempt++ {
			if attempt == 20 {
				t.Fatal("a never granted a reservation on its lagging count of 1")
			}
			id = mustAccount(t, a, fmt.Sprintf("a%d@example.com", attempt), store.PlanPro)
			for _, s := range []*store.Store{a, b, b} {
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit}); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			if r, err = a.Reserve(ctx, id, limit); err != nil && !errors.Is(err, store.ErrQuotaExceeded) {
				t.Fatal(err)
			}
		}
		if _, err := a.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit, Reservation: r}); !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("a charge past the cap: %v", err)
		}
		r.Release()
		if _, err := a.Reserve(ctx, id, limit); !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("a reservation after the refusal: %v", err)
		}
		if got, _ := a.Usage(ctx, id); got != 3 {
			t.Fatalf("usage %d, want 3", got)
		}
	})
}

// A key revoked or rotated, or an account changed or deleted, through one
// store, or by a process that is no store at all, stops authenticating
// through the others within a second, although they cached it.
func TestRevocationReachesEveryStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		id := mustAccount(t, a, "a@example.com", store.PlanStarter)
		hash := func(n byte) []byte { h := make([]byte, 32); h[0] = n; return h }
		gone := func(h []byte) func() bool {
			return func() bool { _, _, err := b.KeyByHash(ctx, h); return errors.Is(err, store.ErrNotFound) }
		}
		cached := func(h []byte) {
			t.Helper()
			for range 2 { // the second lookup is served from b's cache
				if _, _, err := b.KeyByHash(ctx, h); err != nil {
					t.Fatal(err)
				}
			}
		}

		if err := a.IssueKey(ctx, id, "default", hash(1), "sk_1…"); err != nil {
			t.Fatal(err)
		}
		cached(hash(1))
		k, _, _ := a.KeyByHash(ctx, hash(1))
		if err := a.RotateKey(ctx, k.ID, hash(1), hash(2), "sk_2…"); err != nil {
			t.Fatal(err)
		}
		t.Logf("rotation seen after %v", waitUntil(t, time.Second, "rotated key refused", gone(hash(1))))

		cached(hash(2))
		if err := a.IssueKey(ctx, id, "default", hash(3), "sk_3…"); err != nil { // replaces the name's key
			t.Fatal(err)
		}
		t.Logf("reissue seen after %v", waitUntil(t, time.Second, "replaced key refused", gone(hash(2))))

		cached(hash(3))
		if err := a.SetPlan(ctx, id, store.PlanPro, nil, nil); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, time.Second, "plan change seen", func() bool {
			_, acct, err := b.KeyByHash(ctx, hash(3))
			return err == nil && acct.Plan == store.PlanPro
		})

		cached(hash(3))
		if err := a.RevokeKey(ctx, id, "default"); err != nil {
			t.Fatal(err)
		}
		t.Logf("revocation seen after %v", waitUntil(t, time.Second, "revoked key refused", gone(hash(3))))

		// An administrator disabling the account on a: b refuses its key
		// (its callers check Disabled) within the second.
		if err := a.IssueKey(ctx, id, "default", hash(5), "sk_5…"); err != nil {
			t.Fatal(err)
		}
		cached(hash(5))
		if err := a.SetDisabled(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		t.Logf("disabling seen after %v", waitUntil(t, time.Second, "disabled account seen", func() bool {
			_, acct, err := b.KeyByHash(ctx, hash(5))
			return err == nil && acct.Disabled
		}))
		if err := a.SetDisabled(ctx, id, false); err != nil {
			t.Fatal(err)
		}

		// An operator (or secutil's command line) deleting the account
		// outside any store.
		if err := a.IssueKey(ctx, id, "default", hash(4), "sk_4…"); err != nil {
			t.Fatal(err)
		}
		cached(hash(4))
		// On PostgreSQL, from a session whose search_path is the default,
		// which names the table by its schema: the trigger finds its own.
		driver, dsn, table := "sqlite", db.dsn+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)", "accounts"
		if db.backend == store.Postgres {
			u, err := url.Parse(db.dsn)
			if err != nil {
				t.Fatal(err)
			}
			table = u.Query().Get("search_path") + ".accounts"
			driver, dsn = "pgx", os.Getenv(pgtest.EnvVar)
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec("DELETE FROM "+table+" WHERE id = $1", id); err != nil {
			t.Fatal(err)
		}
		t.Logf("deletion seen after %v", waitUntil(t, time.Second, "deleted account's key refused", gone(hash(4))))
	})
}

func TestTakeTokenIsSharedAcrossStores(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		now := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)
		for _, s := range []*store.Store{a, b} {
			s.SetClock(func() time.Time { return now })
		}
		var wg sync.WaitGroup
		var allowed atomic.Int64
		for i := range 20 {
			s := []*store.Store{a, b}[i%2]
			wg.Go(func() {
				ok, _, err := s.TakeToken(ctx, "account a@example.com", 5, time.Minute)
				if err != nil {
					t.Error(err)
				}
				if ok {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if got := allowed.Load(); got != 5 {
			t.Fatalf("%d of 20 tries allowed across two stores, want the burst of 5", got)
		}
		ok, wait, err := a.TakeToken(ctx, "account a@example.com", 5, time.Minute)
		if err != nil || ok || wait != 12*time.Second {
			t.Fatalf("empty bucket: %v, %v, %v; want refused with 12s to wait", ok, wait, err)
		}
		if ok, _, _ := b.TakeToken(ctx, "account b@example.com", 5, time.Minute); !ok {
			t.Fatal("another bucket is empty too")
		}
		now = now.Add(12 * time.Second)
		if ok, _, _ := b.TakeToken(ctx, "account a@example.com", 5, time.Minute); !ok {
			t.Fatal("no token after refilling one")
		}
		if ok, _, _ := a.TakeToken(ctx, "account a@example.com", 5, time.Minute); ok {
			t.Fatal("a second token after refilling one")
		}
	})
}

// Several servers started at once on a new database migrate it once.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	t.Parallel()
	eachEmptyBackend(t, func(t *testing.T, db testDB) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				s, err := store.Open(context.Background(), db.dsn)
				if err != nil {
					t.Error(err)
					return
				}
				s.Close()
			})
		}
		wg.Wait()
		db.open(t)
	})
}

// With the notification lost (here: every listener's connection cut as
// the change commits), the generation check still stops the key within a
// second. Not parallel: it cuts every listener of this process, which
// would cut those of the tests running beside it too and count them as a's
// and b's.
func TestRevocationWithoutNotification(t *testing.T) {
	db := newTestDB(t, store.Postgres)
	ctx := context.Background()
	a, b := db.open(t), db.open(t)
	id := mustAccount(t, a, "a@example.com", store.PlanStarter)
	hash := make([]byte, 32)
	if err := a.IssueKey(ctx, id, "default", hash, "sk_1…"); err != nil {
		t.Fatal(err)
	}
	// Both cache the key, so both listen (a store listens from its cache's
	// first entry on).
	for _, st := range []*store.Store{a, b, b} {
		if _, _, err := st.KeyByHash(ctx, hash); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := sql.Open("pgx", db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// This process's listeners: other test processes on the database keep
	// theirs.
	listeners := fmt.Sprintf(`FROM pg_stat_activity WHERE application_name = 'secutil auth listener, pid %d' AND datname = current_database()`, os.Getpid())
	// Each store's listener connects on its own goroutine.
	waitUntil(t, 30*time.Second, "a's and b's listeners", func() bool {
		var n int
		return raw.QueryRow("SELECT count(*) "+listeners).Scan(&n) == nil && n >= 2
	})
	var cut int
	if err := raw.QueryRow("SELECT count(pg_terminate_backend(pid)) " + listeners).Scan(&cut); err != nil || cut < 2 {
		t.Fatalf("cut %d listeners (%v), want a's and b's at least", cut, err)
	}
	waitUntil(t, time.Second, "listeners gone", func() bool {
		var n int
		return raw.QueryRow("SELECT count(*) "+listeners).Scan(&n) == nil && n == 0
	})
	if err := a.RevokeKey(ctx, id, "default"); err != nil {
		t.Fatal(err)
	}
	took := waitUntil(t, time.Second, "revoked key refused", func() bool {
		_, _, err := b.KeyByHash(ctx, hash)
		return errors.Is(err, store.ErrNotFound)
	})
	t.Logf("revocation seen after %v without a notification", took)
}
