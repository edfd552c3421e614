package store_test

import (
	"context"
	"testing"
	"time"
)

// Buckets that are full again are deleted as others are used, so the
// table holds only the buckets in use.
func TestFullBucketsAreDropped(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		for _, bucket := range []string{"x", "y", "z"} {
			if ok, _, err := s.TakeToken(ctx, bucket, 10, time.Minute); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		now = now.Add(time.Minute) // x, y and z are full again
		if ok, _, err := s.TakeToken(ctx, "w", 10, time.Minute); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if ok, _, err := s.TakeToken(ctx, "w", 10, time.Minute); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if n := countRows(t, db, "throttle"); n != 1 {
			t.Fatalf("%d buckets kept, want only w", n)
		}
	})
}
