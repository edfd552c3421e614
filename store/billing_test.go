package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

func TestApplyPaymentEventOutcomes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanStarter)
		until := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
		activate := store.PaymentEvent{ID: "evt_1", Type: "subscription.activated", Email: "A@example.com",
			Change: &store.PlanChange{Plan: store.PlanPro, PaidUntil: &until}}
		tests := []struct {
			name string
			ev   store.PaymentEvent
			want string
		}{
			{"first delivery", activate, store.PaymentApplied},
			{"replay", activate, store.PaymentDuplicate},
			{"unknown type", store.PaymentEvent{ID: "evt_2", Type: "invoice.paid"}, store.PaymentIgnored},
			{"unknown email", store.PaymentEvent{ID: "evt_3", Type: "subscription.canceled", Email: "nobody@example.com", Change: &store.PlanChange{Plan: store.PlanStarter}}, store.PaymentUnknownAccount},
			{"unknown email replayed", store.PaymentEvent{ID: "evt_3", Type: "subscription.canceled", Email: "a@example.com", Change: &store.PlanChange{Plan: store.PlanStarter}}, store.PaymentDuplicate},
		}
		for _, tt := range tests {
			res, err := s.ApplyPaymentEvent(ctx, tt.ev)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got := res.Outcome; got != tt.want {
				t.Fatalf("%s: got %v, want %v", tt.name, got, tt.want)
			}
		}
		a, err := s.AccountByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if a.Plan != store.PlanPro || a.PaidUntil == nil || !a.PaidUntil.Equal(until) {
			t.Fatalf("account after events: plan %s, paid_until %v", a.Plan, a.PaidUntil)
		}
	})
}

// A plan bought through the billing provider is the user's own, even on
// an account whose earlier plan an administrator set: an event that names
// a plan (activated, canceled) clears Account.PlanByAdmin. A renewal,
// which names none, keeps it, so that a subscription renewing under an
// administrator's plan does not free the account from it; the
// administrator's enterprise cap stays through all of them.
func TestPaymentClearsThePlanAnAdminSet(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanStarter)
		five := 5
		if err := s.SetPlan(ctx, id, store.PlanEnterprise, nil, &five); err != nil {
			t.Fatal(err)
		}
		until := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
		apply := func(eventID string, change store.PlanChange) *store.Account {
			t.Helper()
			res, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: eventID, Type: "t", Email: "a@example.com", Change: &change})
			if err != nil || res.Outcome != store.PaymentApplied {
				t.Fatalf("%s: %+v, %v", eventID, res, err)
			}
			a, err := s.AccountByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		if a := apply("renewed", store.PlanChange{PaidUntil: &until}); !a.PlanByAdmin || a.Plan != store.PlanEnterprise {
			t.Fatalf("a renewal under the administrator's plan: %+v", a)
		}
		a := apply("bought", store.PlanChange{Plan: store.PlanPro, PaidUntil: &until})
		if a.PlanByAdmin || a.Plan != store.PlanPro || a.UsageCap == nil || *a.UsageCap != 5 {
			t.Fatalf("a plan the user bought after the administrator's: %+v", a)
		}
		if err := s.SetPlan(ctx, id, store.PlanEnterprise, &until, &five); err != nil {
			t.Fatal(err)
		}
		if a := apply("canceled", store.PlanChange{Plan: store.PlanStarter}); a.PlanByAdmin || a.Plan != store.PlanStarter {
			t.Fatalf("a cancellation of the administrator's plan: %+v", a)
		}
	})
}

func TestConcurrentDeliveriesApplyOnce(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		mustAccount(t, s, "a@example.com", store.PlanStarter)
		until := time.Now().Add(30 * 24 * time.Hour)
		ev := store.PaymentEvent{ID: "evt_once", Type: "subscription.activated", Email: "a@example.com",
			Change: &store.PlanChange{Plan: store.PlanPro, PaidUntil: &until}}
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[string]int{}
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.ApplyPaymentEvent(ctx, ev)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				outcomes[res.Outcome]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if outcomes[store.PaymentApplied] != 1 || outcomes[store.PaymentDuplicate] != 19 {
			t.Fatalf("outcomes %v, want 1 applied and 19 duplicates", outcomes)
		}
	})
}
