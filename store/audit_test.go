package store_test

import (
	"context"
	"testing"

	"secutil/store"
)

func TestAuditEventsKeepTheEmail(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "ann@example.com", store.PlanStarter)
		s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditLoginOK, AccountID: id})
		s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditAccountDeleted, AccountID: 4242, Email: "gone@example.com"})
		if err := s.DeleteAccount(ctx, id); err != nil {
			t.Fatal(err)
		}
		events, err := s.AuditEvents(ctx, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[0].Email != "gone@example.com" || events[1].Email != "ann@example.com" {
			t.Fatalf("events %+v", events)
		}
	})
}
