package store_test

import (
	"context"
	"errors"
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

// todayCalls is the account's calls today, as UsageByDay counts them.
func todayCalls(t *testing.T, s *store.Store, accountID int64) int {
	t.Helper()
	days, err := s.UsageByDay(context.Background(), accountID, s.Now(), s.Now())
	if err != nil || len(days) != 1 {
		t.Fatalf("today's usage %v, %v; want one day", days, err)
	}
	return days[0]
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
		if got := todayCalls(t, s, id); got != 200 {
			t.Fatalf("today's calls %d, want 200", got)
		}
		if got := keyCalls(t, s, id)["ci"]; got != 100 {
			t.Fatalf("key calls %d, want 100", got)
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
