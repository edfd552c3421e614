// Command clientcheck calls a secutil server through the Go client that
// oapi-codegen, with its default configuration, generates from
// static/openapi.json into ./secutil (server/openapi_clients_test.go
// generates it, builds this and runs it): the health check at the root, a
// utility under /api/v1 with an API key and without one, and a range of
// the Pwned Passwords API at the root. It prints what each call answered,
// as the client decoded it, in JSON for the test to check.
//
// Usage: clientcheck BASE_URL API_KEY PREFIX
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"clientcheck/secutil"
)

type answer struct {
	Status int    `json:"status"`
	Value  any    `json:"value,omitempty"`
	Body   string `json:"body,omitempty"`
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: clientcheck BASE_URL API_KEY PREFIX")
		os.Exit(2)
	}
	base, key, prefix := os.Args[1], os.Args[2], os.Args[3]
	answers, err := call(context.Background(), base, key, prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientcheck:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(answers)
}

func call(ctx context.Context, base, key, prefix string) (map[string]answer, error) {
	c, err := secutil.NewClientWithResponses(base)
	if err != nil {
		return nil, err
	}
	answers := map[string]answer{}

	health, err := c.HealthWithResponse(ctx)
	if err != nil {
		return nil, fmt.Errorf("health: %w", err)
	}
	answers["health"] = answer{Status: health.StatusCode(), Value: health.JSON200}

	withKey := func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-API-Key", key)
		return nil
	}
	body := secutil.PostBase64JSONRequestBody{Text: "hi", Option: "encode"}
	encoded, err := c.PostBase64WithResponse(ctx, body, withKey)
	if err != nil {
		return nil, fmt.Errorf("base64: %w", err)
	}
	answers["base64"] = answer{Status: encoded.StatusCode(), Value: encoded.JSON200}
	refused, err := c.PostBase64WithResponse(ctx, body)
	if err != nil {
		return nil, fmt.Errorf("base64 without a key: %w", err)
	}
	answers["base64_without_key"] = answer{Status: refused.StatusCode(), Value: refused.JSON401}

	hashes, err := c.PwnedPasswordsRangeWithResponse(ctx, prefix, nil)
	if err != nil {
		return nil, fmt.Errorf("range: %w", err)
	}
	answers["range"] = answer{Status: hashes.StatusCode(), Body: string(hashes.Body)}
	return answers, nil
}
