package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"secutil/store"
	"secutil/store/internal/migrate"
)

// Each spelling of victim@example.com either finds the victim's account or
// is refused, the same on both backends; none can make a second account.
// On PostgreSQL the email column's ICU collation let the look-alikes with
// an invisible or a fullwidth character log in as the victim. The
// spellings are tried one after another on one database per backend: none
// may add an account, so each finds the database as the first did.
func TestLookAlikeEmailsNeverMakeASecondAccount(t *testing.T) {
	t.Parallel()
	spellings := []struct {
		name, email string
		isVictim    bool // else refused: no account, and none can be made
	}{
		{"the address", "victim@example.com", true},
		{"other case", "VICTIM@Example.COM", true},
		{"surrounding space", "  victim@example.com\n", true},
		{"soft hyphen", "vic\u00adtim@example.com", false},
		{"trailing zero-width space", "victim@example.com\u200b", false},
		{"zero-width joiner", "vic\u200dtim@example.com", false},
		{"byte order mark", "\ufeffvictim@example.com", false},
		{"variation selector", "victim@exa\ufe0fmple.com", false},
		{"fullwidth letter", "\uff56ictim@example.com", false},
		{"fullwidth address", "\uff56\uff49\uff43\uff54\uff49\uff4d\uff20\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff43\uff4f\uff4d", false},
		{"ligature", "victim@\ufb00example.com", false},
		{"Cyrillic letter", "vict\u0456m@example.com", false},
		{"NUL", "victim@example.com\x00", false},
	}
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		victim := mustAccount(t, s, "Victim@Example.com", "")
		for _, tc := range spellings {
			t.Run(tc.name, func(t *testing.T) {
				a, err := s.AccountByEmail(ctx, tc.email)
				switch {
				case tc.isVictim && (err != nil || a.ID != victim || a.Email != "Victim@Example.com"):
					t.Errorf("AccountByEmail(%q) = %+v, %v; want the victim's account, its email as typed", tc.email, a, err)
				case !tc.isVictim && !errors.Is(err, store.ErrNotFound):
					t.Errorf("AccountByEmail(%q) = %+v, %v; want ErrNotFound", tc.email, a, err)
				}
				_, err = s.CreateAccount(ctx, store.NewAccount{Email: tc.email, PasswordHash: "squatter"})
				switch {
				case tc.isVictim && !errors.Is(err, store.ErrEmailTaken):
					t.Errorf("CreateAccount(%q): %v, want ErrEmailTaken", tc.email, err)
				case !tc.isVictim && !errors.Is(err, store.ErrInvalidEmail):
					t.Errorf("CreateAccount(%q): %v, want ErrInvalidEmail", tc.email, err)
				}
			})
		}
		if n := countRows(t, db, "accounts"); n != 1 {
			t.Errorf("%d accounts after registering the spellings, want 1", n)
		}
	})
}

