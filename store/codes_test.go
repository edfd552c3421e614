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

// TestKnownNetworkOutlastsTheAccountLimits: strangers on 4 networks used
// up the account's 20 codes an hour, and strangers on 7 its 50 wrong
// tries, which then refused the owner too. A network the account logged
// in from keeps its own share past the account's limits; any other is
// still held to them.
func TestKnownNetworkOutlastsTheAccountLimits(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "owner@example.com", "")
		if err := s.RememberClient(ctx, id, "owner's network"); err != nil {
			t.Fatal(err)
		}
		// 5 wrong tries at each code (which it kills), the codes asked for
		// from 4 networks, the tries from 7.
		codes := 0
		ask := func() {
			t.Helper()
			if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, fmt.Sprint("asker ", codes%4), []byte("stranger's"), time.Hour); err != nil {
				t.Fatalf("code %d of the attack: %v", codes, err)
			}
			codes++
		}
		for try := range 7 * store.MaxCodeTriesPerHour {
			if try%store.MaxCodeAttempts == 0 {
				ask()
			}
			s.ConsumeCodeFrom(ctx, id, store.PurposeReset, fmt.Sprint("guesser ", try/store.MaxCodeTriesPerHour), []byte("wrong"))
		}
		for codes < store.MaxAccountCodesPerHour {
			ask()
		}
		if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, "another stranger", []byte("c"), time.Hour); !errors.Is(err, store.ErrTooManyCodes) {
			t.Fatalf("a code for another stranger after the attack: %v, want ErrTooManyCodes", err)
		}
		if _, err := s.SetCodeFor(ctx, id, store.PurposeReset, "owner's network", []byte("owner's"), time.Hour); err != nil {
			t.Fatalf("the owner's request after the attack: %v", err)
		}
		if _, err := s.ConsumeCodeFrom(ctx, id, store.PurposeReset, "another stranger", []byte("owner's")); !errors.Is(err, store.ErrCodeInvalid) {
			t.Fatalf("the right code from another stranger after the attack: %v, want ErrCodeInvalid", err)
		}
		if _, err := s.ConsumeCodeFrom(ctx, id, store.PurposeReset, "owner's network", []byte("owner's")); err != nil {
			t.Fatalf("the owner's code after the attack: %v", err)
		}
	})
}

// TestKnownNetworksAreFewAndExpire: an account keeps its MaxKnownClients
// newest networks, each for KnownClientsKept after its last login; the
// sweep deletes the older.
func TestKnownNetworksAreFewAndExpire(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Now()
		s.SetClock(func() time.Time { return now })
		id := mustAccount(t, s, "owner@example.com", "")
		for i := range store.MaxKnownClients + 2 {
			if err := s.RememberClient(ctx, id, fmt.Sprint("network ", i)); err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Second)
		}
		if n := countRows(t, db, "known_clients"); n != store.MaxKnownClients {
			t.Fatalf("%d known networks, want %d", n, store.MaxKnownClients)
		}
		now = now.Add(store.KnownClientsKept - 6*time.Second)
		if _, err := s.DeleteExpiredCodes(ctx); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, db, "known_clients"); n != 5 {
			t.Fatalf("%d known networks after the sweep, want the 5 seen in the last %v", n, store.KnownClientsKept)
		}
	})
}

// TestWrongCodeTellsTriesLeft: a wrong try at a live code says how many
// more tries the client has at it: the code's own, its hour's if fewer.
func TestWrongCodeTellsTriesLeft(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		var left []int
		// Three codes, tried 5, 3 and 2 times: the last two tries are
		// the hour's last.
		for _, tries := range []int{store.MaxCodeAttempts, 3, 2} {
			if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Hour); err != nil {
				t.Fatal(err)
			}
			for range tries {
				var wrong *store.WrongCodeError
				if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("wrong")); !errors.As(err, &wrong) || !errors.Is(err, store.ErrCodeInvalid) {
					t.Fatalf("a wrong code: %v, want a WrongCodeError", err)
				}
				left = append(left, wrong.TriesLeft)
			}
		}
		if fmt.Sprint(left) != "[4 3 2 1 0 4 3 2 1 0]" {
			t.Fatalf("tries left after each wrong code: %v", left)
		}
		if err := s.SetCode(ctx, id, store.PurposeRegister, []byte("right"), time.Hour); err != nil {
			t.Fatal(err)
		}
		var wrong *store.WrongCodeError
		if err := s.ConsumeCode(ctx, id, store.PurposeRegister, []byte("wrong")); errors.As(err, &wrong) || !errors.Is(err, store.ErrCodeInvalid) {
			t.Fatalf("a try past the hour's: %v, want ErrCodeInvalid alone", err)
		}
	})
}
