package store_test

import (
	"context"
	"errors"
	"testing"

	"secutil/store"
)

func TestProductsListUpdateDelete(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		first, err := s.CreateProduct(ctx, store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: 900, Currency: "EUR", Interval: "month"})
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.CreateProduct(ctx, store.Product{Name: "Ent", Plan: store.PlanEnterprise, PriceCents: 5000, Currency: "EUR", Interval: "year"})
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.Products(ctx, 10)
		if err != nil || len(list) != 2 || list[0].ID != second || list[1].ID != first || list[1].PriceCents != 900 {
			t.Fatalf("products %+v, %v: want the two, newest first", list, err)
		}
		if list, err := s.Products(ctx, 1); err != nil || len(list) != 1 {
			t.Fatalf("limit 1: %+v, %v", list, err)
		}

		if err := s.UpdateProduct(ctx, store.Product{ID: first, Name: "Pro yearly", Plan: store.PlanPro, PriceCents: 9000, Currency: "USD", Interval: "year"}); err != nil {
			t.Fatal(err)
		}
		p, err := s.ProductForPlan(ctx, store.PlanPro)
		if err != nil || p.ID != first || p.Name != "Pro yearly" || p.PriceCents != 9000 || p.Currency != "USD" || p.Interval != "year" {
			t.Fatalf("after the update: %+v, %v", p, err)
		}
		if err := s.UpdateProduct(ctx, store.Product{ID: 999, Name: "x", Plan: store.PlanPro, PriceCents: 1, Currency: "EUR", Interval: "month"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update of an unknown id: %v, want ErrNotFound", err)
		}
		if err := s.UpdateProduct(ctx, store.Product{ID: first, Name: "a\x00b", Plan: store.PlanPro, PriceCents: 1, Currency: "EUR", Interval: "month"}); !errors.Is(err, store.ErrInvalidText) {
			t.Fatalf("a NUL in the name: %v, want ErrInvalidText", err)
		}

		if err := s.DeleteProduct(ctx, first); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteProduct(ctx, first); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a second delete: %v, want ErrNotFound", err)
		}
		if _, err := s.ProductForPlan(ctx, store.PlanPro); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the deleted product is still sold: %v", err)
		}
		if list, err := s.Products(ctx, 10); err != nil || len(list) != 1 || list[0].ID != second {
			t.Fatalf("after the delete: %+v, %v", list, err)
		}
	})
}

func TestProductForPlanIsTheNewest(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		if _, err := s.ProductForPlan(ctx, store.PlanPro); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v, want ErrNotFound", err)
		}
		for _, price := range []int64{900, 1200} {
			if _, err := s.CreateProduct(ctx, store.Product{Name: "Pro", Plan: store.PlanPro, PriceCents: price, Currency: "EUR", Interval: "month"}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.ProductForPlan(ctx, store.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.PriceCents, int64(1200); got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}