// A database written before accounts had email_key gets one for each
// account: the canonical form for an ASCII email, which then finds it
// whatever its case, and nothing for an email the policy now refuses, which
// no lookup matches any more.
func TestMigrationKeysExistingAccounts(t *testing.T) {
	t.Parallel()
	eachEmptyBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		raw := migratedTo(t, db, 6) // the last schema without email_key
		for _, email := range []string{"Mixed.Case@Example.com", "jos\u00e9@example.com", "other@example.com"} {
			if _, err := raw.Exec(`INSERT INTO accounts (email, password_hash, created_at) VALUES ($1, 'x', 0)`, email); err != nil {
				t.Fatal(err)
			}
		}
		s := db.open(t)
		for email, want := range map[string]string{
			"mixed.case@example.com": "Mixed.Case@Example.com",
			"OTHER@example.com":      "other@example.com",
		} {
			if a, err := s.AccountByEmail(ctx, email); err != nil || a.Email != want {
				t.Errorf("AccountByEmail(%q) = %+v, %v; want %s", email, a, err, want)
			}
		}
		if _, err := s.AccountByEmail(ctx, "jos\u00e9@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the non-ASCII email: %v, want ErrNotFound", err)
		}
		if _, err := s.CreateAccount(ctx, store.NewAccount{Email: "MIXED.case@example.com", PasswordHash: "x"}); !errors.Is(err, store.ErrEmailTaken) {
			t.Errorf("registering an existing address in another case: %v, want ErrEmailTaken", err)
		}
		mustAccount(t, s, "new@example.com", "")
		if n := countRows(t, db, "accounts"); n != 4 {
			t.Errorf("%d accounts, want 4", n)
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

// A change of one's own password ends every session, the one making it
// too (a copy of its cookie must stop working), and starts the caller's
// fresh one in the same change; it keeps the keys unless asked.
func TestChangePasswordReplacesTheCallersSession(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		for _, h := range []string{"mine", "other"} {
			if err := s.CreateSession(ctx, []byte(h), id, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.IssueKey(ctx, id, "k", []byte("key"), "sk_"); err != nil {
			t.Fatal(err)
		}
		if err := s.ChangePassword(ctx, id, "new", &store.NewSession{Hash: []byte("fresh"), TTL: time.Hour}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionAccount(ctx, []byte("fresh")); err != nil {
			t.Fatalf("the caller's fresh session: %v", err)
		}
		for _, old := range []string{"mine", "other"} {
			if _, err := s.SessionAccount(ctx, []byte(old)); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the session %q: %v", old, err)
			}
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); err != nil {
			t.Fatalf("the key: %v", err)
		}
		if err := s.ChangePassword(ctx, id, "newer", nil, true); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the key after revoking: %v", err)
		}
		if a, _ := s.AccountByID(ctx, id); a.PasswordHash != "newer" {
			t.Fatalf("hash %q", a.PasswordHash)
		}
		if err := s.ChangePassword(ctx, id+100, "x", &store.NewSession{Hash: []byte("orphan"), TTL: time.Hour}, false); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no account: %v", err)
		}
	})
}

// A deleted account's keys, sessions and codes go; its monthly usage is
// kept for the operator.
func TestDeleteAccountKeepsUsage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		mustAccount(t, s, "boss@example.com", "")
		id := mustAccount(t, s, "a@example.com", "")
		for range 3 {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.CreateSession(ctx, []byte("s"), id, time.Hour))
		must(s.IssueKey(ctx, id, "k", []byte("key"), "sk_"))
		must(s.SetCode(ctx, id, store.PurposeReset, []byte("c"), time.Hour))
		must(s.DeleteAccount(ctx, id))
		if _, err := s.SessionAccount(ctx, []byte("s")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session: %v", err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("key: %v", err)
		}
		kept, err := s.DeletedUsages(ctx, 10)
		if err != nil || len(kept) != 1 || kept[0].AccountID != id || kept[0].Count != 3 || kept[0].Period != store.Period(time.Now()) {
			t.Fatalf("kept usage %+v, %v", kept, err)
		}
	})
}

// A plan an administrator sets is marked theirs (starter is the user's);
// a cancellation is kept until a payment renews the plan.
func TestPlanByAdminAndCancellation(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		get := func() *store.Account {
			a, err := s.AccountByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		capOf := 5
		if err := s.SetPlan(ctx, id, store.PlanEnterprise, nil, &capOf); err != nil {
			t.Fatal(err)
		}
		if a := get(); !a.PlanByAdmin {
			t.Fatal("enterprise set by an admin is not marked")
		}
		if err := s.SetPlan(ctx, id, store.PlanStarter, nil, nil); err != nil {
			t.Fatal(err)
		}
		if a := get(); a.PlanByAdmin {
			t.Fatal("starter is marked as set by an admin")
		}
		until := time.Now().Add(time.Hour)
		if _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "e1", Type: "paid", Email: "a@example.com", Change: &store.PlanChange{Plan: store.PlanPro, PaidUntil: &until}}); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelPlan(ctx, id); err != nil {
			t.Fatal(err)
		}
		if a := get(); !a.PlanCancelled || a.Plan != store.PlanPro || a.PlanByAdmin {
			t.Fatalf("after cancelling: %+v", a)
		}
		later := until.Add(30 * 24 * time.Hour)
		if _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "e2", Type: "paid", Email: "a@example.com", Change: &store.PlanChange{PaidUntil: &later}}); err != nil {
			t.Fatal(err)
		}
		if a := get(); a.PlanCancelled {
			t.Fatal("a renewal kept the cancellation")
		}
		if err := s.CancelPlan(ctx, id+100); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no account: %v", err)
		}
	})
}

