package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

const newTestPassword = "orbit walnut glacier trumpet"

// TestAccountPageForms: the Account page is linked from the dashboard and
// serves its forms to a browser: success goes back to it with a notice, a
// refusal shows it again with the message at its status.
func TestAccountPageForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	session := e.sessionCookie("ann@example.com")

	if got := e.browse("GET", "/account", nil).want(303).location(); got != "/login?next=%2Faccount" {
		t.Fatalf("without a session: %s", got)
	}
	if got := e.browse("POST", "/account/password", url.Values{"current_password": {testPassword}}).want(303).location(); got != "/login?next=%2Faccount" {
		t.Fatalf("a form post without a session: %s", got)
	}
	e.browse("GET", "/dashboard", nil, session).want(200).has(`href="/account"`)
	e.browse("GET", "/account", nil, session).want(200).
		has(`action="/account/password"`).has(`name="revoke_keys"`).has(`href="/account?confirm=delete#confirm-delete"`)
	if strings.Contains(string(e.browse("GET", "/account", nil, session).body), `action="/account/delete"`) {
		t.Fatal("the deletion form is offered before it is asked for")
	}
	e.browse("GET", "/account?confirm=delete", nil, session).want(200).has(`action="/account/delete"`)

	e.browse("POST", "/account/password", url.Values{"current_password": {"wrong password"}, "new_password": {newTestPassword}}, session).
		want(401).has(`<div class="alert error" role="alert">The current password is wrong`).has(`id="change-password"`)
	res := e.browse("POST", "/account/password", url.Values{"current_password": {testPassword}, "new_password": {newTestPassword}}, session).want(303)
	if got := res.location(); got != "/account?notice=own_password_changed" {
		t.Fatalf("after the change: %s", got)
	}
	session = res.cookie("auth_session") // the change replaced the session
	e.browse("GET", res.location(), nil, session).want(200).has("Your password was changed: every other session was logged out, your API keys still work.")

	e.browse("POST", "/account/delete", url.Values{"password": {"wrong password"}}, session).want(401).has("The current password is wrong")
	res = e.browse("POST", "/account/delete", url.Values{"password": {newTestPassword}}, session).want(303)
	if got := res.location(); got != "/?notice=account_deleted" {
		t.Fatalf("after deleting: %s", got)
	}
	if c := res.cookie("auth_session"); c == nil || c.MaxAge >= 0 {
		t.Fatalf("the session cookie is not cleared: %v", c)
	}
	e.browse("GET", "/?notice=account_deleted", nil).want(200).has("Your account was deleted and you are logged out.")
	e.browse("GET", "/docs/privacy", nil).want(200).has(`id="deletion"`).has("monthly counts of calls stay for the operator")
}

// TestOwnAccountDeletion: a user deletes their account with its password:
// keys, sessions and pending codes go, the monthly usage stays for the
// operator; the last administrator cannot.
func TestOwnAccountDeletion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("ann@example.com", store.PlanStarter)
	key := e.post("/api/v1/get_api_key", map[string]string{"email": "ann@example.com", "password": testPassword}).want(200).json()["api_key"].(string)
	session := e.login("ann@example.com")
	e.fill(id, 3)
	e.post("/account/delete", map[string]string{"password": testPassword}).wantError(401, "login_required")
	e.post("/account/delete", map[string]string{}, "Cookie", session).wantError(400, "missing_field")
	e.post("/account/delete", map[string]string{"password": "wrong password"}, "Cookie", session).wantError(401, "invalid_credentials")
	e.post("/account/delete", map[string]string{"password": testPassword}, "Cookie", session, "Sec-Fetch-Site", "cross-site").wantError(403, "cross_origin_request")
	e.post("/api/v1/user_info", nil, "X-API-Key", key).want(200)

	res := e.post("/account/delete", map[string]string{"password": testPassword}, "Cookie", session).want(200)
	if got := res.json()["status"]; got != "deleted" {
		t.Fatalf("status %v", got)
	}
	if _, err := e.store.AccountByEmail(context.Background(), "ann@example.com"); err == nil {
		t.Fatal("the account is still there")
	}
	e.post("/api/v1/user_info", nil, "X-API-Key", key).wantError(401, "unauthorized")
	e.post("/api/v1/regenerate", nil, "Cookie", session).wantError(401, "login_required")
	kept, err := e.store.DeletedUsages(context.Background(), 10)
	if err != nil || len(kept) != 1 || kept[0].Count != 3 {
		t.Fatalf("kept usage %+v, %v", kept, err)
	}

	boss := e.adminSession("boss@example.com")
	e.post("/account/delete", map[string]string{"password": testPassword}, "Cookie", boss).wantError(409, "last_admin")
	e.post("/api/v1/regenerate", nil, "Cookie", boss).want(200)
}

