package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"secutil/store"
	"secutil/tools/seal"
)

// TestDecryptGeoInfo follows a client IP from a login into the audit log,
// lists it as an admin, and opens it with /boss/decrypt_geoinfo2.
func TestDecryptGeoInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	e.account("ann@example.com", store.PlanStarter)

	// A login from a London address leaves a sealed IP in the audit log.
	req := httptest.NewRequest("POST", "/login", bytes.NewReader([]byte(`{"email":"ann@example.com","password":"`+testPassword+`"}`)))
	req.RemoteAddr = "81.2.69.160:5555"
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	list := e.post("/boss/audit/list", map[string]any{"limit": 1}, "Authorization", "Bearer "+adminToken).want(200).json()
	item := list["items"].([]any)[0].(map[string]any)
	sealed := item["sealed_ip"].(string)
	if item["kind"] != store.AuditLoginOK || sealed == "" {
		t.Fatalf("audit item %v", item)
	}

	info := e.post("/boss/decrypt_geoinfo2", map[string]string{"sealed": sealed}, "Authorization", "Bearer "+adminToken).want(200).json()
	if info["ip"] != "81.2.69.160" || info["country_iso"] != "GB" {
		t.Fatalf("decrypt_geoinfo2 = %v", info)
	}
	// An admin session works too; a non-admin session is 403; nothing is 401.
	e.post("/boss/decrypt_geoinfo2", map[string]string{"sealed": sealed}, "Cookie", e.adminSession("boss@example.com")).want(200)
	e.post("/boss/decrypt_geoinfo2", map[string]string{"sealed": sealed}, "Cookie", e.login("ann@example.com")).wantError(403, "forbidden")
	e.post("/boss/decrypt_geoinfo2", map[string]string{"sealed": sealed}).wantError(401, "unauthorized")

	otherKey, _ := seal.Seal(bytes.Repeat([]byte{9}, 32), []byte("81.2.69.160"))
	for _, bad := range []map[string]string{{"sealed": "!!!"}, {"sealed": sealed[:10]}, {"sealed": otherKey}, {}} {
		res := e.post("/boss/decrypt_geoinfo2", bad, "Authorization", "Bearer "+adminToken)
		if res.status != 400 {
			t.Errorf("%v: status %d, want 400", bad, res.status)
		}
	}
}

func TestAdminListSuggestionsAndAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdminToken)
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key := e.key("ann@example.com", store.PlanStarter)
	e.meteredCall(key).want(http.StatusOK)

	sg := e.post("/boss/suggestions/list", nil, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(sg) != 1 || sg[0].(map[string]any)["message"] != "more tools please" {
		t.Fatalf("suggestions %v", sg)
	}
	events := e.post("/boss/audit/list", map[string]any{"limit": 1}, bearer...).want(http.StatusOK).json()["items"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["kind"] != store.AuditKeyIssued {
		t.Fatalf("newest audit event %v", events)
	}
}
