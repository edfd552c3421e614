package server_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

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

// TestInvitesAreToldApart: two invites made in one minute were identical
// rows of the admin page, the audit log named an id the page never
// showed, and a registered event did not say which invite. Each row now
// shows the invite's short id and when it was made, to the second; the
// new link's panel, the audit events of its making, of a registration
// with it, and of its revocation name the same id; so does its
// activation by an administrator, which spends it.
func TestInvitesAreToldApart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken, withRegistration(server.RegistrationInvite))
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	e.store.SetClock(func() time.Time { return now })
	admin := e.adminSession("boss@example.com")
	var ids, links []string
	for range 2 {
		page := string(e.followAdmin(e.form("/admin/invites", url.Values{}, admin), admin).want(200).body)
		panel := page[strings.Index(page, `id="new-invite"`):]
		panel = panel[:strings.Index(panel, "</div>")]
		id := regexp.MustCompile(`<code>([0-9a-f]{12})</code>`).FindStringSubmatch(panel)
		if id == nil {
			t.Fatalf("the new link's panel names no id:\n%s", panel)
		}
		link := html.UnescapeString(panel)
		link = link[strings.Index(link, "/register?invite=")+len("/register?invite="):]
		ids, links = append(ids, id[1]), append(links, link[:strings.IndexByte(link, '<')])
		now = now.Add(3 * time.Second)
	}
	if ids[0] == ids[1] {
		t.Fatalf("two invites, one id: %v", ids)
	}
	page := string(e.request("GET", "/admin", nil, "Cookie", admin).want(200).body)
	table := page[strings.Index(page, `id="invites"`):]
	table = table[:strings.Index(table, "</table>")]
	for i, when := range []string{"12:00:00 UTC", "12:00:03 UTC"} {
		if !regexp.MustCompile(`<code>` + ids[i] + `</code>[^\n]*\n?\s*<td>1 Mar 2026 ` + when + `</td>`).MatchString(table) {
			t.Fatalf("the invites table does not show invite %s made at %s:\n%s", ids[i], when, table)
		}
	}

	token := []string{"Authorization", "Bearer " + adminToken}
	e.post("/register", map[string]string{"email": "ann@example.com", "password": testPassword, "invite": links[0]}).want(200)
	e.post("/register", map[string]string{"email": "bob@example.com", "password": testPassword, "invite": links[1]}).want(200)
	e.post("/boss/accounts/verify", map[string]string{"email": "bob@example.com", "new_password": newTestPassword}, token...).want(200)
	events := map[string][]string{}
	for _, ev := range e.post("/boss/audit/list", map[string]int{"limit": 500}, token...).want(200).json()["items"].([]any) {
		ev := ev.(map[string]any)
		events[ev["kind"].(string)] = append(events[ev["kind"].(string)], ev["detail"].(string))
	}
	created := events[store.AuditInviteCreated]
	if len(created) != 2 || !strings.HasPrefix(created[0], "invite "+ids[1]+", ") || !strings.HasPrefix(created[1], "invite "+ids[0]+", ") {
		t.Fatalf("invite_created events, newest first: %q; want them to name %v", created, ids)
	}
	if registered := events[store.AuditRegistered]; len(registered) != 2 || registered[0] != "with invite "+ids[1] || registered[1] != "with invite "+ids[0] {
		t.Fatalf("registered events, newest first: %q", registered)
	}
	// The administrator's activation of bob spent the second invite.
	live := e.post("/boss/invites/list", nil, token...).want(200).json()["items"].([]any)
	if len(live) != 1 || !strings.HasPrefix(live[0].(map[string]any)["id"].(string), ids[0]) {
		t.Fatalf("live invites after activating an invitee: %v", live)
	}
	e.post("/register", map[string]string{"email": "carl@example.com", "password": testPassword, "invite": links[1]}).wantError(403, "invalid_invite")
}
