package server

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"secutil/server/internal/promtext"
	"secutil/server/internal/runtimestats"
	"secutil/store"
	"secutil/tools/breach"
)

// Metrics holds what GET /metrics exposes, in the Prometheus text
// exposition format (README: Metrics), which package promtext writes:
// secutil's own families, and the process's and the Go runtime's
// (runtimestats). The
// binary makes one, hands it to New in Deps.Metrics and may also serve it
// on its own listener (-metrics-addr) with ServeHTTP; New makes one when
// none is given. Recording is a few atomic adds, cheap enough for every
// request.
type Metrics struct {
	routes     sync.Map // route pattern -> *routeMetrics
	metered    sync.Map // plan -> *atomic.Uint64
	items      sync.Map // plan -> *atomic.Uint64: the items of the metered calls
	refused    sync.Map // plan -> *atomic.Uint64
	kdfWait    *promtext.Histogram
	batchSize  *promtext.Histogram
	commitTime *promtext.Histogram
	// conns are the open connections (net.Conn -> *atomic.Uint32 of
	// connStarted and connBusy); recentConns counts those in use
	// (activeConnections).
	conns       sync.Map
	recentConns atomic.Int64
	lastCount   atomic.Int64 // when recentConns was counted, in Unix nanoseconds
	// refusals counts what the byte budgets refused, by budget and reason.
	refusals [len(budgetLabels)][len(refusalLabels)]atomic.Uint64
	// gauges writes the figures read at scrape time (database, data files);
	// New sets it.
	gauges atomic.Pointer[func(context.Context, *promtext.Writer)]
}

// routeMetrics are one route's figures: its latencies, and its answers by
// status, the usual statuses in an array (an atomic add, no lookup) and
// the rest in a map.
type routeMetrics struct {
	latency *promtext.Histogram
	usual   [len(usualStatuses)]atomic.Uint64
	other   sync.Map // status -> *atomic.Uint64
}

// usualStatuses are the statuses counted without a map lookup.
var usualStatuses = [...]int{200, 201, 204, 301, 302, 303, 304, 400, 401, 403, 404, 405, 409, 413, 415, 421, 422, 429, 500, 503}

// usualSlot maps a status below 600 to its slot in usualStatuses, plus 1;
// 0 for the others.
var usualSlot = func() (slots [600]uint8) {
	for i, status := range usualStatuses {
		slots[status] = uint8(i + 1)
	}
	return slots
}()

func (rm *routeMetrics) count(status int) {
	if status >= 0 && status < len(usualSlot) && usualSlot[status] != 0 {
		rm.usual[usualSlot[status]-1].Add(1)
		return
	}
	counter(&rm.other, status).Add(1)
}

type statusCount struct {
	status int
	count  uint64
}

// statuses are the route's counts by status, in order of status; a status
// never answered has none.
func (rm *routeMetrics) statuses() []statusCount {
	var out []statusCount
	for i, status := range usualStatuses {
		if n := rm.usual[i].Load(); n > 0 {
			out = append(out, statusCount{status, n})
		}
	}
	rm.other.Range(func(status, n any) bool {
		out = append(out, statusCount{status.(int), n.(*atomic.Uint64).Load()})
		return true
	})
	slices.SortFunc(out, func(a, b statusCount) int { return a.status - b.status })
	return out
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
		kdfWait:    promtext.NewHistogram(waitBuckets),
		batchSize:  promtext.NewHistogram(batchBuckets),
		commitTime: promtext.NewHistogram(latencyBuckets),
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
	rm, ok := m.routes.Load(pattern)
	if !ok {
		rm, _ = m.routes.LoadOrStore(pattern, &routeMetrics{latency: promtext.NewHistogram(latencyBuckets)})
	}
	rm.(*routeMetrics).count(status)
	rm.(*routeMetrics).latency.Observe(took.Seconds())
}

// meteredCall records a counted utility call of items items (a batch's,
// or one); refusedCall one refused with 429 because the plan's cap was
// used up, or had fewer items left than a batch has.
func (m *Metrics) meteredCall(plan string, items int) {
	counter(&m.metered, plan).Add(1)
	counter(&m.items, plan).Add(uint64(items))
}
func (m *Metrics) refusedCall(plan string) { counter(&m.refused, plan).Add(1) }

// The byte budgets (decode.go, respond.go), and the reasons they refuse
// (refusal), as the metrics label them.
type budgetName uint8

const (
	budgetBodies budgetName = iota
	budgetAnswers
)

var (
	budgetLabels  = [...]string{budgetBodies: "request_bodies", budgetAnswers: "answers"}
	refusalLabels = [...]string{refusedFull: "full", refusedShare: "share", refusedSlow: "slow"}
)

