package store_test

import (
	"context"
	"errors"
	"testing"

	"secutil/store"
)

func TestAuthCacheSeesEveryChange(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanStarter)
		h1 := make([]byte, 32)
		h1[0] = 1
		h2 := make([]byte, 32)
		h2[0] = 2
		s.IssueKey(ctx, id, "default", h1, "sk_1…")
		for i := 0; i < 2; i++ { // the second lookup is served by the cache
			if _, a, err := s.KeyByHash(ctx, h1); err != nil || a.Plan != store.PlanStarter {
				t.Fatalf("lookup %d: %v %v", i, a, err)
			}
		}
		if err := s.SetPlan(ctx, id, store.PlanPro, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, a, _ := s.KeyByHash(ctx, h1); a.Plan != store.PlanPro {
			t.Fatalf("plan change not seen: %v", a.Plan)
		}
		k, _, _ := s.KeyByHash(ctx, h1)
		if err := s.RotateKey(ctx, k.ID, h1, h2, "sk_2…"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.KeyByHash(ctx, h1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("rotated key still authenticates from the cache: %v", err)
		}
		s.KeyByHash(ctx, h2)
		s.RevokeKey(ctx, id, "default")
		if _, _, err := s.KeyByHash(ctx, h2); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked key still authenticates from the cache: %v", err)
		}
	})
}
