package store_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

// fill puts a row in every table Copy copies, through the store's API,
// and returns the rows it expects per table.
func fill(t *testing.T, s *store.Store) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	paid := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	admin, err := s.CreateAccount(ctx, store.NewAccount{Email: "Admin@Example.com", PasswordHash: "h1", Plan: store.PlanEnterprise, Verified: true, Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	pending := mustAccount(t, s, "pending@example.com", store.PlanStarter)
	cap := 500
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SetPlan(ctx, admin, store.PlanEnterprise, &paid, &cap))
	must(s.IssueKey(ctx, admin, "default", []byte("key-1"), "sk_1…"))
	must(s.IssueKey(ctx, admin, "ci", []byte("key-2"), "sk_2…"))
	must(s.IssueKey(ctx, admin, "old", []byte("key-0"), "sk_0…"))
	must(s.RevokeKey(ctx, admin, "old"))
	must(s.CreateSession(ctx, []byte("session"), admin, time.Hour))
	must(s.SetCode(ctx, pending, store.PurposeRegister, []byte("code"), time.Hour))
	must(s.RememberClient(ctx, admin, "admin's network"))
	for _, c := range []store.Charge{
		{AccountID: admin, KeyID: 1},
		{AccountID: admin, Suggestion: &store.Suggestion{AccountID: admin, Email: "me@example.com", Message: "more tools"}},
		{AccountID: pending, Suggestion: &store.Suggestion{AccountID: pending, Message: "dark mode"}},
	} {
		if _, err := s.CommitUsage(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditLoginOK, AccountID: admin, SealedIP: "sealed", Detail: "d"}))
	must(s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditLoginFailed}))
	must(s.SetSetupToken(ctx, []byte{0, 1, 2, 255}))
	if _, err := s.CreateInvite(ctx, []byte("invite hash"), admin, time.Hour); err != nil {
		t.Fatal(err)
	}
	must(s.SetDisabled(ctx, pending, true))
	if _, err := s.CreateProduct(ctx, store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "evt_1", Type: "invoice.paid"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.TakeToken(ctx, "account admin@example.com", 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	return map[string]int64{"accounts": 2, "api_keys": 2, "revoked_keys": 1, "sessions": 1, "verification_codes": 1, "code_limits": 2, "known_clients": 1, "usage": 2, "usage_days": 3,
		"suggestions": 2, "audit_events": 2, "invites": 1, "settings": 1, "products": 1, "webhook_events": 1, "throttle": 1}
}

// eachCopy runs test as a subtest for each way a copy goes (SQLite to
// SQLite, SQLite to PostgreSQL...), with a new store of each backend.
func eachCopy(t *testing.T, test func(t *testing.T, src, dst *store.Store)) {
	for _, from := range []string{store.SQLite, store.Postgres} {
		for _, to := range []string{store.SQLite, store.Postgres} {
			t.Run(from+" to "+to, func(t *testing.T) {
				t.Parallel()
				test(t, newTestDB(t, from).open(t), newTestDB(t, to).open(t))
			})
		}
	}
}

func TestCopyMovesEveryTable(t *testing.T) {
	t.Parallel()
	eachCopy(t, func(t *testing.T, src, dst *store.Store) {
		ctx := context.Background()
		want := fill(t, src)
		counts, err := store.Copy(ctx, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range counts {
			if c.Rows != want[c.Table] {
				t.Errorf("%s: copied %d rows, want %d", c.Table, c.Rows, want[c.Table])
			}
			delete(want, c.Table)
		}
		if len(want) != 0 {
			t.Errorf("tables not copied: %v", want)
		}
		checkCopy(t, dst)

		// The copy refuses a destination that is not empty, and
		// changes nothing there.
		if _, err := store.Copy(ctx, src, dst); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Fatalf("second copy: got %v, want a refusal of a non-empty destination", err)
		}
		if list, _ := dst.Accounts(ctx, 10, 0); len(list) != 3 {
			t.Fatalf("%d accounts after the refused copy, want 3", len(list))
		}
	})
}

// checkCopy reads the copied rows back through the API, then adds rows,
// which must get new ids.
func checkCopy(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	a, err := s.AccountByEmail(ctx, "admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Admin || !a.Verified || a.Plan != store.PlanEnterprise || a.UsageCap == nil || *a.UsageCap != 500 ||
		a.PaidUntil == nil || a.PaidUntil.Year() != 2027 || a.PasswordHash != "h1" {
		t.Fatalf("account after the copy: %+v", a)
	}
	if p, _ := s.AccountByEmail(ctx, "pending@example.com"); p == nil || p.Admin {
		t.Fatalf("second account after the copy: %+v", p)
	}
	if k, acct, err := s.KeyByHash(ctx, []byte("key-2")); err != nil || k.Name != "ci" || acct.ID != a.ID {
		t.Fatalf("key after the copy: %+v %v", k, err)
	}
	if r, err := s.RevokedKey(ctx, []byte("key-0")); err != nil || r.Reason != store.RevokedByOwner {
		t.Fatalf("revoked key after the copy: %+v %v", r, err)
	}
	if acct, err := s.SessionAccount(ctx, []byte("session")); err != nil || acct.ID != a.ID {
		t.Fatalf("session after the copy: %v", err)
	}
	if used, _ := s.Usage(ctx, a.ID); used != 2 {
		t.Fatalf("usage after the copy: %d, want 2", used)
	}
	sg, _ := s.Suggestions(ctx, 10, 0)
	if len(sg) != 2 || sg[1].Email != "me@example.com" || sg[0].Message != "dark mode" {
		t.Fatalf("suggestions after the copy: %+v", sg)
	}
	if ev, _ := s.AuditEvents(ctx, 10, 0); len(ev) != 2 || ev[1].SealedIP != "sealed" {
		t.Fatalf("audit events after the copy: %+v", ev)
	}
	if token, _ := s.Setting(ctx, "setup_token"); !slices.Equal(token, []byte{0, 1, 2, 255}) {
		t.Fatalf("setting after the copy: %v", token)
	}
	if p, err := s.AccountByEmail(ctx, "pending@example.com"); err != nil || !p.Disabled {
		t.Fatalf("disabled account after the copy: %+v %v", p, err)
	}
	if err := s.CheckInvite(ctx, []byte("invite hash")); err != nil {
		t.Fatalf("invite after the copy: %v", err)
	}
	if p, err := s.ProductForPlan(ctx, store.PlanPro); err != nil || p.PriceCents != 900 {
		t.Fatalf("product after the copy: %+v %v", p, err)
	}
	if res, _ := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "evt_1", Type: "invoice.paid"}); res.Outcome != store.PaymentDuplicate {
		t.Fatalf("a copied webhook event applied again: %v", res.Outcome)
	}
	if err := s.ConsumeCode(ctx, a.ID+1, store.PurposeRegister, []byte("code")); err != nil {
		t.Fatalf("code after the copy: %v", err)
	}
	id := mustAccount(t, s, "new@example.com", "")
	if id <= a.ID+1 {
		t.Fatalf("a new account got id %d, not past the copied ones", id)
	}
	if err := s.IssueKey(ctx, id, "default", []byte("key-3"), "sk_3…"); err != nil {
		t.Fatalf("a new key after the copy: %v", err)
	}
	if _, err := s.CreateProduct(ctx, store.Product{Name: "Ent", Plan: store.PlanEnterprise, PriceCents: 5000, Currency: "EUR", Interval: "year"}); err != nil {
		t.Fatalf("a new product after the copy: %v", err)
	}
	if err := s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditRegistered}); err != nil {
		t.Fatalf("a new audit event after the copy: %v", err)
	}
	if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Suggestion: &store.Suggestion{AccountID: id, Message: "x"}}); err != nil {
		t.Fatalf("a new suggestion after the copy: %v", err)
	}
}

