package account_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"secutil/server/account"
	"secutil/store"
	"secutil/store/pgtest"
	"secutil/tools/passhash"
)

// onEachBackend runs test on a new SQLite file and on a PostgreSQL database
// that holds no rows (which skips unless SECUTIL_TEST_POSTGRES names a
// server).
func onEachBackend(t *testing.T, test func(t *testing.T, st *store.Store)) {
	for _, backend := range []string{store.SQLite, store.Postgres} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			if backend == store.Postgres {
				var err error
				if st, err = store.Open(context.Background(), migrated.URL(t)); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
			}
			test(t, st)
		})
	}
}

// migrated lends the PostgreSQL tests migrated schemas: cheaper than a new
// schema each (pgtest.Run in TestMain drops them).
var migrated = &pgtest.Pool{Open: func(ctx context.Context, url string) (io.Closer, error) {
	return store.Open(ctx, url)
}}

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// cheap are argon2id parameters fast enough for tests.
var cheap = passhash.Params{MemoryKiB: 64, Time: 1, Parallelism: 1}

func hashOf(t *testing.T, password string) string {
	t.Helper()
	h, err := passhash.Hash(password, cheap)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// owned creates a verified account with the password "old" and two
// sessions, its email and "mine", its email and "other".
func owned(t *testing.T, st *store.Store, email string) *store.Account {
	t.Helper()
	ctx := context.Background()
	a, err := account.Operator{Store: st, By: "by the test"}.Create(ctx, account.New{Email: email, PasswordHash: hashOf(t, "old"), Plan: store.PlanStarter})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"mine", "other"} {
		if err := st.CreateSession(ctx, []byte(email+h), a.ID, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if a, err = st.AccountByID(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestChangeOwnPassword(t *testing.T) {
	t.Parallel()
	onEachBackend(t, checkChangeOwnPassword)
}

func checkChangeOwnPassword(t *testing.T, st *store.Store) {
	ctx := context.Background()
	a := owned(t, st, "ann@example.com")
	owner := account.Operator{Store: st, By: "by the account's owner"}
	newHash := func() (string, error) { return hashOf(t, "new"), nil }
	fresh := &store.NewSession{Hash: []byte(a.Email + "fresh"), TTL: time.Hour}
	if err := owner.ChangeOwnPassword(ctx, a, "wrong", newHash, fresh, false); !errors.Is(err, account.ErrWrongPassword) {
		t.Fatalf("a wrong current password: %v", err)
	}
	weak := errors.New("too weak")
	if err := owner.ChangeOwnPassword(ctx, a, "old", func() (string, error) { return "", weak }, fresh, false); !errors.Is(err, weak) {
		t.Fatalf("a refused new password: %v", err)
	}
	if _, err := st.SessionAccount(ctx, []byte(a.Email+"other")); err != nil {
		t.Fatalf("a refused change ended a session: %v", err)
	}
	if err := owner.ChangeOwnPassword(ctx, a, "old", newHash, fresh, false); err != nil {
		t.Fatal(err)
	}
	got, _ := st.AccountByID(ctx, a.ID)
	if ok, _ := passhash.Verify("new", got.PasswordHash); !ok {
		t.Fatal("the new password does not work")
	}
	if _, err := st.SessionAccount(ctx, fresh.Hash); err != nil {
		t.Fatalf("the session the change started: %v", err)
	}
	for _, old := range []string{"mine", "other"} {
		if _, err := st.SessionAccount(ctx, []byte(a.Email+old)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the session %q survived: %v", old, err)
		}
	}
	if events := lastEvents(t, st, 1); events[0] != [2]string{store.AuditPasswordSet, "by the account's owner"} {
		t.Fatalf("audit: %v", events)
	}
}

func TestDeleteOwnAccount(t *testing.T) {
	t.Parallel()
	onEachBackend(t, checkDeleteOwnAccount)
}

func checkDeleteOwnAccount(t *testing.T, st *store.Store) {
	ctx := context.Background()
	a := owned(t, st, "ann@example.com")
	owner := account.Operator{Store: st, By: "by the account's owner"}
	if err := owner.DeleteOwnAccount(ctx, a, "wrong"); !errors.Is(err, account.ErrWrongPassword) {
		t.Fatalf("a wrong password: %v", err)
	}
	if _, err := st.AccountByID(ctx, a.ID); err != nil {
		t.Fatalf("deleted with a wrong password: %v", err)
	}
	if err := owner.DeleteOwnAccount(ctx, a, "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AccountByID(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after deleting: %v", err)
	}
	boss, err := account.Operator{Store: st, By: "by the test"}.Create(ctx, account.New{Email: "boss@example.com", PasswordHash: hashOf(t, "old"), Plan: store.PlanPro, Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	boss, _ = st.AccountByID(ctx, boss.ID)
	if err := owner.DeleteOwnAccount(ctx, boss, "old"); !errors.Is(err, store.ErrLastAdmin) {
		t.Fatalf("the last administrator deleting itself: %v", err)
	}
}

// The case: an enterprise account an administrator capped at 5
// cannot switch itself to starter (100 calls); a bought plan left keeps
// until paid_until.
func TestSwitchOwnPlan(t *testing.T) {
	t.Parallel()
	onEachBackend(t, checkSwitchOwnPlan)
}

func checkSwitchOwnPlan(t *testing.T, st *store.Store) {
	ctx := context.Background()
	admin := account.Operator{Store: st, By: "by the test"}
	user := account.Operator{Store: st, By: "by the account's owner"}
	capped := owned(t, st, "capped@example.com")
	five := 5
	if err := admin.SetPlan(ctx, capped, account.Plan{Name: store.PlanEnterprise, UsageCap: &five}); err != nil {
		t.Fatal(err)
	}
	capped, _ = st.AccountByID(ctx, capped.ID)
	for _, plan := range []string{store.PlanStarter, store.PlanPro} {
		if _, err := user.SwitchOwnPlan(ctx, capped, plan); !errors.Is(err, account.ErrPlanSetByAdmin) {
			t.Fatalf("switching an admin's plan to %s: %v", plan, err)
		}
	}
	if got, _ := st.AccountByID(ctx, capped.ID); got.Plan != store.PlanEnterprise || *got.Cap(time.Now()) != 5 {
		t.Fatalf("after the refusals: %+v", got)
	}

	buyer := owned(t, st, "buyer@example.com")
	until := time.Now().Add(10 * 24 * time.Hour).Truncate(time.Second)
	if _, err := st.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "e", Type: "paid", Email: buyer.Email, Change: &store.PlanChange{Plan: store.PlanPro, PaidUntil: &until}}); err != nil {
		t.Fatal(err)
	}
	buyer, _ = st.AccountByID(ctx, buyer.ID)
	if sw, err := user.SwitchOwnPlan(ctx, buyer, store.PlanEnterprise); err != nil || !sw.Checkout {
		t.Fatalf("to enterprise: %+v, %v", sw, err)
	}
	sw, err := user.SwitchOwnPlan(ctx, buyer, store.PlanStarter)
	if err != nil || !sw.Changed || sw.Plan != store.PlanPro || sw.Until == nil || !sw.Until.Equal(until) {
		t.Fatalf("leaving pro: %+v, %v", sw, err)
	}
	if got, _ := st.AccountByID(ctx, buyer.ID); got.EffectivePlan(time.Now()) != store.PlanPro || !got.PlanCancelled {
		t.Fatalf("after leaving pro: %+v", got)
	}
	var rule *account.RuleError
	if _, err := user.SwitchOwnPlan(ctx, buyer, "gold"); !errors.As(err, &rule) {
		t.Fatalf("to gold: %v", err)
	}
	starter := owned(t, st, "starter@example.com")
	if sw, err := user.SwitchOwnPlan(ctx, starter, store.PlanStarter); err != nil || sw.Changed || sw.Plan != store.PlanStarter {
		t.Fatalf("starter to starter: %+v, %v", sw, err)
	}
}

// An operator takes over a pending registration; verifying an unverified
// account, or making it an administrator, needs a new password.
func TestOperatorAndPendingAccounts(t *testing.T) {
	t.Parallel()
	onEachBackend(t, checkOperatorAndPendingAccounts)
}

func checkOperatorAndPendingAccounts(t *testing.T, st *store.Store) {
	ctx := context.Background()
	op := account.Operator{Store: st, By: "by the test"}
	id, err := registerPending(ctx, st, "boss@example.com")
	if err != nil {
		t.Fatal(err)
	}
	squat, _ := st.AccountByID(ctx, id)
	for _, act := range []account.Action{account.Verify, account.MakeAdmin} {
		if err := op.Apply(ctx, act, squat); !errors.Is(err, store.ErrUnverified) {
			t.Fatalf("%s on an unverified account: %v", act.Name, err)
		}
	}
	if got, _ := st.AccountByID(ctx, id); got.Verified || got.Admin {
		t.Fatalf("after the refusals: %+v", got)
	}
	if err := op.Activate(ctx, squat, "operator's", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.AccountByID(ctx, id); !got.Verified || !got.Admin || got.PasswordHash != "operator's" {
		t.Fatalf("after Activate: %+v", got)
	}
	want := [][2]string{{store.AuditPasswordSet, "by the test"}, {store.AuditAccountVerified, "by the test"}, {store.AuditAdminGranted, "by the test"}}
	if events := lastEvents(t, st, 3); len(events) != 3 || events[0] != want[0] || events[1] != want[1] || events[2] != want[2] {
		t.Fatalf("audit: %v", events)
	}

	id, err = registerPending(ctx, st, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	a, err := op.Create(ctx, account.New{Email: "ann@example.com", PasswordHash: "operator's", Plan: store.PlanPro, Admin: true})
	if err != nil || a.ID != id {
		t.Fatalf("Create over a pending registration: %+v, %v", a, err)
	}
	if events := lastEvents(t, st, 2); events[0] != [2]string{store.AuditRegistered, "took over the pending registration, by the test"} {
		t.Fatalf("audit: %v", events)
	}
	if _, err := op.Create(ctx, account.New{Email: "ann@example.com", PasswordHash: "x", Plan: store.PlanStarter}); !errors.Is(err, store.ErrEmailTaken) {
		t.Fatalf("Create over a verified account: %v", err)
	}
}

// registerPending registers email as a stranger would, with a password of
// the stranger's choosing, and returns its pending account's id.
func registerPending(ctx context.Context, st *store.Store, email string) (int64, error) {
	r, err := st.RegisterPending(ctx, store.Registration{Account: store.NewAccount{Email: email, PasswordHash: "attacker's"},
		Client: "stranger", Code: func(int64) []byte { return []byte("code") }, CodeTTL: time.Hour})
	return r.ID, err
}