// TestRacingDeletionsAnswerNoServerError: 20 deletions of one account at
// once answered 500 for most but the first (15 of 20). One deletes it;
// the others find it gone: 401 for the owner's session (the account's
// sessions went with it), 404 for an administrator's call. Each race is
// run on 5 accounts: one race of the owner's hit the 500s about every
// other time.
func TestRacingDeletionsAnswerNoServerError(t *testing.T) {
	t.Parallel()
	for _, by := range []string{"owner", "administrator"} {
		t.Run(by, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withAdminToken, func(d *server.Deps) {
				// 5 races of 20 from one client, and a login before each:
				// 105 throttled calls, over the default burst of any limiter.
				limits := server.DefaultLimits
				races := server.Rate{Burst: 1000, Per: time.Minute}
				limits.PerIP, limits.PerClientAccount, limits.PerAccount = races, races, races
				d.Limits = &limits
			})
			for round := range 5 {
				email := fmt.Sprintf("ann%d@example.com", round)
				e.account(email, store.PlanStarter)
				session := e.login(email)
				gone := http.StatusUnauthorized
				deletion := func() int {
					return e.post("/account/delete", map[string]string{"password": testPassword}, "Cookie", session).status
				}
				if by == "administrator" {
					gone = http.StatusNotFound
					deletion = func() int {
						return e.post("/boss/accounts/delete", map[string]string{"email": email, "confirm": email},
							"Authorization", "Bearer "+adminToken).status
					}
				}
				statuses := make([]int, 20)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i := range statuses {
					wg.Go(func() {
						<-start
						statuses[i] = deletion()
					})
				}
				close(start)
				wg.Wait()
				deleted := 0
				for _, status := range statuses {
					switch status {
					case http.StatusOK:
						deleted++
					case gone:
					default:
						t.Errorf("a deletion answered %d", status)
					}
				}
				if deleted != 1 {
					t.Fatalf("%d deletions succeeded, want 1: %v", deleted, statuses)
				}
			}
		})
	}
}

// TestDeletingAnAccountThatHadADeletedAccountsID: the second holder of a
// reused id could not be deleted once both had made a call this month
// (500, its keys still working). Ids are no longer reused, and each
// deletion works.
func TestDeletingAnAccountThatHadADeletedAccountsID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.adminSession("boss@example.com")
	for _, email := range []string{"first@example.com", "second@example.com"} {
		key := e.key(email, store.PlanStarter)
		e.meteredCall(key).want(200)
		e.post("/account/delete", map[string]string{"password": testPassword}, "Cookie", e.login(email)).want(200)
		e.meteredCall(key).wantError(401, "unauthorized")
	}
	kept, err := e.store.DeletedUsages(context.Background(), 10)
	if err != nil || len(kept) != 2 || kept[0].AccountID == kept[1].AccountID {
		t.Fatalf("kept usage %+v, %v; want one month for each account", kept, err)
	}
}

// TestRefusedDeletionStaysAsking: a deletion refused for a wrong password
// shows the message in the confirmation, which stays open for another
// try, not above the change-password form.
func TestRefusedDeletionStaysAsking(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	cookie := e.sessionCookie("ann@example.com")
	page := string(e.browse("POST", "/account/delete", url.Values{"password": {"not my password at all"}}, cookie).want(http.StatusUnauthorized).body)
	at := strings.Index(page, `id="confirm-delete"`)
	if at < 0 {
		t.Fatalf("a wrong password closes the confirmation:\n%s", page)
	}
	confirm := page[at:]
	confirm = confirm[:strings.Index(confirm, "</form>")]
	if !strings.Contains(confirm, `<p class="alert error" role="alert" id="delete-error">The current password is wrong.</p>`) ||
		!strings.Contains(confirm, `id="delete_password"`) {
		t.Fatalf("the confirmation after a wrong password:\n%s", confirm)
	}
	if above := page[:strings.Index(page, `id="delete-account"`)]; strings.Contains(above, "password is wrong") {
		t.Fatal("the message shows above the change-password form")
	}
	// A wrong current password on the change-password form shows at the
	// top, and leaves the deletion unasked.
	page = string(e.browse("POST", "/account/password", url.Values{"current_password": {"not my password at all"}, "new_password": {"a brand new long passphrase"}}, cookie).want(http.StatusUnauthorized).body)
	if !strings.Contains(page, `<div class="alert error" role="alert">The current password is wrong.</div>`) || strings.Contains(page, `id="confirm-delete"`) {
		t.Fatal("a refused password change: the message is not at the top, or the deletion asks")
	}
}