// A row PostgreSQL cannot hold, text that is not UTF-8 (which SQLite keeps
// as it is), makes the copy fail as a whole.
func TestCopyFailureLeavesTheDestinationEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, dst := newTestDB(t, store.SQLite).open(t), newTestDB(t, store.Postgres).open(t)
	mustAccount(t, src, "first@example.com", "")
	if _, err := src.CreateAccount(ctx, store.NewAccount{Email: "second@example.com", PasswordHash: "\xff"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Copy(ctx, src, dst); err == nil || !strings.Contains(err.Error(), "accounts") {
		t.Fatalf("got %v, want the copy of accounts to fail", err)
	}
	if list, err := dst.Accounts(ctx, 10, 0); err != nil || len(list) != 0 {
		t.Fatalf("%d accounts, %v after a failed copy; want none", len(list), err)
	}
	if _, err := store.Copy(ctx, newTestDB(t, store.SQLite).open(t), dst); err != nil {
		t.Fatalf("the destination is not usable after a failed copy: %v", err)
	}
}

// TestCopyMovesEveryTableOfTheSchema: every table a migration creates is
// copied, but auth_generation, which is the destination's own; a new
// table must be added to Copy (and to fill).
func TestCopyMovesEveryTableOfTheSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newTestDB(t, store.SQLite)
	src := db.open(t)
	counts, err := store.Copy(ctx, src, newTestDB(t, store.SQLite).open(t))
	if err != nil {
		t.Fatal(err)
	}
	copied := map[string]bool{"auth_generation": true}
	for _, c := range counts {
		copied[c.Table] = true
	}
	raw, err := sql.Open("sqlite", db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tables := 0
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables++
		if !copied[name] {
			t.Errorf("table %s is not copied", name)
		}
	}
	if err := rows.Err(); err != nil || tables < len(counts) {
		t.Fatalf("%d tables in the schema, %v", tables, err)
	}
}

// TestCopyHandsOutNoCopiedID: the destination's next account id comes
// after every id the source handed out, also a deleted account's that no
// row names any more; a copy to PostgreSQL started its ids after the
// largest account left.
func TestCopyHandsOutNoCopiedID(t *testing.T) {
	t.Parallel()
	eachCopy(t, func(t *testing.T, src, dst *store.Store) {
		ctx := context.Background()
		mustAccount(t, src, "kept@example.com", "")
		deleted := mustAccount(t, src, "deleted@example.com", "")
		if err := src.DeleteAccount(ctx, deleted); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Copy(ctx, src, dst); err != nil {
			t.Fatal(err)
		}
		if next := mustAccount(t, dst, "new@example.com", ""); next <= deleted {
			t.Fatalf("the copy's next account got id %d; the source had handed out %d", next, deleted)
		}
	})
}
