package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"secutil/store"
)

// loadBody is the request of the load comparison: a small base64 encode.
const loadBody = `{"text":"The quick brown fox jumps over the lazy dog","option":"encode"}`

// bareBase64 is the yardstick: a plain net/http handler doing the same JSON
// work as /api/v1/base64, with no authentication, metering or middleware.
func bareBase64(w http.ResponseWriter, r *http.Request) {
	var req struct{ Text, Option string }
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"answer": base64.StdEncoding.EncodeToString([]byte(req.Text)), "error": nil})
}

type loadResult struct {
	requests int
	perSec   float64
	p50, p99 time.Duration
}

func (r loadResult) String() string {
	return fmt.Sprintf("%8.0f req/s  p50 %-9v p99 %-9v (%d requests)", r.perSec, r.p50, r.p99, r.requests)
}

// drive sends POSTs from clients goroutines over keep-alive connections for
// d and measures throughput and latency. Every answer must be 200.
func drive(t *testing.T, url, key string, clients int, d time.Duration) loadResult {
	t.Helper()
	transport := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  int
		wg        sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(loadBody)))
				req.Header.Set("Content-Type", "application/json")
				if key != "" {
					req.Header.Set("X-API-Key", key)
				}
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					bad++
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					bad++
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			failures += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failures > 0 {
		t.Fatalf("%d requests failed", failures)
	}
	slices.Sort(latencies)
	return loadResult{
		requests: len(latencies),
		perSec:   float64(len(latencies)) / elapsed.Seconds(),
		p50:      latencies[len(latencies)/2],
		p99:      latencies[len(latencies)*99/100],
	}
}

// TestLoadMeteredVsBare is the load comparison of issue 8: metered
// POST /api/v1/base64 (key auth, quota, durable count before the answer)
// against a bare handler doing the same JSON work, in one run. It is a
// measurement, not a unit test: run it with the command in the README (Testing).
func TestLoadMeteredVsBare(t *testing.T) {
	if os.Getenv("SECUTIL_LOAD") == "" {
		t.Skip("load comparison: SECUTIL_LOAD=1 go test -run TestLoadMeteredVsBare -v ./server")
	}
	clients := envInt("SECUTIL_LOAD_CLIENTS", 32)
	d := time.Duration(envInt("SECUTIL_LOAD_SECONDS", 5)) * time.Second

	bare := httptest.NewServer(http.HandlerFunc(bareBase64))
	defer bare.Close()
	e := newEnv(t, quietLogs)
	key := e.key("load@example.com", store.PlanPro)
	metered := httptest.NewServer(e.h)
	defer metered.Close()

	drive(t, bare.URL, "", clients, time.Second) // warm up both
	drive(t, metered.URL+"/api/v1/base64", key, clients, time.Second)
	// Interleaved rounds, so a burst of other work on the machine hits both
	// sides alike; the median ratio is the figure.
	rounds := envInt("SECUTIL_LOAD_ROUNDS", 3)
	var ratios []float64
	acknowledged := 0
	for round := 1; round <= rounds; round++ {
		b := drive(t, bare.URL, "", clients, d)
		m := drive(t, metered.URL+"/api/v1/base64", key, clients, d)
		acknowledged += m.requests
		ratios = append(ratios, m.perSec/b.perSec)
		fmt.Printf("round %d\n  bare    %v\n  metered %v\n  ratio   %.2f\n", round, b, m, m.perSec/b.perSec)
	}
	a, _ := e.store.AccountByEmail(t.Context(), "load@example.com")
	if got := e.usage(a.ID); got < acknowledged {
		t.Fatalf("usage %d is below the %d acknowledged calls", got, acknowledged)
	}
	slices.Sort(ratios)
	ratio := ratios[len(ratios)/2]
	fmt.Printf("clients %d, %d rounds of %v each: median ratio %.2f (metered / bare)\n", clients, rounds, d, ratio)
	if min := 0.7; ratio < min {
		t.Errorf("metered throughput is %.2f of bare, want ≥ %.2f", ratio, min)
	}
}

func envInt(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return fallback
}
