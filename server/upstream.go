package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Limits on a call to an upstream secutil.
const (
	// UpstreamTimeout bounds one upstream call when the context has no earlier deadline.
	UpstreamTimeout = 5 * time.Second
	// MaxUpstreamResponseBytes bounds the upstream response body read.
	MaxUpstreamResponseBytes = 4 << 20
)

// Upstream is another secutil whose public hash_lookup_site endpoint answers the hashes
// this index misses. Client nil means http.DefaultClient.
type Upstream struct {
	BaseURL string
	Client  *http.Client
}

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
// in the shape this server answers /hash_lookup_site with.
func (u *Upstream) Lookup(ctx context.Context, hashes []string) ([]hashResult, error) {
	ctx, cancel := context.WithTimeout(ctx, UpstreamTimeout)
	defer cancel()
	body, err := json.Marshal(map[string]string{"hashes": strings.Join(hashes, "\n")})
	if err != nil {
		return nil, &UpstreamError{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		strings.TrimSuffix(u.BaseURL, "/")+"/api/v1/hash_lookup_site", bytes.NewReader(body))
	if err != nil {
		return nil, &UpstreamError{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	client := u.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, &UpstreamError{Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("want 200")}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxUpstreamResponseBytes+1))
	if err != nil {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Err: err}
	}
	if len(data) > MaxUpstreamResponseBytes {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("response larger than %d bytes", MaxUpstreamResponseBytes)}
	}
	var out hashLookupOutput
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("malformed response: %w", err)}
	}
	if out.Results == nil {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Err: fmt.Errorf("malformed response: no results")}
	}
	return out.Results, nil
}
