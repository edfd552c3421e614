package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"secutil/store"
)

// A batch's charge counts its items in the month, the day and the key.
func TestBatchChargeCountsItsItems(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		if err := s.IssueKey(ctx, id, "ci", []byte("hash"), "sk_x…"); err != nil {
			t.Fatal(err)
		}
		key := keyID(t, s, id, "ci")
		limit := 1000
		for i, c := range []store.Charge{
			{AccountID: id, KeyID: key, Items: 40},
			{AccountID: id, KeyID: key},
			{AccountID: id, Cap: &limit, Items: 9},
		} {
			n, err := s.CommitUsage(ctx, c)
			if want := []int{40, 41, 50}[i]; err != nil || n != want {
				t.Fatalf("charge %d: count %d, %v; want %d", i, n, err, want)
			}
		}
		if got, _ := s.Usage(ctx, id); got != 50 {
			t.Fatalf("usage %d, want 50", got)
		}
		if got := todayCalls(t, s, id); got != 50 {
			t.Fatalf("today %d, want 50", got)
		}
		if got := keyCalls(t, s, id)["ci"]; got != 41 {
			t.Fatalf("the key's items %d, want 41", got)
		}
	})
}

// A batch larger than what is left is refused whole, telling what is
// left, with nothing charged; one that fits takes the account to its cap.
func TestBatchLargerThanWhatIsLeftIsRefusedWhole(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		limit := 10
		if _, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit, Items: 7}); err != nil {
			t.Fatal(err)
		}
		_, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit, Items: 4, Suggestion: &store.Suggestion{AccountID: id, Message: "m"}})
		if !errors.Is(err, store.ErrQuotaExceeded) || store.ItemsLeft(err) != 3 {
			t.Fatalf("a batch of 4 with 3 left: %v, %d left", err, store.ItemsLeft(err))
		}
		if got, _ := s.Usage(ctx, id); got != 7 {
			t.Fatalf("usage %d after a refused batch, want 7: nothing charged", got)
		}
		if sg, _ := s.Suggestions(ctx, 10, 0); len(sg) != 0 {
			t.Fatalf("a refused batch stored %d suggestions", len(sg))
		}
		if got := todayCalls(t, s, id); got != 7 {
			t.Fatalf("today %d after a refused batch, want 7", got)
		}

		// The reservation of a batch: one item, then the rest once the
		// batch's size is known.
		r, err := s.Reserve(ctx, id, limit)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Grow(ctx, limit, 3); !errors.Is(err, store.ErrQuotaExceeded) || store.ItemsLeft(err) != 2 {
			t.Fatalf("growing by 3 with 2 left besides the reservation: %v, %d left", err, store.ItemsLeft(err))
		}
		if err := r.Grow(ctx, limit, 2); err != nil {
			t.Fatalf("growing by the 2 left: %v", err)
		}
		if _, err := s.Reserve(ctx, id, limit); !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("a reservation with every item held: %v", err)
		}
		r.Release()
		if other, err := s.Reserve(ctx, id, limit); err != nil {
			t.Fatalf("the released batch's items were not given back: %v", err)
		} else {
			other.Release()
		}
		if err := r.Grow(ctx, limit, 1); err == nil {
			t.Fatal("a released reservation grew")
		}
		if n, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit, Items: 3}); err != nil || n != limit {
			t.Fatalf("the batch of the 3 left: count %d, %v", n, err)
		}
	})
}

// Batches and single calls racing against a cap on two stores (two
// servers of one database), with reservations as the server takes them and
// without, land exactly on it and never past it.
func TestRacingBatchesLandExactlyOnTheCap(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		stores := []*store.Store{db.open(t), db.open(t)}
		for _, reserve := range []bool{true, false} {
			id := mustAccount(t, stores[0], map[bool]string{true: "r@example.com", false: "c@example.com"}[reserve], "")
			limit := 100
			var counted, refused atomic.Int64
			var wg sync.WaitGroup
			// 40 batches of 5 and 40 single calls: 240 items for 100.
			for i := range 80 {
				items, s := 1+4*(i%2), stores[i/2%2]
				wg.Go(func() {
					c := store.Charge{AccountID: id, Cap: &limit, Items: items}
					if reserve {
						r, err := s.Reserve(ctx, id, limit)
						if err == nil && items > 1 {
							err = r.Grow(ctx, limit, items-1)
						}
						defer r.Release()
						if errors.Is(err, store.ErrQuotaExceeded) {
							refused.Add(int64(items))
							return
						}
						if err != nil {
							t.Error(err)
							return
						}
						c.Reservation = r
					}
					_, err := s.CommitUsage(ctx, c)
					switch {
					case err == nil:
						counted.Add(int64(items))
					case errors.Is(err, store.ErrQuotaExceeded):
						refused.Add(int64(items))
					default:
						t.Error(err)
					}
				})
			}
			wg.Wait()
			usage, _ := stores[0].Usage(ctx, id)
			if usage != int(counted.Load()) || usage > limit || counted.Load()+refused.Load() != 240 {
				t.Fatalf("reservations %v: usage %d, counted %d, refused %d; want the usage counted, at most %d",
					reserve, usage, counted.Load(), refused.Load(), limit)
			}
			// 80 single calls race for what is left, or none when nothing is:
			// whatever the order, the month then ends exactly at the cap.
			for i := range 80 {
				wg.Go(func() { stores[i%2].CommitUsage(ctx, store.Charge{AccountID: id, Cap: &limit}) })
			}
			wg.Wait()
			if usage, _ := stores[1].Usage(ctx, id); usage != limit {
				t.Fatalf("reservations %v: usage %d after the single calls, want %d", reserve, usage, limit)
			}
		}
	})
}
