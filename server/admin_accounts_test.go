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

func TestAdminPageSetPlanForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.adminSession("boss@example.com")
	e.account("ann@example.com", store.PlanStarter)
	user := e.login("ann@example.com")

	t.Run("sets plan, cap and the end of the paid day", func(t *testing.T) {
		e := e.in(t)
		res := e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"enterprise"},
			"usage_cap": {"500"}, "paid_until": {"2030-01-31"}}, admin).want(http.StatusSeeOther)
		if got, want := res.location(), "/admin?done=plan_set"; got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
		a, err := e.store.AccountByEmail(context.Background(), "ann@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if a.Plan != store.PlanEnterprise || a.UsageCap == nil || *a.UsageCap != 500 || a.PaidUntil == nil ||
			a.PaidUntil.UTC().Format("2006-01-02T15:04:05") != "2030-01-31T23:59:59" {
			t.Fatalf("after the form: plan %s cap %v paid until %v", a.Plan, a.UsageCap, a.PaidUntil)
		}
		if changes := e.planChanges(); len(changes) != 1 {
			t.Fatalf("plan_changed audit events %+v", changes)
		}
		e.request("GET", res.location(), nil, "Cookie", admin).want(http.StatusOK).has("The plan was set.").has("paid until 31 Jan 2030 23:59 UTC")
	})

	t.Run("empty optional fields are left out", func(t *testing.T) {
		e := e.in(t)
		e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"},
			"usage_cap": {""}, "paid_until": {""}}, admin).want(http.StatusSeeOther)
		if a := e.accountOf("ann@example.com"); a.Plan != store.PlanPro || a.UsageCap != nil || a.PaidUntil != nil {
			t.Fatalf("after the form: plan %s cap %v paid until %v", a.Plan, a.UsageCap, a.PaidUntil)
		}
	})

	// Refusals redirect back to the page, which shows the message once.
	for _, tc := range []struct {
		name string
		form url.Values
		msg  string
	}{
		{"cap on pro", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "usage_cap": {"10"}}, "only to the enterprise plan"},
		{"cap not a number", url.Values{"email": {"ann@example.com"}, "plan": {"enterprise"}, "usage_cap": {"ten"}}, "whole number"},
		{"date not a date", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}, "paid_until": {"soon"}}, "a date like"},
		{"unknown email", url.Values{"email": {"nobody@example.com"}, "plan": {"pro"}}, "No account has the email"},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			e.in(t).refused("/admin/accounts/set_plan", tc.form, admin, tc.msg)
		})
	}

	t.Run("needs an admin", func(t *testing.T) {
		e := e.in(t)
		e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}}, user).want(http.StatusForbidden)
		e.form("/admin/accounts/set_plan", url.Values{"email": {"ann@example.com"}, "plan": {"pro"}}, "").want(http.StatusUnauthorized)
	})
}

func TestAdminListAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key := e.key("ann@example.com", store.PlanStarter)
	e.account("bob@example.com", store.PlanPro)
	e.meteredCall(key).want(http.StatusOK)

	res := e.post("/boss/accounts/list", nil, bearer...).want(http.StatusOK).json()
	items := res["items"].([]any)
	if len(items) != 2 || res["limit"] != float64(50) || res["offset"] != float64(0) {
		t.Fatalf("default page %v", res)
	}
	ann := items[0].(map[string]any)
	for field, want := range map[string]any{"email": "ann@example.com", "plan": "starter", "effective_plan": "starter",
		"api_usage": float64(1), "max_usage_for_plan": float64(100), "paid_until": nil, "admin": false, "verified": true} {
		if ann[field] != want {
			t.Fatalf("%s = %v, want %v (in %v)", field, ann[field], want, ann)
		}
	}
	if _, ok := ann["created_at"].(string); !ok {
		t.Fatalf("no created_at in %v", ann)
	}
	second := e.post("/boss/accounts/list", map[string]any{"limit": 1, "offset": 1}, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(second) != 1 || second[0].(map[string]any)["email"] != "bob@example.com" {
		t.Fatalf("second page %v", second)
	}
	for _, bad := range []map[string]any{{"limit": 0}, {"limit": 501}, {"offset": -1}} {
		e.post("/boss/accounts/list", bad, bearer...).wantError(http.StatusBadRequest, "invalid_request")
	}
	empty := e.post("/boss/accounts/list", map[string]any{"offset": 10}, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(empty) != 0 {
		t.Fatalf("page past the end %v", empty)
	}
}

func TestAdminSetPlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key := e.key("ann@example.com", store.PlanStarter)

	e.post("/boss/accounts/set_plan", map[string]any{"plan": "pro"}, bearer...).wantError(http.StatusBadRequest, "missing_field")
	e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com"}, bearer...).wantError(http.StatusBadRequest, "missing_field")
	for _, bad := range []map[string]any{
		{"email": "ann@example.com", "plan": "gold"},
		{"email": "ann@example.com", "plan": "pro", "usage_cap": 10},
		{"email": "ann@example.com", "plan": "enterprise", "usage_cap": 0},
		{"email": "ann@example.com", "plan": "starter", "paid_until": "2030-01-01T00:00:00Z"},
		{"email": "ann@example.com", "plan": "pro", "paid_until": "soon"},
	} {
		e.post("/boss/accounts/set_plan", bad, bearer...).wantError(http.StatusBadRequest, "invalid_request")
	}
	e.post("/boss/accounts/set_plan", map[string]any{"email": "nobody@example.com", "plan": "pro"}, bearer...).wantError(http.StatusNotFound, "account_not_found")

	m := e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "enterprise", "usage_cap": 500, "paid_until": "2030-01-01T00:00:00Z"}, bearer...).
		want(http.StatusOK).json()
	if m["plan"] != "enterprise" || m["usage_cap"] != float64(500) || m["paid_until"] != "2030-01-01T00:00:00Z" {
		t.Fatalf("set_plan answered %v", m)
	}
	info := e.post("/api/user_info", nil, "X-API-Key", key).want(http.StatusOK).json()
	if info["plan"] != "enterprise" || info["max_usage_for_plan"] != float64(500) {
		t.Fatalf("user_info after set_plan: %v", info)
	}
	changes := e.planChanges()
	if len(changes) != 1 || !strings.Contains(changes[0].Detail, "starter -> enterprise") {
		t.Fatalf("plan_changed audit events %+v", changes)
	}
}
