package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

// keyCalls returns each of the account's keys' calls this month, by name.
func keyCalls(t *testing.T, s *store.Store, accountID int64) map[string]int {
	t.Helper()
	keys, err := s.Keys(context.Background(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, k := range keys {
		calls[k.Name] = k.Calls
	}
	return calls
}

func keyID(t *testing.T, s *store.Store, accountID int64, name string) int64 {
	t.Helper()
	k, err := s.KeyByName(context.Background(), accountID, name)
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

func TestUsageByDayAndPerKeyCalls(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		for _, name := range []string{"ci", "other"} {
			if err := s.IssueKey(ctx, id, name, []byte(name+"-hash"), "sk_x…"); err != nil {
				t.Fatal(err)
			}
		}
		ci, other := keyID(t, s, id, "ci"), keyID(t, s, id, "other")
		// SQLite gives a new row the highest id plus one: "new" below gets the
		// revoked "other"'s id.
		var now time.Time
		s.SetClock(func() time.Time { return now })
		charge := func(at time.Time, keyID int64, n int) {
			t.Helper()
			now = at
			for range n {
				if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id, KeyID: keyID}); err != nil {
					t.Fatal(err)
				}
			}
		}
		charge(time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC), ci, 2)
		charge(time.Date(2026, 11, 1, 0, 30, 0, 0, time.UTC), ci, 1)
		charge(time.Date(2026, 11, 1, 0, 31, 0, 0, time.UTC), 0, 1) // a dashboard session's call names no key
		charge(time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC), other, 1)

		days := func() []int {
			t.Helper()
			d, err := s.UsageByDay(ctx, id, time.Date(2026, 10, 30, 18, 0, 0, 0, time.UTC), now)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		want := []int{0, 2, 2, 0, 1}
		if got := days(); !slices.Equal(got, want) {
			t.Fatalf("calls by day: got %v, want %v", got, want)
		}
		if got, _ := s.Usage(ctx, id); got != 3 {
			t.Fatalf("November's usage: got %v, want 3 (the day counts do not replace the month's)", got)
		}
		if got := keyCalls(t, s, id); got["ci"] != 1 || got["other"] != 1 {
			t.Fatalf("calls this month by key: %v, want ci 1 (October's 2 are last month's) and other 1", got)
		}

		// A rotated key keeps its name's calls; a revoked key's calls stay in
		// the days, and a key issued after it starts from none, even when it
		// gets the revoked key's id.
		if err := s.IssueKey(ctx, id, "ci", []byte("ci-hash-2"), "sk_y…"); err != nil {
			t.Fatal(err)
		}
		if got := keyCalls(t, s, id)["ci"]; got != 1 {
			t.Fatalf("rotated key: %d calls, want 1", got)
		}
		if err := s.RevokeKey(ctx, id, "other"); err != nil {
			t.Fatal(err)
		}
		if got := days(); !slices.Equal(got, want) {
			t.Fatalf("calls by day after a revocation: got %v, want %v", got, want)
		}
		if err := s.IssueKey(ctx, id, "new", []byte("new-hash"), "sk_z…"); err != nil {
			t.Fatal(err)
		}
		if got := keyCalls(t, s, id)["new"]; got != 0 {
			t.Fatalf("a new key inherits %d calls", got)
		}
		if err := s.RevokeKey(ctx, id, "other"); err != store.ErrNotFound {
			t.Fatalf("revoking a revoked key: %v, want ErrNotFound", err)
		}
	})
}

// TestDayAndKeyCountsExactUnderConcurrency: calls committed together in
// one batch are each counted once in the day's and the key's counts.
func TestDayAndKeyCountsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		if err := s.IssueKey(ctx, id, "ci", []byte("hash"), "sk_x…"); err != nil {
			t.Fatal(err)
		}
		key := keyID(t, s, id, "ci")
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Go(func() {
				c := store.Charge{AccountID: id}
				if i%2 == 0 {
					c.KeyID = key
				}
				if _, err := s.CommitUsage(ctx, c); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		days, err := s.UsageByDay(ctx, id, s.Now(), s.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(days) != 1 || days[0] != 200 {
			t.Fatalf("today's calls %v, want [200]", days)
		}
		if got := keyCalls(t, s, id)["ci"]; got != 100 {
			t.Fatalf("key calls %d, want 100", got)
		}
	})
}
