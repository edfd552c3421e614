package server_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/geo"
	"secutil/tools/geo/geotest"
)

func TestIPInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	e.post("/api/v1/ip_info", map[string]string{"ip_string": "not an ip"}, "X-API-Key", key).wantError(400, "invalid_ip")
	e.post("/api/v1/ip_info", map[string]string{}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/ip_info", map[string]string{"ip_string": "81.2.69.160"}).wantError(401, "unauthorized")

	gb := e.post("/api/v1/ip_info", map[string]string{"ip_string": "81.2.69.160"}, "X-API-Key", key).want(200).json()
	for field, want := range map[string]any{"ip": "81.2.69.160", "country_iso": "GB", "calling_code": "+44", "currency": "GBP", "country_flag": "🇬🇧", "eu": false, "city": "London", "asn": float64(20712)} {
		if gb[field] != want {
			t.Errorf("GB %s = %v, want %v", field, gb[field], want)
		}
	}
	if src, _ := gb["source"].(string); !strings.HasPrefix(src, "GeoLite2-City ") || !strings.Contains(src, " + GeoLite2-ASN ") {
		t.Errorf("GB source = %v, want the City and ASN files' types and dates", gb["source"])
	}
	de := e.post("/api/ip_info", map[string]string{"ip_string": "89.160.20.112"}, "X-API-Key", key).want(200).json()
	if de["eu"] != true || de["country_iso"] != "DE" {
		t.Errorf("DE: %v", de)
	}
	if v6 := e.post("/api/ip_info", map[string]string{"ip_string": "2a02:ff0::1"}, "X-API-Key", key).want(200).json(); v6["country_iso"] != "FR" {
		t.Errorf("IPv6: %v", v6)
	}
	private := e.post("/api/v1/ip_info", map[string]string{"ip_string": "192.168.1.10"}, "X-API-Key", key).want(200).json()
	if private["country"] != nil || private["note"] == nil || private["source"] == nil {
		t.Fatalf("private address: %v", private)
	}
	// The root-level web variant takes a session too.
	e.post("/ip_info", map[string]string{"ip_string": "10.0.0.1"}, "Cookie", e.login("ann@example.com")).want(200)
	e.post("/ip_info", map[string]string{"ip_string": "10.0.0.1"}).wantError(401, "unauthorized")
}

func TestIPInfoWithoutDatabaseSaysWhichFlagToSet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) { d.Geo = nil })
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	res := e.post("/api/ip_info", map[string]string{"ip_string": "81.2.69.160"}, "X-API-Key", key)
	if msg := res.wantError(500, "geoip_not_configured")["error"].(string); !contains(msg, "-geoip-embedded") || !contains(msg, "-geoip-city") {
		t.Fatalf("message %q does not say which flag to set", msg)
	}
	if e.usage(a.ID) != 0 {
		t.Fatal("a failed lookup was counted")
	}
}

// withGeo serves /ip_info from the databases cfg names.
func withGeo(t *testing.T, cfg geo.Config) func(*server.Deps) {
	locator, err := geo.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locator.Close)
	return func(d *server.Deps) { d.Geo = locator }
}

// TestIPInfoEmbedded is /ip_info with no database configured but the
// embedded ones, as a fresh `go run .` serves it.
func TestIPInfoEmbedded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withGeo(t, geo.Config{Embedded: true}))
	key := e.key("ann@example.com", store.PlanPro)
	us := e.post("/api/v1/ip_info", map[string]string{"ip_string": "8.8.8.8"}, "X-API-Key", key).want(200).json()
	for field, want := range map[string]any{"country_iso": "US", "country": "United States", "country_flag": "🇺🇸", "currency": "USD", "calling_code": "+1", "asn": float64(15169), "eu": false} {
		if us[field] != want {
			t.Errorf("8.8.8.8 %s = %v, want %v", field, us[field], want)
		}
	}
	if org, _ := us["org"].(string); !strings.Contains(org, "Google") {
		t.Errorf("8.8.8.8 org = %v", us["org"])
	}
	for _, field := range []string{"city", "region", "postal", "timezone", "latitude", "longitude"} {
		if v, present := us[field]; !present || v != nil {
			t.Errorf("8.8.8.8 %s = %v (present %v), want null without a City database", field, v, present)
		}
	}
	if src, _ := us["source"].(string); !strings.HasPrefix(src, "DB-IP Lite Country ") || !strings.Contains(src, " + RouteViews/DB-IP ASN ") {
		t.Errorf("8.8.8.8 source = %v", us["source"])
	}
	for ip, asn := range map[string]float64{"1.1.1.1": 13335, "9.9.9.9": 19281, "::ffff:1.1.1.1": 13335} {
		if got := e.post("/api/ip_info", map[string]string{"ip_string": ip}, "X-API-Key", key).want(200).json(); got["asn"] != asn {
			t.Errorf("%s asn = %v, want %v", ip, got["asn"], asn)
		}
	}
	if gb := e.post("/api/ip_info", map[string]string{"ip_string": "81.2.69.160"}, "X-API-Key", key).want(200).json(); gb["country_iso"] != "GB" {
		t.Errorf("81.2.69.160 country_iso = %v", gb["country_iso"])
	}
	private := e.post("/api/v1/ip_info", map[string]string{"ip_string": "10.1.2.3"}, "X-API-Key", key).want(200).json()
	if private["country_iso"] != nil || private["asn"] != nil || private["note"] == nil || private["source"] == nil {
		t.Errorf("10.1.2.3: %v", private)
	}
	unlisted := e.post("/api/v1/ip_info", map[string]string{"ip_string": "4000::1"}, "X-API-Key", key).want(200).json()
	if unlisted["country_iso"] != nil || unlisted["note"] == nil || unlisted["source"] != us["source"] {
		t.Errorf("4000::1: %v", unlisted)
	}
}

