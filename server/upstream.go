package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"secutil/server/internal/breaker"
)

// Limits on a call to an upstream secutil.
const (
	// UpstreamTimeout bounds one upstream call when the context has no earlier deadline.
	UpstreamTimeout = 5 * time.Second
	// MaxUpstreamResponseBytes bounds the upstream response body read.
	MaxUpstreamResponseBytes = 4 << 20
)

// Upstream is another secutil whose public hash_lookup_site endpoint answers the hashes
// this index misses. Client nil means http.DefaultClient. A circuit breaker
// (server/internal/breaker) stops asking it while it fails, so a broken or
// rate-limiting upstream costs callers no time.
type Upstream struct {
	BaseURL string
	Client  *http.Client
	circuit breaker.Breaker
}

// errCircuitOpen is the failure of a call the breaker did not let through.
var errCircuitOpen = errors.New("not asked: it failed repeatedly and is resting")

// UpstreamError is any failure to get a well-formed answer from the upstream
// (transport error, non-200 status, malformed or oversized body); servers map it to 502.
type UpstreamError struct {
	StatusCode int // 0 when no response arrived
	Err        error
}

func (e *UpstreamError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("hash lookup upstream answered %d: %v", e.StatusCode, e.Err)
	}
	return fmt.Sprintf("hash lookup upstream failed: %v", e.Err)
}

func (e *UpstreamError) Unwrap() error { return e.Err }

// Lookup asks the upstream for hashes and returns the results it sent back,
// in the shape this server answers /hash_lookup_site with. While the
// breaker is open it fails at once without asking.
func (u *Upstream) Lookup(ctx context.Context, hashes []string) ([]hashResult, error) {
	if !u.circuit.Allow(time.Now()) {
		return nil, &UpstreamError{Err: errCircuitOpen}
	}
	results, rest, err := u.lookupInCalls(ctx, hashes)
	if err != nil && ctx.Err() != nil {
		u.circuit.Release() // the caller left; the upstream may be fine
	} else {
		u.circuit.Record(err, rest, time.Now())
	}
	return results, err
}

// lookupInCalls asks for hashes in calls of DefaultHashLookupBatch, the
// batch the upstream's /hash_lookup_site takes unless its operator raised
// it: this server's own batch may be larger (Deps.HashLookupBatch), and a
// call the upstream refused as too large would count as its failure.
func (u *Upstream) lookupInCalls(ctx context.Context, hashes []string) ([]hashResult, time.Duration, error) {
	var results []hashResult
	for chunk := range slices.Chunk(hashes, DefaultHashLookupBatch) {
		found, rest, err := u.lookup(ctx, chunk)
		if err != nil {
			return nil, rest, err
		}
		results = append(results, found...)
	}
	return results, 0, nil
}

// lookup makes one call. On a 429 it also returns the Retry-After asked for.
func (u *Upstream) lookup(parent context.Context, hashes []string) ([]hashResult, time.Duration, error) {
	ctx, cancel := context.WithTimeout(parent, UpstreamTimeout)
	defer cancel()
	body, err := json.Marshal(map[string]string{"hashes": strings.Join(hashes, "\n")})
	if err != nil {
		return nil, 0, &UpstreamError{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		strings.TrimSuffix(u.BaseURL, "/")+"/api/v1/hash_lookup_site", bytes.NewReader(body))
	if err != nil {
		return nil, 0, &UpstreamError{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	client := u.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, &UpstreamError{Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var rest time.Duration
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && resp.StatusCode == http.StatusTooManyRequests {
			rest = time.Duration(max(secs, 1)) * time.Second
		}
		return nil, rest, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("want 200")}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxUpstreamResponseBytes+1))
	if err != nil {
		return nil, 0, &UpstreamError{StatusCode: resp.StatusCode, Err: err}
	}
	if len(data) > MaxUpstreamResponseBytes {
		return nil, 0, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("response larger than %d bytes", MaxUpstreamResponseBytes)}
	}
	var out hashLookupOutput
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, 0, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("malformed response: %w", err)}
	}
	if out.Results == nil {
		return nil, 0, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("malformed response: no results")}
	}
	return out.Results, 0, nil
}
