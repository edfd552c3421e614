package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"secutil/server/account"
	"secutil/store"
)

// Products, what a checkout sells: POST /boss/payments/create_product,
// list_products, update_product, delete_product, and the admin page's forms
// for them.

// currencyPattern is compiled on first use, not at start.
var currencyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z]{3}$`) })

// maxProductNameChars bounds a product name.
const maxProductNameChars = 200

type productRequest struct {
	Name       string `json:"name"`
	Plan       string `json:"plan"`
	PriceCents int64  `json:"price_cents" required:"true"`
	Currency   string `json:"currency"`
	Interval   string `json:"interval"`
}

func (p *productRequest) check() error {
	p.Name = strings.TrimSpace(p.Name)
	for _, f := range [][2]string{{"name", p.Name}, {"plan", p.Plan}, {"currency", p.Currency}, {"interval", p.Interval}} {
		if err := required(f[0], f[1]); err != nil {
			return err
		}
	}
	if len(p.Name) > maxProductNameChars {
		return badRequest("field \"name\" must be at most %d bytes", maxProductNameChars)
	}
	if err := account.CheckPaidPlan("plan", p.Plan); err != nil {
		return ruleError(err)
	}
	switch {
	case p.PriceCents <= 0:
		return badRequest("field \"price_cents\" must be a whole number of cents above 0")
	case !currencyPattern().MatchString(p.Currency):
		return badRequest("field \"currency\" must be an ISO 4217 code of 3 upper-case letters, like EUR")
	case p.Interval != "month" && p.Interval != "year":
		return badRequest("field \"interval\" must be month or year")
	}
	return nil
}

type productResponse struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Plan       string `json:"plan"`
	PriceCents int64  `json:"price_cents"`
	Currency   string `json:"currency"`
	Interval   string `json:"interval"`
}

func toProductResponse(p store.Product) productResponse {
	return productResponse{ID: p.ID, Name: p.Name, Plan: p.Plan, PriceCents: p.PriceCents, Currency: p.Currency, Interval: p.Interval}
}

// product is the store's product of req, with the id given.
func (p productRequest) product(id int64) store.Product {
	return store.Product{ID: id, Name: p.Name, Plan: p.Plan, PriceCents: p.PriceCents, Currency: p.Currency, Interval: p.Interval}
}

// productLine is how the audit log names a product.
func productLine(p store.Product) string {
	return fmt.Sprintf("product %d %q (%s, %s)", p.ID, p.Name, p.Plan, price(&p))
}

// createProduct adds a product a checkout can sell, and records it.
func (s *Server) createProduct(ctx context.Context, req productRequest) (productResponse, error) {
	id, err := s.Store.CreateProduct(ctx, req.product(0))
	if err != nil {
		return productResponse{}, err
	}
	s.adminAudit(ctx, store.AuditProductCreated, productLine(req.product(id)))
	return toProductResponse(req.product(id)), nil
}

// listProducts lists every product, the newest first: a checkout sells the
// newest of each plan.
func (s *Server) listProducts(ctx context.Context, _ noRequest) (itemsResponse[productResponse], error) {
	list, err := s.Store.Products(ctx, maxListedItems)
	if err != nil {
		return itemsResponse[productResponse]{}, err
	}
	out := make([]productResponse, 0, len(list))
	for _, p := range list {
		out = append(out, toProductResponse(p))
	}
	return itemsResponse[productResponse]{Items: out}, nil
}

// productChange names a product and gives all its new fields.
type productChange struct {
	ID int64 `json:"id" required:"true"`
	productRequest
}

func (p *productChange) check() error {
	if p.ID <= 0 {
		return badRequest("field \"id\" must be a product's id")
	}
	return p.productRequest.check()
}

type productIDRequest struct {
	ID int64 `json:"id" required:"true"`
}

func (s *Server) productByID(ctx context.Context, id int64) (*store.Product, error) {
	p, err := s.Store.ProductByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, newError(codeProductNotFound, "no product has the id %d", id)
	}
	return p, err
}

// updateProduct changes a product's fields; a change that changes nothing
// is not recorded.
func (s *Server) updateProduct(ctx context.Context, req productChange) (productResponse, error) {
	old, err := s.productByID(ctx, req.ID)
	if err != nil {
		return productResponse{}, err
	}
	changed := req.product(req.ID)
	changed.CreatedAt = old.CreatedAt
	if changed == *old {
		return toProductResponse(changed), nil
	}
	if err := s.Store.UpdateProduct(ctx, changed); errors.Is(err, store.ErrNotFound) {
		return productResponse{}, newError(codeProductNotFound, "no product has the id %d", req.ID)
	} else if err != nil {
		return productResponse{}, err
	}
	s.adminAudit(ctx, store.AuditProductChanged, productLine(*old)+" -> "+productLine(changed))
	return toProductResponse(changed), nil
}

// deleteProduct deletes a product: checkouts stop selling it.
func (s *Server) deleteProduct(ctx context.Context, req productIDRequest) (statusResponse, error) {
	p, err := s.productByID(ctx, req.ID)
	if err != nil {
		return statusResponse{}, err
	}
	if err := s.Store.DeleteProduct(ctx, req.ID); errors.Is(err, store.ErrNotFound) {
		return statusResponse{}, newError(codeProductNotFound, "no product has the id %d", req.ID)
	} else if err != nil {
		return statusResponse{}, err
	}
	s.adminAudit(ctx, store.AuditProductDeleted, productLine(*p))
	return statusResponse{Status: store.AuditProductDeleted, Message: fmt.Sprintf("Product %d was deleted.", p.ID)}, nil
}

// productForm reads the admin page's new-product form.
func productForm(form url.Values) (productRequest, error) {
	req := productRequest{Name: formText(form, "name"), Plan: formText(form, "plan"),
		Currency: formText(form, "currency"), Interval: formText(form, "interval")}
	price, err := formNumber(form, "price_cents")
	if price != nil {
		req.PriceCents = *price
	}
	return req, err
}

// productIDForm reads the delete button of a product.
func productIDForm(form url.Values) (productIDRequest, error) {
	id, err := formNumber(form, "id")
	if err != nil {
		return productIDRequest{}, err
	}
	if id == nil {
		return productIDRequest{}, missingField("id")
	}
	return productIDRequest{ID: *id}, nil
}

// productChangeForm reads the edit form of a product.
func productChangeForm(form url.Values) (productChange, error) {
	id, err := productIDForm(form)
	if err != nil {
		return productChange{}, err
	}
	product, err := productForm(form)
	return productChange{ID: id.ID, productRequest: product}, err
}
