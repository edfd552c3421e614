package server

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"net"
	"net/http"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"secutil/tools/breach"
)

// Metrics holds what GET /metrics exposes, in the Prometheus text
// exposition format (README: Metrics). The binary makes one, hands it to
// New in Deps.Metrics and may also serve it on its own listener
// (-metrics-addr) with ServeHTTP; New makes one when none is given.
// Recording is a few atomic adds, cheap enough for every request.
type Metrics struct {
	requests   sync.Map // routeStatus -> *atomic.Uint64
	latencies  sync.Map // route -> *histogram
	metered    sync.Map // plan -> *atomic.Uint64
	refused    sync.Map // plan -> *atomic.Uint64
	kdfWait    *histogram
	batchSize  *histogram
	commitTime *histogram
	openConns  atomic.Int64
	// gauges writes the figures read at scrape time (database, data files);
	// New sets it.
	gauges atomic.Pointer[func(context.Context, *exposition)]
}

type routeStatus struct {
	route  string
	status int
}

// Histogram buckets, in seconds or (batch size) charges.
var (
	latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
	waitBuckets    = []float64{0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
	batchBuckets   = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
)

// NewMetrics returns an empty set of metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		kdfWait:    newHistogram(waitBuckets),
		batchSize:  newHistogram(batchBuckets),
		commitTime: newHistogram(latencyBuckets),
	}
}

// unmatchedRoute labels requests no route pattern served: unknown paths,
// wrong methods and cross-origin posts refused before routing. Labelling
// them by path would let anyone grow the metrics without bound.
const unmatchedRoute = "unmatched"

// request records one answered request under its route pattern.
func (m *Metrics) request(pattern string, status int, took time.Duration) {
	if pattern == "" || pattern == "/" {
		pattern = unmatchedRoute
	}
	counter(&m.requests, routeStatus{pattern, status}).Add(1)
	h, ok := m.latencies.Load(pattern)
	if !ok {
		h, _ = m.latencies.LoadOrStore(pattern, newHistogram(latencyBuckets))
	}
	h.(*histogram).observe(took.Seconds())
}

// meteredCall records a counted utility call; refusedCall one refused with
// 429 because the plan's cap was used up.
func (m *Metrics) meteredCall(plan string) { counter(&m.metered, plan).Add(1) }
func (m *Metrics) refusedCall(plan string) { counter(&m.refused, plan).Add(1) }

func (m *Metrics) kdfWaited(d time.Duration) { m.kdfWait.observe(d.Seconds()) }

func (m *Metrics) meterCommitted(charges int, took time.Duration) {
	m.batchSize.observe(float64(charges))
	m.commitTime.observe(took.Seconds())
}

// ConnState counts open client connections; set it as the http.Server's
// ConnState.
func (m *Metrics) ConnState(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		m.openConns.Add(1)
	case http.StateClosed, http.StateHijacked:
		m.openConns.Add(-1)
	}
}

// openConnections is the number of open client connections.
func (m *Metrics) openConnections() int { return int(m.openConns.Load()) }

func counter[K comparable](set *sync.Map, key K) *atomic.Uint64 {
	c, ok := set.Load(key)
	if !ok {
		c, _ = set.LoadOrStore(key, new(atomic.Uint64))
	}
	return c.(*atomic.Uint64)
}

