package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"secutil/store"
)

// openWithClock opens db with a clock that reads the time it points to,
// which starts at a fixed time.
func openWithClock(t *testing.T, db testDB) (*store.Store, *time.Time) {
	t.Helper()
	s := db.open(t)
	now := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return now })
	return s, &now
}

// Every change that deletes or replaces an API key records its hash, with
// when and why, in the transaction that does it; a live key, one never
// made and the new key of a rotation are not revoked ones.
func TestEveryKeyRemovalIsRecorded(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, clock := openWithClock(t, db)
		now := *clock
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		id := mustAccount(t, s, "a@example.com", "")
		issue := func(account int64, name, hash string) {
			t.Helper()
			must(s.IssueKey(ctx, account, name, []byte(hash), "sk_…"))
		}
		wantRevoked := func(hash, reason string) {
			t.Helper()
			r, err := s.RevokedKey(ctx, []byte(hash))
			if err != nil || r.Reason != reason || !r.At.Equal(now) {
				t.Errorf("key %s: %+v, %v; want revoked at %v (%s)", hash, r, err, now, reason)
			}
			if _, _, err := s.KeyByHash(ctx, []byte(hash)); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("key %s still works: %v", hash, err)
			}
		}
		wantNotRevoked := func(hash string) {
			t.Helper()
			if r, err := s.RevokedKey(ctx, []byte(hash)); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("key %s: %+v, %v; want ErrNotFound", hash, r, err)
			}
		}

		issue(id, "revoked", "revoked")
		must(s.RevokeKey(ctx, id, "revoked"))
		wantRevoked("revoked", store.RevokedByOwner)

		issue(id, "rotated", "rotated-old")
		k, _, err := s.KeyByHash(ctx, []byte("rotated-old"))
		must(err)
		must(s.RotateKey(ctx, k.ID, []byte("rotated-old"), []byte("rotated-new"), "sk_…"))
		wantRevoked("rotated-old", store.RevokedRotated)
		wantNotRevoked("rotated-new")
		// A rotation that fails (the key was rotated meanwhile) records
		// nothing.
		if err := s.RotateKey(ctx, k.ID, []byte("stale"), []byte("never"), "sk_…"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a stale rotation: %v", err)
		}
		wantNotRevoked("stale")

		issue(id, "default", "replaced") // as POST /api/v1/get_api_key and the dashboard's rotation do
		issue(id, "default", "replacement")
		wantRevoked("replaced", store.RevokedRotated)
		wantNotRevoked("replacement")

		// A password set without revoking keys leaves them live.
		must(s.SetPassword(ctx, id, "p2", false))
		wantNotRevoked("replacement")
		must(s.SetPassword(ctx, id, "p3", true)) // a reset
		wantRevoked("replacement", store.RevokedPasswordSet)
		wantRevoked("rotated-new", store.RevokedPasswordSet)
		issue(id, "default", "changed")
		must(s.ChangePassword(ctx, id, "p4", nil, true)) // the user's own change
		wantRevoked("changed", store.RevokedPasswordSet)

		// An operator takes over a pending registration: its keys go.
		squatted := pending(t, s, "boss@example.com", "squatter", nil)
		issue(squatted, "default", "squatter's")
		if _, tookOver, err := s.CreateOrTakeOver(ctx, store.NewAccount{Email: "boss@example.com", PasswordHash: "operator", Verified: true}); err != nil || !tookOver {
			t.Fatalf("take over: %v %v", tookOver, err)
		}
		wantRevoked("squatter's", store.RevokedPasswordSet)

		// An account deleted (by an administrator or by its owner: one
		// path) takes its keys with it.
		gone := mustAccount(t, s, "gone@example.com", "")
		issue(gone, "default", "gone-1")
		issue(gone, "ci", "gone-2")
		must(s.DeleteAccount(ctx, gone))
		wantRevoked("gone-1", store.RevokedAccountDeleted)
		wantRevoked("gone-2", store.RevokedAccountDeleted)

		issue(id, "live", "live")
		wantNotRevoked("live")
		wantNotRevoked("never made")
	})
}

// The sweep deletes revoked keys older than RevokedKeysKept and keeps the
// younger ones: after it, an old revoked key reads as unknown.
func TestOldRevokedKeysAreSwept(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s, now := openWithClock(t, db)
		id := mustAccount(t, s, "a@example.com", "")
		revoke := func(hash string) {
			t.Helper()
			if err := s.IssueKey(ctx, id, hash, []byte(hash), "sk_…"); err != nil {
				t.Fatal(err)
			}
			if err := s.RevokeKey(ctx, id, hash); err != nil {
				t.Fatal(err)
			}
		}
		revoke("old")
		*now = now.Add(2 * 24 * time.Hour)
		revoke("young")
		*now = now.Add(store.RevokedKeysKept - 24*time.Hour) // "old" is a day past the window, "young" a day short of it
		n, err := s.DeleteOldRevokedKeys(ctx)
		if err != nil || n != 1 {
			t.Fatalf("swept %d, %v; want 1", n, err)
		}
		if _, err := s.RevokedKey(ctx, []byte("old")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a key revoked past the window: %v, want ErrNotFound", err)
		}
		if _, err := s.RevokedKey(ctx, []byte("young")); err != nil {
			t.Fatalf("a key revoked within the window: %v", err)
		}
		if n, err := s.DeleteOldRevokedKeys(ctx); err != nil || n != 0 {
			t.Fatalf("a second sweep deleted %d, %v", n, err)
		}
	})
}

func TestKeysIssueRotateRevoke(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		if err := s.IssueKey(ctx, id, "default", []byte("h1"), "sk_1…"); err != nil {
			t.Fatal(err)
		}
		k, a, err := s.KeyByHash(ctx, []byte("h1"))
		if err != nil || a.ID != id || k.Name != "default" {
			t.Fatalf("KeyByHash = %+v, %+v, %v", k, a, err)
		}
		// Issuing the same name again replaces the old key.
		if err := s.IssueKey(ctx, id, "default", []byte("h2"), "sk_2…"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("h1")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("old key still works: %v", err)
		}
		if err := s.RotateKey(ctx, k.ID, []byte("h2"), []byte("h3"), "sk_3…"); err != nil {
			t.Fatal(err)
		}
		if err := s.RotateKey(ctx, k.ID, []byte("h2"), []byte("h4"), "sk_4…"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second rotation of a stale key: got %v, want ErrNotFound", err)
		}
		if err := s.RevokeKey(ctx, id, "default"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, []byte("h3")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked key still works: %v", err)
		}
	})
}

func TestKeyLimit(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", "")
		for i := 0; i < store.MaxKeysPerAccount; i++ {
			if err := s.IssueKey(ctx, id, string(rune('a'+i)), []byte{byte(i)}, "h"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.IssueKey(ctx, id, "one-too-many", []byte("x"), "h"); !errors.Is(err, store.ErrTooManyKeys) {
			t.Fatalf("got %v, want ErrTooManyKeys", err)
		}
	})
}
