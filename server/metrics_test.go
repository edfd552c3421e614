package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"secutil/server"
	"secutil/store"
	"secutil/store/pgtest"
	"secutil/tools/breach"
)

const metricsToken = "metrics-token-0123456789abcdef"

// scrape fetches GET /metrics with the token and parses it with
// Prometheus's own text parser, which fails on any malformed line.
func scrape(t *testing.T, e *env) map[string]*dto.MetricFamily {
	t.Helper()
	res := e.request("GET", "/metrics", nil, "Authorization", "Bearer "+metricsToken).want(200)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("Content-Type %q", ct)
	}
	return parseExposition(t, res.body)
}

func parseExposition(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, body)
	}
	return families
}

// series finds the family's one series whose labels include the given
// name, value pairs; nil when there is none.
func series(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	t.Helper()
	f := families[name]
	if f == nil {
		t.Fatalf("no metric family %s", name)
	}
	var found *dto.Metric
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			match = match && have[labels[i]] == labels[i+1]
		}
		if match {
			if found != nil {
				t.Fatalf("%s%v matches several series", name, labels)
			}
			found = m
		}
	}
	return found
}

func counterValue(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	m := series(t, families, name, labels...)
	if m == nil {
		return 0
	}
	return m.GetCounter().GetValue()
}

