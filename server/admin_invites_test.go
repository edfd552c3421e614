package server_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"secutil/server"
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
