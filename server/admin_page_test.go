package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

func TestAdminPageAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanPro)
	user := e.login("ann@example.com")

	res := e.request("GET", "/admin", nil).want(http.StatusSeeOther)
	if got, want := res.location(), "/login?next=%2Fadmin"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.request("GET", "/admin", nil, "Cookie", user).want(http.StatusForbidden).has("not an administrator")
	page := e.request("GET", "/admin", nil, "Cookie", admin).want(http.StatusOK)
	page.has(`id="accounts"`).has("ann@example.com").has("boss@example.com").has(`action="/admin/accounts/set_plan"`)
	if strings.Contains(string(e.request("GET", "/admin", nil, "Cookie", user).body), "ann@example.com</a>") {
		t.Fatal("the 403 page lists accounts")
	}
}

func TestAdminLinkOnlyForAdmins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	user := e.login("ann@example.com")
	for _, tc := range []struct {
		who     string
		cookie  string
		hasLink bool
	}{{"anonymous", "", false}, {"user", user, false}, {"admin", admin, true}} {
		headers := []string{}
		if tc.cookie != "" {
			headers = []string{"Cookie", tc.cookie}
		}
		for _, path := range []string{"/", "/tools"} {
			body := string(e.request("GET", path, nil, headers...).want(http.StatusOK).body)
			if got, want := strings.Contains(body, `href="/admin"`), tc.hasLink; got != want {
				t.Errorf("%s on %s: link shown %v, want %v", tc.who, path, got, want)
			}
		}
	}
}

func TestAdminPageShowsSuggestionsAndSealedIPs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	key := e.key("ann@example.com", store.PlanStarter)
	e.meteredCall(key).want(http.StatusOK)
	page := e.request("GET", "/admin", nil, "Cookie", admin).want(http.StatusOK)
	page.has("more tools please").has(store.AuditKeyIssued).has(`data-locate="`)
}

func TestAdminPagePagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	for i := range 51 {
		e.account("user"+string(rune('a'+i/26))+string(rune('a'+i%26))+"@example.com", store.PlanStarter)
	}
	first := e.request("GET", "/admin", nil, "Cookie", admin).want(http.StatusOK)
	first.has(`href="/admin?offset=50"`)
	if strings.Contains(string(first.body), "← Previous") {
		t.Fatal("the first page links to a previous one")
	}
	second := e.request("GET", "/admin?offset=50", nil, "Cookie", admin).want(http.StatusOK)
	second.has(`href="/admin?offset=0"`)
	if strings.Contains(string(second.body), "Next →") {
		t.Fatal("the last page links to a next one")
	}
	e.request("GET", "/admin?offset=-3", nil, "Cookie", admin).want(http.StatusOK)
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
	// new password typed in the same form: one field, a button each.
	pending := adminRowOf(t, page, "pending@example.com")
	form := pending[strings.Index(pending, `<form class="activate"`):]
	form = form[:strings.Index(form, "</form>")]
	if n := strings.Count(form, `name="new_password" type="password" required`); n != 1 {
		t.Errorf("the activation form of an unverified account has %d new password fields:\n%s", n, form)
	}
	for _, action := range []string{"verify", "make_admin"} {
		if !strings.Contains(form, `<button type="submit" formaction="/admin/accounts/`+action+`"`) {
			t.Errorf("the activation form has no %s button:\n%s", action, form)
		}
	}
	if n := strings.Count(pending, "new_password"); n != 1 {
		t.Errorf("the unverified account's row has %d password fields, want 1:\n%s", n, pending)
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

// TestAdminTablesShowDatesBadgesAndScroll: the admin page's tables show
// dates as dates, a disabled account's badge in a column of its own, and
// scroll sideways inside their panel on a phone.
func TestAdminTablesShowDatesBadgesAndScroll(t *testing.T) {
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

// TestAdminPageSetsAPlanFromARow: each account's row has a "Set plan"
// link to the set-plan form, which starts from the account's email, plan,
// cap and paid_until; the notice afterwards names the account and what it
// got.
func TestAdminPageSetsAPlanFromARow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	e.post("/register", map[string]string{"email": "pending@example.com", "password": testPassword}).want(200)
	page := e.request("GET", "/admin", nil, "Cookie", admin).want(200)
	for _, email := range []string{"ann@example.com", "boss@example.com", "pending@example.com"} {
		link := `href="/admin?offset=0&amp;email=` + url.QueryEscape(email) + `#set-plan" aria-label="Set the plan of ` + email + `">Set plan</a>`
		if !strings.Contains(adminRowOf(t, page, email), link) {
			t.Errorf("%s's row has no Set plan link:\n%s", email, adminRowOf(t, page, email))
		}
	}

	res := e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"enterprise"}, "usage_cap": {"500"}, "paid_until": {"2030-01-31"}}, admin)
	e.followAdmin(res, admin).want(200).
		has(`<div class="alert notice" role="status">The account ann@example.com is now on the enterprise plan, capped at 500 items a month, paid until 31 Jan 2030 23:59 UTC.</div>`)
	form := string(e.request("GET", "/admin?offset=0&email=ann%40example.com", nil, "Cookie", admin).want(200).body)
	form = form[strings.Index(form, `id="set-plan"`):]
	form = form[:strings.Index(form, "</form>")]
	for _, want := range []string{`name="email" type="email" required maxlength="254" value="ann@example.com"`, `<option value="enterprise" selected>`,
		`name="usage_cap" type="number" min="1" step="1" value="500"`, `name="paid_until" type="date" value="2030-01-31"`} {
		if !strings.Contains(form, want) {
			t.Errorf("the set-plan form for ann lacks %s:\n%s", want, form)
		}
	}
	// A reload keeps the fixed notice, which cannot name the account.
	e.request("GET", res.location(), nil, "Cookie", admin).want(200).has(`<div class="alert notice" role="status">The plan was set.</div>`)
}