// TestIPInfoCityFileAheadOfEmbedded: a City file answers city-level fields
// and its country; the embedded ASN database fills asn and org.
func TestIPInfoCityFileAheadOfEmbedded(t *testing.T) {
	t.Parallel()
	cfg := geotest.Databases(t)
	cfg.ASNPath, cfg.ISPPath, cfg.Embedded = "", "", true
	e := newEnv(t, withGeo(t, cfg))
	key := e.key("ann@example.com", store.PlanPro)
	de := e.post("/api/v1/ip_info", map[string]string{"ip_string": "89.160.20.112"}, "X-API-Key", key).want(200).json()
	if de["city"] != "Berlin" || de["country_iso"] != "DE" || de["asn"] == nil || de["org"] == nil {
		t.Fatalf("89.160.20.112: %v", de)
	}
	if src, _ := de["source"].(string); !strings.HasPrefix(src, "GeoLite2-City ") || !strings.Contains(src, "RouteViews/DB-IP ASN") || strings.Contains(src, "DB-IP Lite Country") {
		t.Fatalf("89.160.20.112 source = %v", de["source"])
	}
}

// TestGeoAttribution: the licences of the built-in data (CC BY 4.0) ask
// for credit wherever results show: the tools page, the reference's
// /ip_info section and the guide.
func TestGeoAttribution(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dbip := `<a href="https://db-ip.com">IP geolocation by DB-IP</a>`
	for _, path := range []string{"/tools", "/docs", "/docs/ip_info"} {
		page := string(e.request("GET", path, nil, "Accept", "text/html").want(200).body)
		if !strings.Contains(page, dbip) || !strings.Contains(page, `<a href="https://www.routeviews.org">RouteViews</a>`) {
			t.Errorf("%s lacks the DB-IP link or the RouteViews credit", path)
		}
	}
	ref := string(e.request("GET", "/docs", nil).want(200).body)
	section := ref[strings.Index(ref, `id="/ip_info"`):]
	section = section[:strings.Index(section, "</section>")]
	if !strings.Contains(section, dbip) {
		t.Error("the /ip_info section of /docs lacks the attribution")
	}
	doc := string(e.request("GET", "/api-docs", nil).want(200).body)
	if !strings.Contains(doc, "IP geolocation by DB-IP (https://db-ip.com") || !strings.Contains(doc, "RouteViews") || !strings.Contains(doc, "CC BY 4.0") {
		t.Error("the OpenAPI description of /ip_info does not name DB-IP, RouteViews and the licence")
	}
}

// TestIPLookupPanelSaysWhatIsUnknown: the tools page's IP table lists
// the fields known, not a row of "unknown" for each of the others; it
// names those in a line, and apart from them the fields this server
// cannot know for any address without a City database (an admin is told
// the flag).
func TestIPLookupPanelSaysWhatIsUnknown(t *testing.T) {
	t.Parallel()
	rows := regexp.MustCompile(`<tr><th scope="row">([^<]*)</th>`)
	t.Run("a private address", func(t *testing.T) {
		e := newEnv(t)
		e.account("ann@example.com", store.PlanPro)
		session := e.sessionCookie("ann@example.com")
		panel := panelOf(t, e.browse("POST", "/ip_info", url.Values{"ip_string": {"10.1.2.3"}}, session).want(200).body, "tool-ip")
		var names []string
		for _, m := range rows.FindAllStringSubmatch(panel, -1) {
			names = append(names, m[1])
		}
		if strings.Join(names, ", ") != "IP address, Source, Note" || strings.Contains(panel, "unknown") || strings.Contains(panel, "-geoip-city") {
			t.Errorf("a private address's rows %v:\n%s", names, panel)
		}
		if !strings.Contains(panel, "private address") {
			t.Errorf("the panel does not say why:\n%s", panel)
		}
	})
	t.Run("without a City database", func(t *testing.T) {
		e := newEnv(t, withGeo(t, geo.Config{Embedded: true}))
		e.account("ann@example.com", store.PlanPro)
		user := e.sessionCookie("ann@example.com")
		admin := &http.Cookie{Name: "auth_session", Value: e.adminSession("boss@example.com")}
		noCity := `<p class="muted" id="ip-no-city">City, Region, Postal code, Time zone, Latitude, Longitude: this server has no city data, for any address.`
		panel := panelOf(t, e.browse("POST", "/ip_info", url.Values{"ip_string": {"8.8.8.8"}}, user).want(200).body, "tool-ip")
		if !strings.Contains(panel, noCity) || strings.Contains(panel, "-geoip-city") || strings.Contains(panel, "<th scope=\"row\">City</th>") {
			t.Errorf("a user's panel for 8.8.8.8:\n%s", panel)
		}
		panel = panelOf(t, e.browse("POST", "/ip_info", url.Values{"ip_string": {"8.8.8.8"}}, admin).want(200).body, "tool-ip")
		if !strings.Contains(panel, noCity) || !strings.Contains(panel, "<code>-geoip-city</code>") {
			t.Errorf("an admin's panel for 8.8.8.8:\n%s", panel)
		}
	})
	t.Run("with one, a field it does not know", func(t *testing.T) {
		e := newEnv(t)
		e.account("ann@example.com", store.PlanPro)
		session := e.sessionCookie("ann@example.com")
		panel := panelOf(t, e.browse("POST", "/ip_info", url.Values{"ip_string": {"2a02:ff0::1"}}, session).want(200).body, "tool-ip")
		if strings.Contains(panel, "ip-no-city") || !strings.Contains(panel, "<th scope=\"row\">City</th><td>Paris</td>") {
			t.Errorf("a panel with city data:\n%s", panel)
		}
	})
}