// histogram counts observations into cumulative-style buckets.
type histogram struct {
	bounds []float64       // upper bounds, ascending
	counts []atomic.Uint64 // one per bound, then one for +Inf; not cumulative
	sum    atomic.Uint64   // float64 bits
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	h.counts[sort.SearchFloat64s(h.bounds, v)].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// metricsContentType is the text exposition format's media type.
const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP writes every metric, without asking for credentials: the
// binary serves it on -metrics-addr, and GET /metrics checks the token first.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	e := &exposition{}
	m.write(ctx, e)
	w.Header().Set("Content-Type", metricsContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(e.buf.Bytes())
}

func (m *Metrics) write(ctx context.Context, e *exposition) {
	e.family("secutil_http_requests_total", "counter", "Requests answered, by route pattern and status code (route \"unmatched\": no route served it).")
	for _, kv := range sortedEntries[routeStatus](&m.requests, func(a, b routeStatus) int {
		return cmp.Or(strings.Compare(a.route, b.route), a.status-b.status)
	}) {
		e.sample("secutil_http_requests_total", float64(kv.value.(*atomic.Uint64).Load()), "route", kv.key.route, "status", strconv.Itoa(kv.key.status))
	}
	e.family("secutil_http_request_duration_seconds", "histogram", "Time from a request's arrival to the end of its handler, by route pattern.")
	for _, kv := range sortedEntries[string](&m.latencies, strings.Compare) {
		e.histogram("secutil_http_request_duration_seconds", kv.value.(*histogram), "route", kv.key)
	}
	e.family("secutil_http_open_connections", "gauge", "Client connections open now.")
	e.sample("secutil_http_open_connections", float64(m.openConns.Load()))

	e.family("secutil_metered_calls_total", "counter", "Utility calls counted toward usage, by the caller's plan.")
	for _, kv := range sortedEntries[string](&m.metered, strings.Compare) {
		e.sample("secutil_metered_calls_total", float64(kv.value.(*atomic.Uint64).Load()), "plan", kv.key)
	}
	e.family("secutil_metered_refusals_total", "counter", "Utility calls refused with 429 because the plan's monthly cap was used up, by plan.")
	for _, kv := range sortedEntries[string](&m.refused, strings.Compare) {
		e.sample("secutil_metered_refusals_total", float64(kv.value.(*atomic.Uint64).Load()), "plan", kv.key)
	}
	e.family("secutil_kdf_wait_seconds", "histogram", "Time an argon2id key derivation waited for a free slot of the KDF semaphore.")
	e.histogram("secutil_kdf_wait_seconds", m.kdfWait)
	e.family("secutil_meter_batch_size", "histogram", "Usage charges committed together in one transaction.")
	e.histogram("secutil_meter_batch_size", m.batchSize)
	e.family("secutil_meter_commit_seconds", "histogram", "Time one usage transaction took to commit.")
	e.histogram("secutil_meter_commit_seconds", m.commitTime)

	if gauges := m.gauges.Load(); gauges != nil {
		(*gauges)(ctx, e)
	}
}

type mapEntry[K any] struct {
	key   K
	value any
}

func sortedEntries[K any](set *sync.Map, compare func(a, b K) int) []mapEntry[K] {
	var out []mapEntry[K]
	set.Range(func(k, v any) bool {
		out = append(out, mapEntry[K]{k.(K), v})
		return true
	})
	slices.SortFunc(out, func(a, b mapEntry[K]) int { return compare(a.key, b.key) })
	return out
}

// observe connects the metrics to the parts that report to them.
func (s *Server) observe() {
	gauges := s.scrapeGauges
	s.Metrics.gauges.Store(&gauges)
	s.Crypto.ObserveWait(s.Metrics.kdfWaited)
	s.Store.ObserveMeter(s.Metrics.meterCommitted)
	s.Store.SetClients(s.Metrics.openConnections)
}

// scrapeGauges writes the figures read when scraped: the build, the
// database's size and connections, and how current the data files are.
func (s *Server) scrapeGauges(ctx context.Context, e *exposition) {
	e.family("secutil_build_info", "gauge", "Always 1; the labels name the running build.")
	e.sample("secutil_build_info", 1, "version", s.Version, "goversion", runtime.Version())

	if st, err := s.Store.Stats(ctx); err != nil {
		s.Logger.Error("metrics: reading database figures", "err", err)
	} else {
		e.family("secutil_db_size_bytes", "gauge", "Size of the SQLite database file (pages in use times page size; the WAL not included).")
		e.sample("secutil_db_size_bytes", float64(st.SizeBytes))
		e.family("secutil_db_open_connections", "gauge", "Open database connections, by pool.")
		e.sample("secutil_db_open_connections", float64(st.ReadConnections), "pool", "read")
		e.sample("secutil_db_open_connections", float64(st.WriteConnections), "pool", "write")
	}

	e.family("secutil_geoip_build_timestamp_seconds", "gauge", "When each GeoIP database in use was built (its metadata), in Unix seconds, by role.")
	for _, db := range s.Geo.Databases() {
		e.sample("secutil_geoip_build_timestamp_seconds", float64(db.Built.Unix()), "database", db.Role)
	}
	e.family("secutil_breach_file_timestamp_seconds", "gauge", "Modification time of each Pwned Passwords file served (when it was downloaded), in Unix seconds.")
	for _, f := range []struct {
		kind string
		file *breach.File
	}{{"sha1", s.Range.SHA1}, {"ntlm", s.Range.NTLM}} {
		if f.file != nil {
			e.sample("secutil_breach_file_timestamp_seconds", float64(f.file.ModTime().Unix()), "kind", f.kind)
		}
	}
}

// handleMetrics serves GET /metrics on the main listener, to holders of
// -metrics-token only; -metrics-addr serves the same without a token.
func (s *Server) handleMetrics() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.MetricsToken == "" {
			s.writeError(w, r, newError(codeMetricsOff,
				"metrics are not served here: start secutil with -metrics-token (then send Authorization: Bearer <token>) or scrape -metrics-addr"))
			return
		}
		token, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !bearer || !secretMatches(token, s.MetricsToken) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			s.writeError(w, r, newError(codeUnauthorized, "metrics need the header Authorization: Bearer <metrics token>"))
			return
		}
		s.Metrics.ServeHTTP(w, r)
	})
}

// exposition builds the text format: a family's HELP and TYPE lines, then
// its samples.
type exposition struct{ buf bytes.Buffer }

func (e *exposition) family(name, typ, help string) {
	e.buf.WriteString("# HELP " + name + " " + helpEscaper.Replace(help) + "\n")
	e.buf.WriteString("# TYPE " + name + " " + typ + "\n")
}

// sample writes one line; labels are name, value pairs.
func (e *exposition) sample(name string, value float64, labels ...string) {
	e.buf.WriteString(name)
	if len(labels) > 0 {
		e.buf.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.buf.WriteString(labels[i] + `="` + labelEscaper.Replace(labels[i+1]) + `"`)
		}
		e.buf.WriteByte('}')
	}
	e.buf.WriteByte(' ')
	e.buf.WriteString(formatValue(value))
	e.buf.WriteByte('\n')
}

// histogram writes a histogram's cumulative buckets, sum and count.
func (e *exposition) histogram(name string, h *histogram, labels ...string) {
	var cumulative uint64
	for i := range h.counts {
		cumulative += h.counts[i].Load()
		le := "+Inf"
		if i < len(h.bounds) {
			le = formatValue(h.bounds[i])
		}
		e.sample(name+"_bucket", float64(cumulative), append(slices.Clip(labels), "le", le)...)
	}
	e.sample(name+"_sum", math.Float64frombits(h.sum.Load()), labels...)
	e.sample(name+"_count", float64(cumulative), labels...)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
)

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatInt(int64(v), 10)
	default:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
}
