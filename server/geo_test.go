package server_test

import (
	"testing"

	"secutil/server"
	"secutil/store"
)

func TestIPInfo(t *testing.T) {
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	e.post("/api/v1/ip_info", map[string]string{"ip_string": "not an ip"}, "X-API-Key", key).wantError(400, "invalid_ip")
	e.post("/api/v1/ip_info", map[string]string{}, "X-API-Key", key).wantError(400, "invalid_request")
	e.post("/api/ip_info", map[string]string{"ip_string": "81.2.69.160"}).wantError(401, "unauthorized")

	gb := e.post("/api/v1/ip_info", map[string]string{"ip_string": "81.2.69.160"}, "X-API-Key", key).want(200).json()
	for field, want := range map[string]any{"ip": "81.2.69.160", "country_iso": "GB", "calling_code": "+44", "currency": "GBP", "country_flag": "🇬🇧", "eu": false, "city": "London", "asn": float64(20712)} {
		if gb[field] != want {
			t.Errorf("GB %s = %v, want %v", field, gb[field], want)
		}
	}
	de := e.post("/api/ip_info", map[string]string{"ip_string": "89.160.20.112"}, "X-API-Key", key).want(200).json()
	if de["eu"] != true || de["country_iso"] != "DE" {
		t.Errorf("DE: %v", de)
	}
	if v6 := e.post("/api/ip_info", map[string]string{"ip_string": "2a02:ff0::1"}, "X-API-Key", key).want(200).json(); v6["country_iso"] != "FR" {
		t.Errorf("IPv6: %v", v6)
	}
	private := e.post("/api/v1/ip_info", map[string]string{"ip_string": "192.168.1.10"}, "X-API-Key", key).want(200).json()
	if private["country"] != nil || private["note"] == nil {
		t.Fatalf("private address: %v", private)
	}
	// The root-level web variant takes a session too.
	e.post("/ip_info", map[string]string{"ip_string": "10.0.0.1"}, "Cookie", e.login("ann@example.com")).want(200)
	e.post("/ip_info", map[string]string{"ip_string": "10.0.0.1"}).wantError(401, "unauthorized")
}

func TestIPInfoWithoutDatabaseSaysWhichFlagToSet(t *testing.T) {
	e := newEnv(t, func(d *server.Deps) { d.Geo = nil })
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	res := e.post("/api/ip_info", map[string]string{"ip_string": "81.2.69.160"}, "X-API-Key", key)
	if msg := res.wantError(500, "geoip_not_configured")["error"].(string); !contains(msg, "-geoip-city") {
		t.Fatalf("message %q does not say which flag to set", msg)
	}
	if e.usage(a.ID) != 0 {
		t.Fatal("a failed lookup was counted")
	}
}
