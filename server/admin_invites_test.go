package server_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// followAdmin sends the GET a form's 303 asks for, with the session and
// the admin_flash cookie the answer set, as a browser does.
func (e *env) followAdmin(res response, session string) response {
	e.t.Helper()
	res.want(http.StatusSeeOther)
	if !strings.HasPrefix(res.location(), "/admin") {
		e.t.Fatalf("redirect to %q, want the admin page", res.location())
	}
	req := httptest.NewRequest(http.MethodGet, res.location(), nil)
	req.RemoteAddr = "192.0.2.1:1234"
	req.AddCookie(&http.Cookie{Name: "auth_session", Value: session})
	if c := res.cookie("admin_flash"); c != nil && c.MaxAge > 0 {
		if c.Path != "/admin" || !c.HttpOnly {
			e.t.Fatalf("admin_flash cookie %+v: want an HttpOnly cookie for /admin", c)
		}
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// refused posts an admin form that must fail: the answer redirects back
// to the admin page (POST/redirect/GET), which shows msg.
func (e *env) refused(path string, form url.Values, session, msg string) response {
	e.t.Helper()
	res := e.form(path, form, session).want(http.StatusSeeOther)
	if got := res.location(); got != "/admin" {
		e.t.Fatalf("a refused form redirects to %q, want /admin", got)
	}
	page := e.followAdmin(res, session).want(http.StatusOK).has(`id="accounts"`).has(`class="alert error"`)
	if shown := strings.ToLower(html.UnescapeString(string(page.body))); !strings.Contains(shown, strings.ToLower(msg)) {
		e.t.Fatalf("the page after a refused form does not say %q:\n%s", msg, page.body)
	}
	return page
}

// detailsOf is the details of the audit events of kind among events.
func detailsOf(events []map[string]any, kind string) []string {
	var out []string
	for _, ev := range events {
		if ev["kind"] == kind {
			out = append(out, ev["detail"].(string))
		}
	}
	return out
}

// adminRowOf is the accounts table's row of email on the page.
func adminRowOf(t *testing.T, page response, email string) string {
	t.Helper()
	body := string(page.body)
	start := strings.Index(body, `title="Set this account's plan">`+email+`</a>`)
	if start < 0 {
		t.Fatalf("no row for %s", email)
	}
	return body[start : start+strings.Index(body[start:], "</tr>")]
}

func TestAdminFormRefusalRedirectsWithTheMessageOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	other := e.adminSession("second@example.com")

	res := e.form("/admin/accounts/set_plan", url.Values{"email": {"nobody@example.com"}, "plan": {"pro"}}, admin).want(http.StatusSeeOther)
	page := e.followAdmin(res, admin).want(http.StatusOK).has("No account has the email")
	if c := page.cookie("admin_flash"); c == nil || c.MaxAge >= 0 {
		t.Fatalf("the page leaves the flash cookie %+v: a reload would show the message again", c)
	}
	if strings.Contains(string(e.request("GET", "/admin", nil, "Cookie", admin).want(200).body), "No account has the email") {
		t.Fatal("a reload shows the message again")
	}
	// The cookie is the account's: another administrator's page does not
	// show it, nor does an altered one.
	flash := res.cookie("admin_flash")
	for name, value := range map[string]string{"another admin": flash.Value, "altered": flash.Value[:len(flash.Value)-2] + "AA"} {
		req := httptest.NewRequest(http.MethodGet, "/admin", nil)
		req.AddCookie(&http.Cookie{Name: "auth_session", Value: map[string]string{"another admin": other, "altered": admin}[name]})
		req.AddCookie(&http.Cookie{Name: "admin_flash", Value: value})
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if rec.Code != 200 || strings.Contains(rec.Body.String(), "No account has the email") {
			t.Errorf("%s: status %d, message shown %v", name, rec.Code, strings.Contains(rec.Body.String(), "No account has the email"))
		}
	}
}

func TestAdminInvitesListedRevokedAndMintedOncePerPost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken, withRegistration(server.RegistrationInvite))
	admin := e.adminSession("boss@example.com")
	token := []string{"Authorization", "Bearer " + adminToken}
	live := func() []any {
		return e.post("/boss/invites/list", nil, token...).want(200).json()["items"].([]any)
	}

	res := e.form("/admin/invites", url.Values{}, admin).want(http.StatusSeeOther)
	if got, want := res.location(), "/admin?done=invite_created"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	page := e.followAdmin(res, admin).want(200).has(`id="invite-url"`).has(`data-copy="invite-url"`).has("Copy it now")
	// Reloading the page shows the link no more and mints no invite.
	reload := e.request("GET", res.location(), nil, "Cookie", admin).want(200)
	if strings.Contains(string(reload.body), `id="invite-url"`) {
		t.Fatal("a reload shows the invite link again")
	}
	if n := len(live()); n != 1 {
		t.Fatalf("%d live invites after one POST and two GETs, want 1", n)
	}

	// The page lists it with its expiry as a date and its creator.
	table := string(page.body)
	table = table[strings.Index(table, `id="invites"`):]
	table = table[:strings.Index(table, "</table>")]
	if !regexp.MustCompile(`<td>\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d UTC</td>`).MatchString(table) || strings.Contains(table, "T") && regexp.MustCompile(`\d{4}-\d\d-\d\dT`).MatchString(table) {
		t.Fatalf("the invite's expiry is not shown as a date:\n%s", table)
	}
	if !strings.Contains(table, "<td>boss@example.com</td>") || !strings.Contains(table, `action="/admin/invites/revoke"`) {
		t.Fatalf("the invites table does not name the creator or offer revoke:\n%s", table)
	}
	if strings.Contains(string(page.body), "T0") && regexp.MustCompile(`works until \d{4}-\d\d-\d\dT`).Match(page.body) {
		t.Fatal("the new link's expiry is shown in RFC 3339")
	}

	// JSON: listed with its creator; revoked; then gone.
	item := live()[0].(map[string]any)
	if item["created_by"] != "boss@example.com" || item["pending"] != float64(0) {
		t.Fatalf("invite %v", item)
	}
	link := html.UnescapeString(string(page.body))
	link = link[strings.Index(link, "/register?invite=")+len("/register?invite="):]
	invite := link[:strings.IndexByte(link, '<')]
	e.post("/boss/invites/revoke", map[string]any{"id": item["id"]}, token...).want(200)
	if n := len(live()); n != 0 {
		t.Fatalf("%d live invites after the revoke", n)
	}
	e.post("/register", map[string]string{"email": "new@example.com", "password": testPassword, "invite": invite}).wantError(403, "invalid_invite")
	e.post("/boss/invites/revoke", map[string]any{"id": item["id"]}, token...).wantError(404, "invite_not_found")
	e.post("/boss/invites/revoke", map[string]any{"id": "not hex"}, token...).wantError(404, "invite_not_found")
	e.post("/boss/invites/revoke", map[string]any{}, token...).wantError(400, "missing_field")

	// The page's revoke button.
	e.followAdmin(e.form("/admin/invites", url.Values{}, admin), admin).want(200)
	id := live()[0].(map[string]any)["id"].(string)
	res = e.form("/admin/invites/revoke", url.Values{"id": {id}}, admin).want(http.StatusSeeOther)
	e.followAdmin(res, admin).want(200).has("The invite was revoked").has("No live invites.")
	e.refused("/admin/invites/revoke", url.Values{"id": {id}}, admin, "no live invite has the id")
	var all []map[string]any
	for _, ev := range e.post("/boss/audit/list", map[string]int{"limit": 500}, token...).want(200).json()["items"].([]any) {
		all = append(all, ev.(map[string]any))
	}
	revoked := detailsOf(all, "invite_revoked")
	if len(revoked) != 2 || !strings.HasSuffix(revoked[0], ", by boss@example.com") || !strings.HasSuffix(revoked[1], ", by the admin token") {
		t.Fatalf("invite_revoked events, newest first: %q", revoked)
	}
}