func TestDisableEndsSessionsAndMarksTheAccount(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		keyHash := make([]byte, 32)
		s.IssueKey(ctx, id, "default", keyHash, "sk_1…")
		s.CreateSession(ctx, []byte("session"), id, time.Hour)
		if _, a, err := s.KeyByHash(ctx, keyHash); err != nil || a.Disabled { // now cached
			t.Fatalf("before: %v %v", a, err)
		}
		if err := s.SetDisabled(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		if _, a, err := s.KeyByHash(ctx, keyHash); err != nil || !a.Disabled {
			t.Fatalf("the key's account after disabling: %+v %v", a, err)
		}
		if _, err := s.SessionAccount(ctx, []byte("session")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session after disabling: %v", err)
		}
		if err := s.SetDisabled(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		if _, a, err := s.KeyByHash(ctx, keyHash); err != nil || a.Disabled {
			t.Fatalf("after enabling: %+v %v", a, err)
		}
	})
}

func TestResetUsageAndDeleteAccount(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		for range 3 {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.ResetUsage(ctx, id); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Usage(ctx, id); err != nil || n != 0 {
			t.Fatalf("usage after reset: %d %v", n, err)
		}
		if n, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil || n != 1 {
			t.Fatalf("the first call after a reset counts %d (%v), want 1", n, err)
		}

		if err := s.DeleteAccount(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AccountByID(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted account: %v", err)
		}
		// A call authenticated before the deletion fails alone; others in the
		// same moment still count.
		other := mustAccount(t, s, "bob@example.com", store.PlanStarter)
		var wg sync.WaitGroup
		var lateErr, otherErr error
		wg.Go(func() { _, lateErr = s.CommitUsage(ctx, store.Charge{AccountID: id + 1000}) })
		wg.Go(func() { _, otherErr = s.CommitUsage(ctx, store.Charge{AccountID: other}) })
		wg.Wait()
		if !errors.Is(lateErr, store.ErrNotFound) || otherErr != nil {
			t.Fatalf("charge of a missing account: %v; another account's: %v", lateErr, otherErr)
		}
	})
}

func TestAccountsListsUsageThisMonth(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		a := mustAccount(t, s, "a@example.com", store.PlanStarter)
		mustAccount(t, s, "b@example.com", store.PlanPro)
		for i := 0; i < 3; i++ {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: a}); err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.Accounts(ctx, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(list), 2; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		if got, want := list[0].Usage, 3; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		if got, want := list[1].Usage, 0; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		page, err := s.Accounts(ctx, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 1 || page[0].Email != "b@example.com" {
			t.Fatalf("second page %+v", page)
		}
	})
}

// TestAccountIDsAreNeverReused: on SQLite a deleted newest account's id
// went to the next account, which then inherited what still named the
// old one (its kept usage, its device cookies). No id is handed out twice,
// on either backend.
func TestAccountIDsAreNeverReused(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		mustAccount(t, s, "a@example.com", "")
		newest := mustAccount(t, s, "b@example.com", "")
		if err := s.DeleteAccount(ctx, newest); err != nil {
			t.Fatal(err)
		}
		if next := mustAccount(t, s, "c@example.com", ""); next <= newest {
			t.Fatalf("the next account got id %d; the deleted newest had %d", next, newest)
		}
	})
}

