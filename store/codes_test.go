package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"secutil/store"
)

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

// A stranger's reset requests and wrong codes, from one client, do not
// stop the owner's reset from another; the owner is told once.
func TestStrangerCannotBlockReset(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "victim@example.com", "")
		notices := 0
		for range store.MaxCodesPerHour + 2 {
			notify, err := s.SetCodeFor(ctx, id, store.PurposeReset, "stranger", []byte("stranger's"), time.Hour)
			if err != nil && !errors.Is(err, store.ErrTooManyCodes) {
				t.Fatal(err)
			}
			if notify {
				notices++
			}
		}
		for range store.MaxCodeTriesPerHour + 2 {
			notify, err := s.ConsumeCodeFrom(ctx, id, store.PurposeReset, "stranger", []byte("wrong"))
			if !errors.Is(err, store.ErrCodeInvalid) {
				t.Fatalf("a wrong code: %v", err)
			}
			if notify {
				notices++
			}
		}
		if notices != 1 {
			t.Fatalf("the owner would be told %d times, want once", notices)
		}
		if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, "owner", []byte("owner's"), time.Hour); err != nil {
			t.Fatalf("the owner's request: %v", err)
		}
		if _, err := s.ConsumeCodeFrom(ctx, id, store.PurposeReset, "owner", []byte("owner's")); err != nil {
			t.Fatalf("the owner's code: %v", err)
		}
	})
}

// The account's limits over every client still bound guessing from many.
func TestCodeLimitsOverAllClients(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		sent := 0
		for i := range store.MaxAccountCodesPerHour + 3 {
			if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, fmt.Sprint("client ", i), []byte("c"), time.Hour); err == nil {
				sent++
			}
		}
		if sent != store.MaxAccountCodesPerHour {
			t.Fatalf("%d codes sent from many clients, want %d", sent, store.MaxAccountCodesPerHour)
		}
	})
}