func TestAdminPageOffersOnlyActionsThatCanSucceed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	e.post("/register", map[string]string{"email": "pending@example.com", "password": testPassword}).want(200)
	lockouts := []string{`action="/admin/accounts/remove_admin"`, `action="/admin/accounts/disable"`, `href="/admin?delete=`}

	page := e.request("GET", "/admin", nil, "Cookie", admin).want(200)
	boss := adminRowOf(t, page, "boss@example.com")
	for _, action := range lockouts {
		if strings.Contains(boss, action) {
			t.Errorf("the last administrator's own row offers %s:\n%s", action, boss)
		}
	}
	if ann := adminRowOf(t, page, "ann@example.com"); !strings.Contains(ann, `action="/admin/accounts/disable"`) || !strings.Contains(ann, `class="button danger small" href="/admin?delete=ann%40example.com#confirm-delete"`) {
		t.Errorf("ann's row lacks disable or a red delete:\n%s", ann)
	}
	// An unverified account is verified, or made an administrator, with a
	// new password typed in the same form.
	pending := adminRowOf(t, page, "pending@example.com")
	for _, action := range []string{"verify", "make_admin"} {
		form := pending[strings.Index(pending, `action="/admin/accounts/`+action+`"`):]
		form = form[:strings.Index(form, "</form>")]
		if !strings.Contains(form, `name="new_password" type="password" required`) {
			t.Errorf("the %s form of an unverified account has no new password field:\n%s", action, form)
		}
	}
	if ann := adminRowOf(t, page, "ann@example.com"); strings.Contains(ann, "new_password") {
		t.Errorf("a verified account's row asks for a password:\n%s", ann)
	}
	if strings.Contains(string(e.request("GET", "/admin?delete=boss%40example.com", nil, "Cookie", admin).body), `id="confirm-delete"`) {
		t.Error("the page asks to confirm deleting the last administrator")
	}

	// With a second administrator, that one can be demoted or deleted;
	// one's own row still offers none of it.
	e.adminSession("second@example.com")
	page = e.request("GET", "/admin", nil, "Cookie", admin).want(200)
	second := adminRowOf(t, page, "second@example.com")
	for _, action := range lockouts {
		if !strings.Contains(second, action) {
			t.Errorf("the second administrator's row lacks %s", action)
		}
		if strings.Contains(adminRowOf(t, page, "boss@example.com"), action) {
			t.Errorf("one's own row offers %s", action)
		}
	}
	e.refused("/admin/accounts/disable", url.Values{"email": {"boss@example.com"}}, admin, "your own account")
}