// TestDeleteAccountAddsToKeptUsage: a kept count of the same id and
// month (left by an earlier holder of an id reused before ids were
// unique) made every deletion of the account fail on deleted_usage's
// key, with its keys still working. The counts now add up.
func TestDeleteAccountAddsToKeptUsage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "second@example.com", "")
		raw := rawDB(t, db)
		if _, err := raw.ExecContext(ctx, `INSERT INTO deleted_usage (account_id, period, count, deleted_at) VALUES ($1, $2, 5, 0)`,
			id, store.Period(s.Now())); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.IssueKey(ctx, id, "k", []byte("key"), "sk_"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteAccount(ctx, id); err != nil {
			t.Fatalf("deleting: %v", err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("key")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the deleted account's key: %v", err)
		}
		kept, err := s.DeletedUsages(ctx, 10)
		if err != nil || len(kept) != 1 || kept[0].Count != 8 {
			t.Fatalf("kept usage %+v, %v; want one month of 5+3 calls", kept, err)
		}
	})
}

// TestMigrationStopsReusingAccountIDs: a database of the schema before
// ids were unique keeps its accounts and what refers to them (SQLite
// rebuilds the table, with foreign keys that would otherwise cascade),
// and its next account gets an id past every one its rows still name:
// deleted accounts' kept usage and audit events.
func TestMigrationStopsReusingAccountIDs(t *testing.T) {
	t.Parallel()
	eachEmptyBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		raw := migratedTo(t, db, 9) // the last schema with reusable ids
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO accounts (email, email_key, password_hash, created_at) VALUES ('a@example.com', 'a@example.com', 'x', 0)`, nil},
			{`INSERT INTO accounts (email, email_key, password_hash, created_at) VALUES ('b@example.com', 'b@example.com', 'x', 0)`, nil},
			{`INSERT INTO api_keys (account_id, name, hash, hint, created_at) SELECT id, 'k', $1, 'sk_', 0 FROM accounts WHERE email = 'b@example.com'`, []any{[]byte("key")}},
			{`INSERT INTO sessions (hash, account_id, created_at, expires_at) SELECT $1, id, 0, 4000000000 FROM accounts WHERE email = 'b@example.com'`, []any{[]byte("session")}},
			{`INSERT INTO deleted_usage (account_id, period, count, deleted_at) VALUES (5, '2026-01', 1, 0)`, nil},
			{`INSERT INTO audit_events (at, kind, account_id, detail) VALUES (0, 'account_deleted', 6, '')`, nil},
		} {
			if _, err := raw.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		s := db.open(t)
		b, err := s.AccountByEmail(ctx, "b@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if _, a, err := s.KeyByHash(ctx, []byte("key")); err != nil || a.ID != b.ID {
			t.Fatalf("the key after the migration: %+v %v", a, err)
		}
		if a, err := s.SessionAccount(ctx, []byte("session")); err != nil || a.ID != b.ID {
			t.Fatalf("the session after the migration: %+v %v", a, err)
		}
		if next := mustAccount(t, s, "c@example.com", ""); next <= 6 {
			t.Fatalf("the next account got id %d; deleted accounts' rows name ids up to 6", next)
		}
		// The foreign keys still hold and cascade.
		if err := s.DeleteAccount(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, db, "sessions"); n != 0 {
			t.Fatalf("%d sessions after deleting their account", n)
		}
		if err := s.CreateSession(ctx, []byte("orphan"), b.ID, time.Hour); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a session of a deleted account: %v", err)
		}
		if err := s.IntegrityCheck(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// migratedTo is rawDB with db's schema as its first steps migrations
// leave it: for tests of a later step on the rows of an older schema.
func migratedTo(t *testing.T, db testDB, steps int) *sql.DB {
	t.Helper()
	apply := migrate.Apply
	if db.backend == store.Postgres {
		apply = migrate.ApplyPostgres
	}
	all, err := migrate.FromFS(os.DirFS("migrations/"+db.backend), "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, db)
	if err := apply(context.Background(), raw, all[:steps]); err != nil {
		t.Fatal(err)
	}
	return raw
}

// rawDB is a connection to db outside the store, closed when the test ends.
func rawDB(t *testing.T, db testDB) *sql.DB {
	t.Helper()
	driver := map[string]string{store.SQLite: "sqlite", store.Postgres: "pgx"}[db.backend]
	raw, err := sql.Open(driver, db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}