// TestAdminPageRefusesAPastPaidUntil: a paid_until that has passed would
// drop the account to starter at once, without a word; the form and the
// JSON route refuse it, and say so.
func TestAdminPageRefusesAPastPaidUntil(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	e.refused("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "paid_until": {yesterday}}, admin,
		`Field "paid_until" is in the past`)
	msg := e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "pro", "paid_until": "2020-01-01T00:00:00Z"},
		"Authorization", "Bearer "+adminToken).wantError(400, "invalid_request")["error"].(string)
	if !strings.Contains(msg, `"paid_until" is in the past (1 Jan 2020 00:00 UTC)`) {
		t.Fatalf("the JSON refusal: %q", msg)
	}
	if a := e.accountOf("ann@example.com"); a.Plan != store.PlanStarter || a.PaidUntil != nil {
		t.Fatalf("after the refusals: %+v", a)
	}
	if changes := e.planChanges(); len(changes) != 0 {
		t.Fatalf("the refusals were recorded: %+v", changes)
	}
	// Today is still to come until its end, UTC.
	today := time.Now().UTC().Format(time.DateOnly)
	e.followAdmin(e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "paid_until": {today}}, admin), admin).
		want(200).has("The account ann@example.com is now on the pro plan, paid until")
}

// TestAdminPageSaysWhoMayRegister: on a server without invites the admin
// page says who may register and how to change it; with invites, its
// invites panel does.
func TestAdminPageSaysWhoMayRegister(t *testing.T) {
	t.Parallel()
	for policy, want := range map[string][]string{
		server.RegistrationOpen:   {"Anyone who reaches this server can create an account", "<code>-registration invite</code>", "<code>-registration closed</code> stops registration"},
		server.RegistrationClosed: {"Nobody can create an account", "<code>secutil user add</code>", "<code>-registration invite</code>", "<code>-registration open</code> lets anyone register"},
		server.RegistrationInvite: {`id="create-invite"`},
	} {
		e := newEnv(t, withRegistration(policy))
		page := e.request("GET", "/admin", nil, "Cookie", e.adminSession("boss@example.com")).want(200)
		for _, w := range want {
			page.has(w)
		}
		if shown := strings.Contains(string(page.body), `id="registration"`); shown == (policy == server.RegistrationInvite) {
			t.Errorf("-registration %s: the registration panel shown: %v", policy, shown)
		}
	}
}