func TestAdminActivatesAnUnverifiedAccountWithANewPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.post("/register", map[string]string{"email": "pending@example.com", "password": testPassword}).want(200)
	const chosen = "a new password the operator chose"

	e.refused("/admin/accounts/make_admin", url.Values{"email": {"pending@example.com"}}, admin, `field "new_password" is required`)
	e.refused("/admin/accounts/make_admin", url.Values{"email": {"pending@example.com"}, "new_password": {"passwordpassword"}}, admin, "common")
	if a := e.accountOf("pending@example.com"); a.Admin || a.Verified {
		t.Fatalf("refused forms changed the account: %+v", a)
	}
	res := e.form("/admin/accounts/make_admin", url.Values{"email": {"pending@example.com"}, "new_password": {chosen}}, admin).want(http.StatusSeeOther)
	if got, want := res.location(), "/admin?done=make_admin"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if a := e.accountOf("pending@example.com"); !a.Admin || !a.Verified {
		t.Fatalf("after the form: admin %v verified %v", a.Admin, a.Verified)
	}
	e.post("/login", map[string]string{"email": "pending@example.com", "password": testPassword}).wantError(401, "invalid_credentials")
	e.post("/login", map[string]string{"email": "pending@example.com", "password": chosen}).want(200)
	// A password on any other action is refused, not ignored.
	e.post("/boss/accounts/disable", map[string]string{"email": "pending@example.com", "new_password": chosen}, "Cookie", admin).wantError(400, "invalid_request")
}

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

func TestAdminNoOpIsNotAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	for range 2 {
		e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "pro"}, "Cookie", admin).want(200)
	}
	if changes := e.planChanges(); len(changes) != 1 {
		t.Fatalf("%d plan_changed events for setting pro twice, want 1", len(changes))
	}
	if m := e.post("/boss/accounts/disable", map[string]string{"email": "ann@example.com"}, "Cookie", admin).want(200).json(); m["status"] != "account_disabled" {
		t.Fatalf("%v", m)
	}
	if m := e.post("/boss/accounts/disable", map[string]string{"email": "ann@example.com"}, "Cookie", admin).want(200).json(); m["status"] != "unchanged" {
		t.Fatalf("disabling a disabled account: %v, want status unchanged", m)
	}
	if disabled := detailsOf(e.accountEvents("ann@example.com", admin), "account_disabled"); len(disabled) != 1 {
		t.Fatalf("account_disabled events %q, want 1", disabled)
	}
}

func TestAdminTablesPolish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "paid_until": {"2030-01-31"}}, admin).want(http.StatusSeeOther)
	e.form("/admin/accounts/disable", url.Values{"email": {"ann@example.com"}}, admin).want(http.StatusSeeOther)
	page := e.request("GET", "/admin", nil, "Cookie", admin).want(200)
	body := string(page.body)

	ann := adminRowOf(t, page, "ann@example.com")
	if !strings.Contains(ann, "<td>31 Jan 2030</td>") || strings.Contains(ann, "2030-01-31T") {
		t.Errorf("paid_until is not shown as a date:\n%s", ann)
	}
	// The badge has a cell of its own, after the admin column's.
	if !strings.Contains(ann, "<td></td>\n      <td><span class=\"badge\">disabled</span></td>") {
		t.Errorf("the disabled badge is not in its own column:\n%s", ann)
	}
	if !strings.Contains(body, `<th scope="col">Status</th>`) {
		t.Error("no Status column")
	}
	// Every admin table scrolls sideways inside its panel on a phone.
	if n, scrolled := strings.Count(body, "<table"), strings.Count(body, `<div class="table-scroll"><table`); n == 0 || n != scrolled {
		t.Errorf("%d tables, %d in a scroll container", n, scrolled)
	}
	// Audit times are dates, not RFC 3339.
	audit := body[strings.Index(body, `id="audit"`):]
	for _, when := range regexp.MustCompile(`<tr>\s*<td>([^<]*)</td>`).FindAllStringSubmatch(audit, -1) {
		if !regexp.MustCompile(`^\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d UTC$`).MatchString(when[1]) {
			t.Errorf("an audit time reads %q, not a date", when[1])
		}
	}
}

func TestAdminPageConfirmsADeleteOnAnyPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	for i := range 60 {
		e.account(fmt.Sprintf("user%02d@example.com", i), store.PlanStarter)
	}
	// user59 is on the second page of accounts; its delete link still asks.
	e.request("GET", "/admin?delete=user59%40example.com", nil, "Cookie", admin).want(200).
		has(`id="confirm-delete"`).has(`name="confirm" value="user59@example.com"`)
}