func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	sha1 := pwnedFile(t, breach.KindSHA1)
	e := newEnv(t, func(d *server.Deps) {
		d.MetricsToken = metricsToken
		d.Version = "1.2.3 \"quoted\" \\ build" // label values must be escaped
		d.Range = server.RangeAPI{SHA1: sha1, Access: server.RangePublic}
	})
	key := e.key("ann@example.com", store.PlanStarter)
	proKey := e.key("pat@example.com", store.PlanPro)
	for range 3 {
		e.post("/api/v1/base64", map[string]string{"text": "hi", "option": "encode"}, "X-API-Key", key).want(200)
	}
	e.post("/api/v1/base64", map[string]string{"text": "hi", "option": "encode"}, "X-API-Key", proKey).want(200)
	e.post("/api/v1/secure_encrypt", map[string]string{"text": "hi", "password": "a long enough password"}, "X-API-Key", proKey).want(200)
	e.post("/api/v1/hash_identifier", map[string]any{"hashes": []string{"a", "b", "c", "d"}}, "X-API-Key", proKey).want(200) // 4 items
	ann, err := e.store.AccountByEmail(t.Context(), "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	e.fill(ann.ID, 97)
	e.post("/api/v1/base64", map[string]string{"text": "hi", "option": "encode"}, "X-API-Key", key).wantError(429, "plan_limit_reached")
	e.request("GET", "/range/5BAA6", nil).want(200)
	e.request("GET", "/no/such/page", nil).want(404)

	families := scrape(t, e)
	for name, typ := range map[string]dto.MetricType{
		"secutil_http_requests_total":           dto.MetricType_COUNTER,
		"secutil_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
		"secutil_http_open_connections":         dto.MetricType_GAUGE,
		"secutil_metered_calls_total":           dto.MetricType_COUNTER,
		"secutil_metered_items_total":           dto.MetricType_COUNTER,
		"secutil_metered_refusals_total":        dto.MetricType_COUNTER,
		"secutil_kdf_wait_seconds":              dto.MetricType_HISTOGRAM,
		"secutil_meter_batch_size":              dto.MetricType_HISTOGRAM,
		"secutil_meter_commit_seconds":          dto.MetricType_HISTOGRAM,
		"secutil_db_size_bytes":                 dto.MetricType_GAUGE,
		"secutil_db_wal_bytes":                  dto.MetricType_GAUGE,
		"secutil_db_open_connections":           dto.MetricType_GAUGE,
		"secutil_geoip_build_timestamp_seconds": dto.MetricType_GAUGE,
		"secutil_breach_file_timestamp_seconds": dto.MetricType_GAUGE,
		"secutil_build_info":                    dto.MetricType_GAUGE,
		"secutil_budget_used_bytes":             dto.MetricType_GAUGE,
		"secutil_budget_limit_bytes":            dto.MetricType_GAUGE,
		"secutil_budget_refusals_total":         dto.MetricType_COUNTER,
		"process_cpu_seconds_total":             dto.MetricType_COUNTER,
		"process_resident_memory_bytes":         dto.MetricType_GAUGE,
		"process_virtual_memory_bytes":          dto.MetricType_GAUGE,
		"process_open_fds":                      dto.MetricType_GAUGE,
		"process_max_fds":                       dto.MetricType_GAUGE,
		"process_start_time_seconds":            dto.MetricType_GAUGE,
		"go_goroutines":                         dto.MetricType_GAUGE,
		"go_threads":                            dto.MetricType_GAUGE,
		"go_info":                               dto.MetricType_GAUGE,
		"go_gc_duration_seconds":                dto.MetricType_SUMMARY,
		"go_gc_cycles_total":                    dto.MetricType_COUNTER,
		"go_memstats_alloc_bytes":               dto.MetricType_GAUGE,
		"go_memstats_alloc_bytes_total":         dto.MetricType_COUNTER,
		"go_memstats_heap_inuse_bytes":          dto.MetricType_GAUGE,
		"go_memstats_sys_bytes":                 dto.MetricType_GAUGE,
		"go_memstats_next_gc_bytes":             dto.MetricType_GAUGE,
	} {
		if f := families[name]; f == nil || f.GetType() != typ {
			t.Fatalf("family %s: got %v, want type %v", name, f, typ)
		}
	}

	if got := counterValue(t, families, "secutil_http_requests_total", "route", "POST /api/v1/base64", "status", "200"); got != 4 {
		t.Fatalf("base64 200s: got %v, want 4", got)
	}
	if got := counterValue(t, families, "secutil_http_requests_total", "route", "POST /api/v1/base64", "status", "429"); got != 1 {
		t.Fatalf("base64 429s: got %v, want 1", got)
	}
	if got := counterValue(t, families, "secutil_http_requests_total", "route", "GET /range/{prefix}", "status", "200"); got != 1 {
		t.Fatalf("range 200s: got %v, want 1", got)
	}
	if got := counterValue(t, families, "secutil_http_requests_total", "route", "unmatched", "status", "404"); got != 1 {
		t.Fatalf("unmatched 404s: got %v, want 1", got)
	}
	latency := series(t, families, "secutil_http_request_duration_seconds", "route", "POST /api/v1/base64").GetHistogram()
	if latency.GetSampleCount() != 5 || latency.GetSampleSum() <= 0 {
		t.Fatalf("base64 latency histogram: %v", latency)
	}
	if got := counterValue(t, families, "secutil_metered_calls_total", "plan", "starter"); got != 3 {
		t.Fatalf("starter metered calls: got %v, want 3", got)
	}
	if got := counterValue(t, families, "secutil_metered_calls_total", "plan", "pro"); got != 3 {
		t.Fatalf("pro metered calls: got %v, want 3", got)
	}
	if got := counterValue(t, families, "secutil_metered_items_total", "plan", "pro"); got != 6 {
		t.Fatalf("pro metered items: got %v, want 6 (two calls and a batch of 4)", got)
	}
	if got := counterValue(t, families, "secutil_metered_items_total", "plan", "starter"); got != 3 {
		t.Fatalf("starter metered items: got %v, want 3", got)
	}
	if got := counterValue(t, families, "secutil_metered_refusals_total", "plan", "starter"); got != 1 {
		t.Fatalf("starter refusals: got %v, want 1", got)
	}
	if n := series(t, families, "secutil_kdf_wait_seconds").GetHistogram().GetSampleCount(); n != 1 {
		t.Fatalf("KDF waits: got %d, want 1 (one encryption)", n)
	}
	// 6 counted calls and 97 filled charges, each its own transaction here.
	batches := series(t, families, "secutil_meter_batch_size").GetHistogram()
	if batches.GetSampleSum() != 6+97 || batches.GetSampleCount() == 0 {
		t.Fatalf("meter batches: %v, want 103 charges in all", batches)
	}
	if n := series(t, families, "secutil_meter_commit_seconds").GetHistogram().GetSampleCount(); n != batches.GetSampleCount() {
		t.Fatalf("commit times: %d, want one per batch (%d)", n, batches.GetSampleCount())
	}
	if size := series(t, families, "secutil_db_size_bytes").GetGauge().GetValue(); size < 4096 {
		t.Fatalf("database size %v", size)
	}
	if n := series(t, families, "secutil_db_open_connections", "pool", "write").GetGauge().GetValue(); n != 1 {
		t.Fatalf("write pool connections %v, want 1", n)
	}
	for _, db := range []string{"City", "ASN"} {
		if m := series(t, families, "secutil_geoip_build_timestamp_seconds", "database", db); m == nil || m.GetGauge().GetValue() < 1e9 {
			t.Fatalf("GeoIP %s build time: %v", db, m)
		}
	}
	if m := series(t, families, "secutil_breach_file_timestamp_seconds", "kind", "sha1"); m == nil || int64(m.GetGauge().GetValue()) != sha1.ModTime().Unix() {
		t.Fatalf("breach file time %v, want %d", m, sha1.ModTime().Unix())
	}
	if m := series(t, families, "secutil_build_info", "version", "1.2.3 \"quoted\" \\ build"); m == nil {
		t.Fatal("build_info lost its escaped version label")
	}
}

