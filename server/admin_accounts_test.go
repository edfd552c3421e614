package server_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// accountEvents are the audit events about email, newest first, as
// /boss/audit/list answers them.
func (e *env) accountEvents(email, admin string) []map[string]any {
	e.t.Helper()
	items := e.post("/boss/audit/list", map[string]int{"limit": 500}, "Cookie", admin).want(200).json()["items"].([]any)
	var out []map[string]any
	for _, it := range items {
		if ev := it.(map[string]any); ev["email"] == email {
			out = append(out, ev)
		}
	}
	return out
}

func TestAdminAccountActions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	admin := e.adminSession("boss@example.com")
	key := e.key("ann@example.com", store.PlanStarter)
	ann := e.accountOf("ann@example.com").ID
	annSession := e.login("ann@example.com")
	act := func(t *testing.T, action string, body map[string]string) response {
		return e.in(t).post("/boss/accounts/"+action, body, "Cookie", admin)
	}
	annOnly := map[string]string{"email": "ann@example.com"}

	t.Run("disable stops keys and sessions at once", func(t *testing.T) {
		e := e.in(t)
		e.post("/api/v1/user_info", nil, "X-API-Key", key).want(200) // the key is now cached
		m := act(t, "disable", annOnly).want(200).json()
		if m["status"] != "account_disabled" {
			t.Fatalf("%v", m)
		}
		e.post("/api/v1/user_info", nil, "X-API-Key", key).wantError(403, "account_disabled")
		e.post("/api/v1/base64", map[string]string{"text": "x", "option": "encode"}, "X-API-Key", key).wantError(403, "account_disabled")
		e.post("/api/regenerate", nil, "Cookie", annSession).wantError(401, "login_required")
		e.post("/login", map[string]string{"email": "ann@example.com", "password": testPassword}).wantError(403, "account_disabled")
		e.post("/api/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).wantError(403, "account_disabled")
		e.post("/login", map[string]string{"email": "ann@example.com", "password": "a wrong password"}).wantError(401, "invalid_credentials")
	})

	t.Run("enable lets the keys work again", func(t *testing.T) {
		act(t, "enable", annOnly).want(200)
		e.in(t).post("/api/v1/user_info", nil, "X-API-Key", key).want(200)
	})

	t.Run("verify", func(t *testing.T) {
		e := e.in(t)
		e.post("/register", map[string]string{"email": "pending@example.com", "password": testPassword}).want(200)
		// Its password is the registrant's: verifying it needs a new one.
		act(t, "verify", map[string]string{"email": "pending@example.com"}).wantError(400, "missing_field")
		if e.accountOf("pending@example.com").Verified {
			t.Fatal("verified with the registrant's password")
		}
	})

	t.Run("make and remove admin", func(t *testing.T) {
		e := e.in(t)
		act(t, "make_admin", annOnly).want(200)
		e.post("/boss/accounts/list", nil, "Cookie", e.login("ann@example.com")).want(200) // ann's session is an admin's now
		act(t, "remove_admin", annOnly).want(200)
		e.post("/boss/accounts/list", nil, "Cookie", e.login("ann@example.com")).wantError(403, "forbidden")
		// The last enabled administrator stays one; and no administrator
		// locks themselves out.
		byToken := func(action string) response {
			return e.post("/boss/accounts/"+action, map[string]string{"email": "boss@example.com", "confirm": "boss@example.com"}, "Authorization", "Bearer "+adminToken)
		}
		for _, action := range []string{"remove_admin", "disable", "delete"} {
			byToken(action).wantError(409, "last_admin")
			act(t, action, map[string]string{"email": "boss@example.com", "confirm": "boss@example.com"}).wantError(400, "invalid_request")
		}
	})

	t.Run("reset usage this month", func(t *testing.T) {
		e := e.in(t)
		e.fill(ann, 40)
		act(t, "reset_usage", annOnly).want(200)
		if got := e.usage(ann); got != 0 {
			t.Fatalf("usage after reset: %d", got)
		}
		e.post("/api/v1/base64", map[string]string{"text": "x", "option": "encode"}, "X-API-Key", key).want(200)
		if got := e.usage(ann); got != 1 {
			t.Fatalf("usage after one call: %d", got)
		}
	})

	t.Run("delete needs the email repeated", func(t *testing.T) {
		e := e.in(t)
		act(t, "delete", annOnly).wantError(400, "invalid_request")
		act(t, "delete", map[string]string{"email": "ann@example.com", "confirm": "bob@example.com"}).wantError(400, "invalid_request")
		act(t, "delete", map[string]string{"email": "ann@example.com", "confirm": "Ann@Example.com"}).want(200)
		e.post("/api/v1/user_info", nil, "X-API-Key", key).wantError(401, "unauthorized")
		if _, err := e.store.AccountByEmail(context.Background(), "ann@example.com"); err == nil {
			t.Fatal("still there")
		}
	})

	t.Run("an unknown email is a 404, a missing one a 400", func(t *testing.T) {
		for _, a := range []string{"verify", "make_admin", "remove_admin", "disable", "enable", "reset_usage"} {
			act(t, a, map[string]string{"email": "nobody@example.com"}).wantError(404, "account_not_found")
			act(t, a, map[string]string{}).wantError(400, "missing_field")
		}
		act(t, "delete", map[string]string{"email": "nobody@example.com", "confirm": "nobody@example.com"}).wantError(404, "account_not_found")
	})

	t.Run("every action is audited with emails", func(t *testing.T) {
		e := e.in(t)
		var kinds []string
		for _, ev := range e.accountEvents("ann@example.com", admin) {
			if detail, _ := ev["detail"].(string); detail == "by boss@example.com" {
				kinds = append(kinds, ev["kind"].(string))
			}
		}
		want := []string{"account_deleted", "usage_reset", "admin_revoked", "admin_granted", "account_enabled", "account_disabled"}
		if strings.Join(kinds, " ") != strings.Join(want, " ") {
			t.Fatalf("ann's admin events, newest first: %v, want %v", kinds, want)
		}
		// The page's audit list names accounts by email, not id.
		page := html.UnescapeString(string(e.request("GET", "/admin", nil, "Cookie", admin).want(200).body))
		if !strings.Contains(page, "<td>account_deleted</td><td>ann@example.com</td><td>by boss@example.com</td>") {
			t.Fatalf("audit table:\n%s", page[strings.Index(page, `id="audit"`):])
		}
	})

	t.Run("the admin token acts too", func(t *testing.T) {
		e := e.in(t)
		e.account("tok@example.com", store.PlanStarter)
		e.post("/boss/accounts/disable", map[string]string{"email": "tok@example.com"}, "Authorization", "Bearer "+adminToken).want(200)
		if ev := e.accountEvents("tok@example.com", admin)[0]; ev["kind"] != "account_disabled" || ev["detail"] != "by the admin token" {
			t.Fatalf("%v", ev)
		}
	})
}

