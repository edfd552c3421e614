package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"secutil/store"
)

func TestAdminProductsListedChangedDeletedAndAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.form("/admin/products", url.Values{"name": {"Pro monthly"}, "plan": {"pro"}, "price_cents": {"1200"},
		"currency": {"EUR"}, "interval": {"month"}}, admin).want(http.StatusSeeOther)
	products := func() []any {
		return e.post("/boss/payments/list_products", nil, "Cookie", admin).want(200).json()["items"].([]any)
	}
	list := products()
	if len(list) != 1 {
		t.Fatalf("products %v", list)
	}
	id := list[0].(map[string]any)["id"].(float64)
	const idText = "1"
	if id != 1 {
		t.Fatalf("product id %v, want 1", id)
	}
	e.request("GET", "/admin", nil, "Cookie", admin).want(200).has(`id="products"`).
		has(`<form id="product-1" method="post" action="/admin/products/update">`).has(`value="Pro monthly"`).
		has(`action="/admin/products/delete"`).has("takes no payments")

	change := url.Values{"id": {idText}, "name": {"Pro yearly"}, "plan": {"pro"}, "price_cents": {"12000"}, "currency": {"EUR"}, "interval": {"year"}}
	res := e.form("/admin/products/update", change, admin).want(http.StatusSeeOther)
	e.followAdmin(res, admin).want(200).has("The product was saved.").has(`value="Pro yearly"`)
	if p, err := e.store.ProductForPlan(context.Background(), store.PlanPro); err != nil || p.PriceCents != 12000 || p.Interval != "year" {
		t.Fatalf("after the change: %+v, %v", p, err)
	}
	e.form("/admin/products/update", change, admin).want(http.StatusSeeOther) // the same again: nothing to record
	e.refused("/admin/products/update", url.Values{"id": {"7"}, "name": {"x"}, "plan": {"pro"}, "price_cents": {"1"}, "currency": {"EUR"}, "interval": {"year"}}, admin, "no product has the id 7")

	e.followAdmin(e.form("/admin/products/delete", url.Values{"id": {idText}}, admin), admin).want(200).has("The product was deleted").has("No products yet.")
	if n := len(products()); n != 0 {
		t.Fatalf("%d products after the delete", n)
	}
	var kinds []string
	for _, ev := range e.accountEvents("boss@example.com", admin) {
		if strings.HasPrefix(ev["kind"].(string), "product_") {
			kinds = append(kinds, ev["kind"].(string)+": "+ev["detail"].(string))
		}
	}
	want := []string{
		`product_deleted: product 1 "Pro yearly" (pro, 120.00 EUR a year), by boss@example.com`,
		`product_changed: product 1 "Pro monthly" (pro, 12.00 EUR a month) -> product 1 "Pro yearly" (pro, 120.00 EUR a year), by boss@example.com`,
		`product_created: product 1 "Pro monthly" (pro, 12.00 EUR a month), by boss@example.com`,
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Fatalf("product audit events, newest first:\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}

}

func TestAdminPageCreateProductForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	res := e.form("/admin/products", url.Values{"name": {"Pro monthly"}, "plan": {"pro"}, "price_cents": {"1200"},
		"currency": {"EUR"}, "interval": {"month"}}, admin).want(http.StatusSeeOther)
	if got, want := res.location(), "/admin?done=product_created"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.refused("/admin/products", url.Values{"name": {"Pro monthly"}, "plan": {"pro"}, "price_cents": {"0"},
		"currency": {"EUR"}, "interval": {"month"}}, admin, "price_cents")
}

func TestCreateProductValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	valid := func() map[string]any {
		return map[string]any{"name": "Pro yearly", "plan": "pro", "price_cents": 12000, "currency": "USD", "interval": "year"}
	}
	tests := []struct {
		field string
		value any
		code  string
	}{
		{"name", "", "missing_field"},
		{"name", strings.Repeat("n", 201), "invalid_request"},
		{"plan", "starter", "invalid_request"},
		{"plan", "gold", "invalid_request"},
		{"price_cents", 0, "invalid_request"},
		{"price_cents", -5, "invalid_request"},
		{"price_cents", "12", "invalid_field"},
		{"currency", "eur", "invalid_request"},
		{"currency", "EURO", "invalid_request"},
		{"currency", "", "missing_field"},
		{"interval", "week", "invalid_request"},
	}
	for _, tt := range tests {
		body := valid()
		body[tt.field] = tt.value
		m := e.post("/boss/payments/create_product", body, "Authorization", "Bearer "+adminToken).wantError(http.StatusBadRequest, tt.code)
		if !strings.Contains(m["error"].(string), `"`+tt.field+`"`) {
			t.Fatalf("%s=%v: error %q does not name the field", tt.field, tt.value, m["error"])
		}
	}
	m := e.post("/boss/payments/create_product", valid(), "Authorization", "Bearer "+adminToken).want(http.StatusOK).json()
	if m["id"] == nil || m["plan"] != "pro" || m["price_cents"] != float64(12000) {
		t.Fatalf("created product %v", m)
	}
	p, err := e.store.ProductForPlan(context.Background(), store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Interval, "year"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}
