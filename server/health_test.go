package server_test

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/geo"
)

// TestHealthReportsGeoIPDataDate: /health says how old the location data
// is, the same date ip_info's source names, so an operator sees it without
// a key; a server without a GeoIP database leaves the field out.
func TestHealthReportsGeoIPDataDate(t *testing.T) {
	t.Parallel()
	locator, err := geo.Open(geo.Config{Embedded: true, CheckInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locator.Close)
	e := newEnv(t, func(d *server.Deps) { d.Geo = locator })
	want := locator.DataDate().Format(time.DateOnly)
	health := e.request("GET", "/health", nil).want(200).json()
	if health["geoip_data_date"] != want {
		t.Errorf("/health geoip_data_date = %v, want %s (health: %v)", health["geoip_data_date"], want, health)
	}
	key := e.key("ann@example.com", store.PlanPro)
	info := e.post("/api/v1/ip_info", map[string]string{"ip_string": "8.8.8.8"}, "X-API-Key", key).want(200).json()
	if src, _ := info["source"].(string); !strings.Contains(src, " "+want) {
		t.Errorf("ip_info source %q does not name the data date %s", src, want)
	}

	bare := newEnv(t, func(d *server.Deps) { d.Geo = nil })
	if m := bare.request("GET", "/health", nil).want(200).json(); m["geoip_data_date"] != nil {
		t.Errorf("no GeoIP database: /health geoip_data_date = %v, want it absent", m["geoip_data_date"])
	}
}

func TestHealthAndRobots(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.request("GET", "/health", nil).want(200).json()
	if m["status"] != "ok" || m["db"] != "ok" || m["version"] == "" || m["backend"] != "sqlite" {
		t.Fatalf("health = %v", m)
	}
	for _, p := range []string{"/robots", "/robots.txt"} {
		res := e.request("GET", p, nil).want(200)
		if !bytes.Contains(res.body, []byte("Disallow: /api/")) {
			t.Fatalf("%s = %s", p, res.body)
		}
	}
	e.store.Close()
	if m := e.request("GET", "/health", nil).want(503).json(); m["db"] != "error" {
		t.Fatalf("health with a closed db = %v", m)
	}
}

// While the instance drains, /health answers 503 with the status
// "draining", so that a load balancer takes it out, and every other route
// still answers.
func TestHealthWhileDraining(t *testing.T) {
	t.Parallel()
	var draining atomic.Bool
	e := newEnv(t, func(d *server.Deps) { d.Draining = draining.Load })
	if m := e.request("GET", "/health", nil).want(200).json(); m["status"] != "ok" {
		t.Fatalf("health before draining = %v", m)
	}
	draining.Store(true)
	if m := e.request("GET", "/health", nil).want(503).json(); m["status"] != "draining" || m["db"] != "ok" {
		t.Fatalf("health while draining = %v, want status draining, db ok", m)
	}
	e.request("GET", "/robots.txt", nil).want(200)
	key := e.key("ann@example.com", store.PlanPro)
	e.post("/api/v1/base64", map[string]string{"text": "x", "option": "encode"}, "X-API-Key", key).want(200)
}