func TestAdminPageAccountButtons(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withRegistration(server.RegistrationInvite))
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)

	t.Run("a button acts and the page says so", func(t *testing.T) {
		e := e.in(t)
		page := e.request("GET", "/admin", nil, "Cookie", admin).want(200)
		page.has(`action="/admin/accounts/disable"`).has(`href="/admin?delete=ann%40example.com#confirm-delete"`)
		res := e.form("/admin/accounts/disable", url.Values{"email": {"ann@example.com"}}, admin).want(http.StatusSeeOther)
		if got, want := res.location(), "/admin?done=disable"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		e.request("GET", res.location(), nil, "Cookie", admin).want(200).has("its keys and sessions stopped working").
			has(`<span class="badge">disabled</span>`).has(`action="/admin/accounts/enable"`)
		e.refused("/admin/accounts/disable", url.Values{"email": {"boss@example.com"}}, admin, "you cannot remove admin from, disable or delete your own account")
	})

	t.Run("delete asks first", func(t *testing.T) {
		e := e.in(t)
		e.request("GET", "/admin?delete=ann%40example.com", nil, "Cookie", admin).want(200).
			has(`id="confirm-delete"`).has("Delete ann@example.com?").has(`name="confirm" value="ann@example.com"`)
		e.refused("/admin/accounts/delete", url.Values{"email": {"ann@example.com"}}, admin, "must repeat the email")
		e.form("/admin/accounts/delete", url.Values{"email": {"ann@example.com"}, "confirm": {"ann@example.com"}}, admin).want(http.StatusSeeOther)
		if _, err := e.store.AccountByEmail(context.Background(), "ann@example.com"); err == nil {
			t.Fatal("not deleted")
		}
	})

	t.Run("an invite link is shown once, after the redirect", func(t *testing.T) {
		e := e.in(t)
		e.request("GET", "/admin", nil, "Cookie", admin).want(200).has(`action="/admin/invites"`)
		res := e.followAdmin(e.form("/admin/invites", url.Values{}, admin), admin).want(200).has(`id="invite-url"`)
		if got := res.header.Get("Cache-Control"); got != "no-store" {
			t.Fatalf("Cache-Control %q", got)
		}
		link := html.UnescapeString(string(res.body))
		link = link[strings.Index(link, "/register?invite=")+len("/register?invite="):]
		invite := link[:strings.IndexByte(link, '<')]
		e.post("/register", map[string]string{"email": "new@example.com", "password": testPassword, "invite": invite}).want(200)
	})
}