// TestDatabaseMetricsByBackend: the database's figures name the backend
// they describe. SQLite has a read pool and a write pool; PostgreSQL one
// pool for both, reported once so that a sum over pool counts it once.
func TestDatabaseMetricsByBackend(t *testing.T) {
	t.Parallel()
	backends := map[string]func(*server.Deps){"sqlite": nil}
	if pgtest.Enabled() {
		backends["postgres"] = func(d *server.Deps) {
			st, err := store.Open(context.Background(), pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			d.Store = st
		}
	}
	for backend, useBackend := range backends {
		e := newEnv(t, func(d *server.Deps) {
			d.MetricsToken = metricsToken
			if useBackend != nil {
				useBackend(d)
			}
		})
		families := scrape(t, e)
		help := families["secutil_db_size_bytes"].GetHelp()
		var pools []string
		for _, m := range families["secutil_db_open_connections"].GetMetric() {
			for _, l := range m.GetLabel() {
				pools = append(pools, l.GetValue())
			}
		}
		want := map[string]struct{ help, pools string }{
			"sqlite":   {"SQLite database file", "read write"},
			"postgres": {"PostgreSQL database", "shared"},
		}[backend]
		if !strings.Contains(help, want.help) || strings.Join(pools, " ") != want.pools {
			t.Errorf("%s: secutil_db_size_bytes help %q, want it to name the %s; pools %q, want %q", backend, help, want.help, pools, want.pools)
		}
	}
}

func TestMetricsNeedTheToken(t *testing.T) {
	t.Parallel()
	off := newEnv(t)
	if m := off.request("GET", "/metrics", nil).wantError(404, "metrics_off"); !strings.Contains(m["error"].(string), "-metrics-token") {
		t.Fatalf("error %q does not name -metrics-token", m["error"])
	}
	e := newEnv(t, func(d *server.Deps) { d.MetricsToken = metricsToken })
	res := e.request("GET", "/metrics", nil)
	res.wantError(401, "unauthorized")
	if res.header.Get("WWW-Authenticate") == "" {
		t.Fatal("401 without WWW-Authenticate")
	}
	e.request("GET", "/metrics", nil, "Authorization", "Bearer "+metricsToken+"x").wantError(401, "unauthorized")
	e.request("GET", "/metrics", nil, "Authorization", metricsToken).wantError(401, "unauthorized")
	scrape(t, e)
}

// TestMetricsOwnListener is the -metrics-addr path: the same Metrics,
// served without a token, and counting the open connections of the
// listener whose ConnState it watches.
func TestMetricsOwnListener(t *testing.T) {
	t.Parallel()
	metrics := server.NewMetrics()
	e := newEnv(t, func(d *server.Deps) { d.Metrics = metrics })
	api := httptest.NewUnstartedServer(e.h)
	api.Config.ConnState = metrics.ConnState
	api.Start()
	defer api.Close()
	client := api.Client()
	res, err := client.Get(api.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close() // the connection stays open for reuse

	side := httptest.NewServer(metrics)
	defer side.Close()
	res, err = http.Get(side.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	families := parseExposition(t, body)
	if got := series(t, families, "secutil_http_open_connections").GetGauge().GetValue(); got != 1 {
		t.Fatalf("open connections: got %v, want 1", got)
	}
	if got := counterValue(t, families, "secutil_http_requests_total", "route", "GET /health", "status", "200"); got != 1 {
		t.Fatalf("health requests: got %v, want 1", got)
	}
}

// TestMetricsRouteBehindAProxy: a request from a trusted proxy is routed
// as a copy carrying the client's address; it is counted under its route
// all the same.
func TestMetricsRouteBehindAProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		d.MetricsToken = metricsToken
		d.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")} // the test requests' peer
	})
	e.request("GET", "/health", nil, "X-Forwarded-For", "203.0.113.7").want(200)
	families := scrape(t, e)
	if got := counterValue(t, families, "secutil_http_requests_total", "route", "GET /health", "status", "200"); got != 1 {
		t.Fatalf("proxied /health counted %v times under its route, want 1", got)
	}
}

// TestMetricsPassPromtool: the exposition, with every family written,
// passes Prometheus's own linter, promtool check metrics (Debian package
// prometheus): names, types, suffixes, help.
func TestMetricsPassPromtool(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian package prometheus)")
	}
	e := newEnv(t, func(d *server.Deps) {
		d.MetricsToken = metricsToken
		d.Range = server.RangeAPI{SHA1: pwnedFile(t, breach.KindSHA1), Access: server.RangePublic}
	})
	key := e.key("ann@example.com", store.PlanPro)
	e.post("/api/v1/base64", map[string]string{"text": "hi", "option": "encode"}, "X-API-Key", key).want(200)
	e.post("/api/v1/secure_encrypt", map[string]string{"text": "hi", "password": "a long enough password"}, "X-API-Key", key).want(200)
	e.request("GET", "/range/5BAA6", nil).want(200)
	exposition := e.request("GET", "/metrics", nil, "Authorization", "Bearer "+metricsToken).want(200).body
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = bytes.NewReader(exposition)
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}
