package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"time"
)

// Kinds of audit event of what an administrator manages on the admin
// page besides accounts: products and invites.
const (
	AuditProductCreated = "product_created"
	AuditProductChanged = "product_changed"
	AuditProductDeleted = "product_deleted"
	AuditInviteRevoked  = "invite_revoked"
)

// Products lists every product, the newest first, at most limit.
func (s *Store) Products(ctx context.Context, limit int) ([]Product, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, name, plan, price_cents, currency, interval, created_at FROM products ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, wrap("products", err)
	}
	defer rows.Close()
	var out []Product
	for rows.Next() {
		var p Product
		var created int64
		if err := rows.Scan(&p.ID, &p.Name, &p.Plan, &p.PriceCents, &p.Currency, &p.Interval, &created); err != nil {
			return nil, wrap("products", err)
		}
		p.CreatedAt = time.Unix(created, 0).UTC()
		out = append(out, p)
	}
	return out, wrap("products", rows.Err())
}

// UpdateProduct replaces the name, plan, price, currency and interval of
// the product p.ID; its id and creation time stay, so a checkout under way
// sells the new price. Validation is the caller's. An unknown id is
// ErrNotFound.
func (s *Store) UpdateProduct(ctx context.Context, p Product) error {
	if hasNUL(p.Name, p.Plan, p.Currency, p.Interval) {
		return ErrInvalidText
	}
	res, err := s.write.ExecContext(ctx,
		`UPDATE products SET name = $1, plan = $2, price_cents = $3, currency = $4, interval = $5 WHERE id = $6`,
		p.Name, p.Plan, p.PriceCents, p.Currency, p.Interval, p.ID)
	if err != nil {
		return wrap("update product", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return wrap("update product", cmp.Or(err, ErrNotFound))
	}
	return nil
}

// DeleteProduct deletes the product id: a checkout no longer sells it
// (ProductForPlan falls back to an older product of its plan, if any).
// Payments already made keep their plans. An unknown id is ErrNotFound.
func (s *Store) DeleteProduct(ctx context.Context, id int64) error {
	n, err := s.deleteWhere(ctx, "delete product", `DELETE FROM products WHERE id = $1`, id)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// ProductByID returns the product id, or ErrNotFound.
func (s *Store) ProductByID(ctx context.Context, id int64) (*Product, error) {
	var p Product
	var created int64
	err := s.read.QueryRowContext(ctx,
		`SELECT id, name, plan, price_cents, currency, interval, created_at FROM products WHERE id = $1`, id).
		Scan(&p.ID, &p.Name, &p.Plan, &p.PriceCents, &p.Currency, &p.Interval, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, wrap("product by id", err)
	}
	p.CreatedAt = time.Unix(created, 0).UTC()
	return &p, nil
}
