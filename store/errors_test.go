package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

func TestRowsOfAMissingAccountAreNotFound(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		const missing = 999 // the foreign key to accounts refuses it
		for name, write := range map[string]func() error{
			"CreateSession": func() error { return s.CreateSession(ctx, []byte("tok"), missing, time.Hour) },
			"SetCode":       func() error { return s.SetCode(ctx, missing, store.PurposeReset, []byte("c"), time.Minute) },
			"IssueKey":      func() error { return s.IssueKey(ctx, missing, "default", []byte("h"), "sk_h…") },
		} {
			if err := write(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: got %v, want ErrNotFound", name, err)
			}
		}
	})
}

func TestErrorsNameTheOperation(t *testing.T) {
	t.Parallel()
	// SQLite only: the prefix is Go's wrapping of whatever error database/sql
	// returns for a closed pool, the same for both drivers.
	onSQLiteOnly(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		s.Close()
		_, err := s.AccountByID(context.Background(), 1)
		if err == nil || !strings.HasPrefix(err.Error(), "store: account by id: ") || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v, want a closed-database error prefixed with the operation", err)
		}
	})
}

// PostgreSQL's text cannot hold the NUL character; both backends refuse
// it in text they would store, and find nothing by a name holding it.
func TestTextWithNULIsRefusedAlike(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		id := mustAccount(t, s, "a@example.com", store.PlanPro)
		const nul = "a\x00b"
		for name, write := range map[string]func() error{
			"CreateAccount": func() error { // (an email holding NUL is ErrInvalidEmail)
				_, err := s.CreateAccount(ctx, store.NewAccount{Email: "b@example.com", PasswordHash: nul})
				return err
			},
			"CommitUsage": func() error {
				_, err := s.CommitUsage(ctx, store.Charge{AccountID: id, Suggestion: &store.Suggestion{AccountID: id, Message: nul}})
				return err
			},
			"CreateProduct": func() error {
				_, err := s.CreateProduct(ctx, store.Product{Name: nul, Plan: store.PlanPro, PriceCents: 1, Currency: "EUR", Interval: "month"})
				return err
			},
			"ApplyPaymentEvent": func() error { _, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: nul, Type: "x"}); return err },
			"AddAudit":          func() error { return s.AddAudit(ctx, store.AuditEvent{Kind: store.AuditLoginOK, Detail: nul}) },
			"IssueKey":          func() error { return s.IssueKey(ctx, id, nul, []byte("h"), "sk_h…") },
		} {
			if err := write(); !errors.Is(err, store.ErrInvalidText) {
				t.Errorf("%s: got %v, want ErrInvalidText", name, err)
			}
		}
		if used, _ := s.Usage(ctx, id); used != 0 {
			t.Errorf("a refused suggestion was counted: usage %d", used)
		}
		if _, err := s.AccountByEmail(ctx, nul); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("AccountByEmail: got %v, want ErrNotFound", err)
		}
		if err := s.RevokeKey(ctx, id, nul); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeKey: got %v, want ErrNotFound", err)
		}
		res, err := s.ApplyPaymentEvent(ctx, store.PaymentEvent{ID: "evt_nul", Type: "subscription.activated", Email: nul, Change: &store.PlanChange{Plan: store.PlanPro}})
		if err != nil || res.Outcome != store.PaymentUnknownAccount {
			t.Errorf("payment for an email holding NUL: %v, %v; want unknown_account", res.Outcome, err)
		}
		if ok, _, err := s.TakeToken(ctx, "account "+nul, 5, time.Minute); !ok || err != nil {
			t.Errorf("TakeToken for a name holding NUL: %v, %v", ok, err)
		}
	})
}
