package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"secutil/store"
)

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
