package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestUpstreamLookup(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/hash_lookup_site" {
			http.Error(w, "wrong route", http.StatusNotFound)
			return
		}
		var body struct{ Hashes string }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Hashes != "aa\nbb" {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{"results":[{"hash":"aa","plaintext":"pw","type":"md5","found":true},
			{"hash":"bb","plaintext":null,"type":null,"found":false}],
			"summary":{"total_searched":2,"total_found":1,"success_rate":50}}`))
	}))
	defer srv.Close()
	u := &Upstream{BaseURL: srv.URL + "/", Client: srv.Client()}
	hits, err := u.Lookup(context.Background(), []string{"aa", "bb"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Hash != "aa" || !hits[0].Found || *hits[0].Plaintext != "pw" || *hits[0].Type != "md5" ||
		hits[1].Hash != "bb" || hits[1].Found || hits[1].Plaintext != nil {
		t.Fatalf("got %+v", hits)
	}
}

func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus int
	}{
		// Each call has 10 seconds (writing 4 MB takes a while on a busy
		// machine under the race detector); "slow" waits out its 200 ms.
		{"server error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, 500},
		{"garbage", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }, 200},
		{"no results", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }, 200},
		{"oversized", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"results":[` + strings.Repeat(" ", MaxUpstreamResponseBytes) + `]}`))
		}, 200},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // the server notices a client hang-up only once the body is read
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			timeout := 10 * time.Second
			if tc.wantStatus == 0 {
				timeout = 200 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			u := &Upstream{BaseURL: srv.URL, Client: srv.Client()}
			_, err := u.Lookup(ctx, []string{"aa"})
			var upstreamErr *UpstreamError
			if !errors.As(err, &upstreamErr) {
				t.Fatalf("got %v, want *UpstreamError", err)
			}
			if got, want := upstreamErr.StatusCode, tc.wantStatus; got != want {
				t.Fatalf("status: got %d, want %d", got, want)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		u := &Upstream{BaseURL: srv.URL}
		var upstreamErr *UpstreamError
		if _, err := u.Lookup(context.Background(), []string{"aa"}); !errors.As(err, &upstreamErr) {
			t.Fatalf("got %v, want *UpstreamError", err)
		}
	})
}

// TestUpstreamLookupInCalls: a batch larger than the upstream's default
// limit (this server's -hash-lookup-batch raised) is asked in calls the
// upstream takes, and the answers come back whole and in order.
func TestUpstreamLookupInCalls(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Hashes string }
		json.NewDecoder(r.Body).Decode(&body)
		hashes := strings.Split(body.Hashes, "\n")
		mu.Lock()
		calls = append(calls, len(hashes))
		mu.Unlock()
		if len(hashes) > DefaultHashLookupBatch {
			http.Error(w, "too many", http.StatusBadRequest)
			return
		}
		out := hashLookupOutput{Results: []hashResult{}}
		for _, h := range hashes {
			out.Results = append(out.Results, hashResult{Hash: h})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	hashes := make([]string, 2*DefaultHashLookupBatch+1)
	for i := range hashes {
		hashes[i] = fmt.Sprintf("%032x", i)
	}
	u := &Upstream{BaseURL: srv.URL, Client: srv.Client()}
	hits, err := u.Lookup(context.Background(), hashes)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []int{DefaultHashLookupBatch, DefaultHashLookupBatch, 1}; !slices.Equal(calls, want) {
		t.Errorf("calls of %v hashes, want %v", calls, want)
	}
	if len(hits) != len(hashes) || hits[0].Hash != hashes[0] || hits[len(hits)-1].Hash != hashes[len(hashes)-1] {
		t.Errorf("%d results, want %d in the order asked", len(hits), len(hashes))
	}
}