// budgetRefused records a request body or an answer that a budget refused
// (503 busy), or a body cut for its pace (400).
func (m *Metrics) budgetRefused(b budgetName, why refusal) { m.refusals[b][why].Add(1) }

func (m *Metrics) kdfWaited(d time.Duration) { m.kdfWait.Observe(d.Seconds()) }

func (m *Metrics) meterCommitted(charges int, took time.Duration) {
	m.batchSize.Observe(float64(charges))
	m.commitTime.Observe(took.Seconds())
}

// ConnState keeps the open client connections, and marks those a request
// starts on; set it as the http.Server's ConnState.
func (m *Metrics) ConnState(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		m.conns.Store(c, new(atomic.Uint32))
	case http.StateActive:
		if use, ok := m.conns.Load(c); ok {
			use.(*atomic.Uint32).Or(connStarted | connBusy)
		}
	case http.StateIdle:
		if use, ok := m.conns.Load(c); ok {
			use.(*atomic.Uint32).And(^uint32(connBusy))
		}
	case http.StateClosed, http.StateHijacked:
		m.conns.Delete(c)
	}
}

// A connection's use: a request started on it since the last count, and
// it is serving one now. HTTP/2 reports a connection active once for a
// whole busy spell, however many requests it carries, so a connection
// busy through a count is in use too.
const (
	connStarted = 1 << iota
	connBusy
)

// activeCountEvery is how often activeConnections counts again.
const activeCountEvery = 100 * time.Millisecond

// activeConnections is the number of client connections that started a
// request in the last activeCountEvery or so, or are serving one: the
// clients that may be waiting for the meter, where a pool of idle
// keep-alive connections counts only the few it uses. It counts again, and
// clears the marks, when its count is older than activeCountEvery.
func (m *Metrics) activeConnections() int {
	now := time.Now().UnixNano()
	last := m.lastCount.Load()
	if now-last >= int64(activeCountEvery) && m.lastCount.CompareAndSwap(last, now) {
		n := 0
		m.conns.Range(func(_, use any) bool {
			if use.(*atomic.Uint32).And(^uint32(connStarted)) != 0 {
				n++
			}
			return true
		})
		m.recentConns.Store(int64(n))
	}
	return int(m.recentConns.Load())
}

func counter[K comparable](set *sync.Map, key K) *atomic.Uint64 {
	c, ok := set.Load(key)
	if !ok {
		c, _ = set.LoadOrStore(key, new(atomic.Uint64))
	}
	return c.(*atomic.Uint64)
}

// ServeHTTP writes every metric, without asking for credentials: the
// binary serves it on -metrics-addr, and GET /metrics checks the token first.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	e := &promtext.Writer{}
	m.write(ctx, e)
	w.Header().Set("Content-Type", promtext.ContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(e.Bytes())
}

func (m *Metrics) write(ctx context.Context, e *promtext.Writer) {
	e.Family("secutil_http_requests_total", "counter", "Requests answered, by route pattern and status code (route \"unmatched\": no route served it).")
	routes := sortedEntries[string](&m.routes, strings.Compare)
	for _, route := range routes {
		for _, st := range route.value.(*routeMetrics).statuses() {
			e.Sample("secutil_http_requests_total", float64(st.count), "route", route.key, "status", strconv.Itoa(st.status))
		}
	}
	e.Family("secutil_http_request_duration_seconds", "histogram", "Time from a request's arrival to the end of its handler, by route pattern.")
	for _, route := range routes {
		e.Histogram("secutil_http_request_duration_seconds", route.value.(*routeMetrics).latency, "route", route.key)
	}
	e.Family("secutil_http_open_connections", "gauge", "Client connections open now.")
	open := 0
	m.conns.Range(func(_, _ any) bool { open++; return true })
	e.Sample("secutil_http_open_connections", float64(open))

	e.Family("secutil_metered_calls_total", "counter", "Utility calls counted toward usage, by the caller's plan.")
	for _, kv := range sortedEntries[string](&m.metered, strings.Compare) {
		e.Sample("secutil_metered_calls_total", float64(kv.value.(*atomic.Uint64).Load()), "plan", kv.key)
	}
	e.Family("secutil_metered_items_total", "counter", "Items counted toward usage (a call is one item, a batch as many as it holds), by the caller's plan: the unit of the monthly caps.")
	for _, kv := range sortedEntries[string](&m.items, strings.Compare) {
		e.Sample("secutil_metered_items_total", float64(kv.value.(*atomic.Uint64).Load()), "plan", kv.key)
	}
	e.Family("secutil_metered_refusals_total", "counter", "Utility calls refused with 429 because the plan's monthly cap was used up, or had fewer items left than a batch holds, by plan.")
	for _, kv := range sortedEntries[string](&m.refused, strings.Compare) {
		e.Sample("secutil_metered_refusals_total", float64(kv.value.(*atomic.Uint64).Load()), "plan", kv.key)
	}
	e.Family("secutil_budget_refusals_total", "counter", "Request bodies and utility answers refused (503 busy) because the server's budget of their bytes was full, or the client's or account's share of it; and request bodies cut (400) for arriving too slowly. By budget and reason.")
	for b, budget := range budgetLabels {
		for why, reason := range refusalLabels {
			if reason != "" && (refusal(why) != refusedSlow || budgetName(b) == budgetBodies) {
				e.Sample("secutil_budget_refusals_total", float64(m.refusals[b][why].Load()), "budget", budget, "reason", reason)
			}
		}
	}
	e.Family("secutil_kdf_wait_seconds", "histogram", "Time an argon2id key derivation waited for a free slot of the KDF semaphore.")
	e.Histogram("secutil_kdf_wait_seconds", m.kdfWait)
	e.Family("secutil_meter_batch_size", "histogram", "Usage charges committed together in one transaction.")
	e.Histogram("secutil_meter_batch_size", m.batchSize)
	e.Family("secutil_meter_commit_seconds", "histogram", "Time one usage transaction took to commit.")
	e.Histogram("secutil_meter_commit_seconds", m.commitTime)

	if gauges := m.gauges.Load(); gauges != nil {
		(*gauges)(ctx, e)
	}
	runtimestats.Write(e)
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
	s.Store.SetClients(s.Metrics.activeConnections)
}

