package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"time"
)

// Product is a paid plan offered at a price; the checkout provider sells it.
type Product struct {
	ID         int64
	Name       string
	Plan       string // pro or enterprise
	PriceCents int64
	Currency   string // ISO 4217, e.g. EUR
	Interval   string // month or year
	CreatedAt  time.Time
}

// CreateProduct stores a product and returns its id. Validation is the
// caller's; the table's CHECKs are the last line.
func (s *Store) CreateProduct(ctx context.Context, p Product) (int64, error) {
	if hasNUL(p.Name, p.Plan, p.Currency, p.Interval) {
		return 0, ErrInvalidText
	}
	var id int64
	err := s.write.QueryRowContext(ctx,
		`INSERT INTO products (name, plan, price_cents, currency, interval, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		p.Name, p.Plan, p.PriceCents, p.Currency, p.Interval, unix(s.now())).Scan(&id)
	return id, wrap("create product", err)
}

const productColumns = `id, name, plan, price_cents, currency, interval, created_at`

// scanProduct scans productColumns; no row is ErrNotFound.
func scanProduct(row interface{ Scan(...any) error }) (*Product, error) {
	var p Product
	var created int64
	err := row.Scan(&p.ID, &p.Name, &p.Plan, &p.PriceCents, &p.Currency, &p.Interval, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	p.CreatedAt = time.Unix(created, 0).UTC()
	return &p, nil
}

// ProductForPlan returns the newest product of plan, or ErrNotFound.
func (s *Store) ProductForPlan(ctx context.Context, plan string) (*Product, error) {
	p, err := scanProduct(s.read.QueryRowContext(ctx,
		`SELECT `+productColumns+` FROM products WHERE plan = $1 ORDER BY id DESC LIMIT 1`, plan))
	return p, wrap("product for plan", err)
}

// Products lists every product, the newest first, at most limit.
func (s *Store) Products(ctx context.Context, limit int) ([]Product, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+productColumns+` FROM products ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, wrap("products", err)
	}
	defer rows.Close()
	var out []Product
	for rows.Next() {
		p, err := scanProduct(rows)
		if err != nil {
			return nil, wrap("products", err)
		}
		out = append(out, *p)
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
	p, err := scanProduct(s.read.QueryRowContext(ctx, `SELECT `+productColumns+` FROM products WHERE id = $1`, id))
	return p, wrap("product by id", err)
}