// scrapeGauges writes the figures read when scraped: the build, the
// database's size and connections, and how current the data files are.
func (s *Server) scrapeGauges(ctx context.Context, e *promtext.Writer) {
	e.Family("secutil_build_info", "gauge", "Always 1; the labels name the running build.")
	e.Sample("secutil_build_info", 1, "version", s.Version, "goversion", runtime.Version())

	if st, err := s.Store.Stats(ctx); err != nil {
		s.Logger.Error("metrics: reading database figures", "err", err)
	} else {
		postgres := s.Store.Backend() == store.Postgres
		if postgres {
			e.Family("secutil_db_size_bytes", "gauge", "Size of the PostgreSQL database (pg_database_size).")
		} else {
			e.Family("secutil_db_size_bytes", "gauge", "Size of the SQLite database file (pages in use times page size; the WAL not included).")
		}
		e.Sample("secutil_db_size_bytes", float64(st.SizeBytes))
		if !postgres {
			e.Family("secutil_db_wal_bytes", "gauge", "Size of the SQLite write-ahead log file; the checkpoints restart the log past 32 MiB and cut the file to 48 MiB.")
			e.Sample("secutil_db_wal_bytes", float64(st.WALBytes))
		}
		e.Family("secutil_db_open_connections", "gauge", "Open database connections, by pool (SQLite: read and write; PostgreSQL: its one pool, shared).")
		if postgres { // one pool serves reads and writes: reported once, so a sum counts it once
			e.Sample("secutil_db_open_connections", float64(st.WriteConnections), "pool", "shared")
		} else {
			e.Sample("secutil_db_open_connections", float64(st.ReadConnections), "pool", "read")
			e.Sample("secutil_db_open_connections", float64(st.WriteConnections), "pool", "write")
		}
	}

	e.Family("secutil_budget_used_bytes", "gauge", "Bytes held now of the server's budgets: request bodies being read, and large utility answers being written.")
	e.Sample("secutil_budget_used_bytes", float64(s.bodies.inUse()), "budget", budgetLabels[budgetBodies])
	e.Sample("secutil_budget_used_bytes", float64(s.answers.inUse()), "budget", budgetLabels[budgetAnswers])
	e.Family("secutil_budget_limit_bytes", "gauge", "The size of each of the server's budgets.")
	e.Sample("secutil_budget_limit_bytes", float64(s.bodies.limit), "budget", budgetLabels[budgetBodies])
	e.Sample("secutil_budget_limit_bytes", float64(s.answers.limit), "budget", budgetLabels[budgetAnswers])

	e.Family("secutil_geoip_build_timestamp_seconds", "gauge", "When each GeoIP database in use was built (its metadata), in Unix seconds, by role.")
	for _, db := range s.Geo.Databases() {
		e.Sample("secutil_geoip_build_timestamp_seconds", float64(db.Built.Unix()), "database", db.Role)
	}
	e.Family("secutil_breach_file_timestamp_seconds", "gauge", "Modification time of each Pwned Passwords file served (when it was downloaded), in Unix seconds.")
	for _, f := range []struct {
		kind string
		file *breach.File
	}{{"sha1", s.Range.SHA1}, {"ntlm", s.Range.NTLM}} {
		if f.file != nil {
			e.Sample("secutil_breach_file_timestamp_seconds", float64(f.file.ModTime().Unix()), "kind", f.kind)
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
