package server_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"secutil/store"
)

// TestOneCallIsSingular: a count of one is written "1 call", on the
// utilities page and in the dashboard chart's day titles (the rest of the
// dashboard's wording is its template's).
func TestOneCallIsSingular(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.account("one@example.com", store.PlanEnterprise) // no cap
	e.fill(id, 1)
	session := &http.Cookie{Name: "auth_session", Value: e.login("one@example.com")}
	page := string(e.browse("GET", "/tools", nil, session).want(http.StatusOK).body)
	if !strings.Contains(page, "<strong>1 call</strong> this month") {
		t.Errorf("/tools: no singular \"1 call\":\n%s", page)
	}
	dashboard := string(e.browse("GET", "/dashboard", nil, session).want(http.StatusOK).body)
	if !strings.Contains(dashboard, ": 1 call</title>") || strings.Contains(dashboard, ": 1 calls</title>") {
		t.Errorf("/dashboard: the chart's day says \"1 calls\":\n%s", dashboard)
	}
}

// TestFavicon: /favicon.ico, where browsers look for an icon, is the
// site's SVG icon rather than a JSON 404.
func TestFavicon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.request("GET", "/favicon.ico", nil).want(http.StatusOK)
	want, err := os.ReadFile("../static/favicon.svg")
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("Content-Type %q", ct)
	}
	if !bytes.Equal(res.body, want) {
		t.Error("the body is not static/favicon.svg")
	}
	e.request("GET", "/favicon.ico", nil, "If-None-Match", res.header.Get("ETag")).want(http.StatusNotModified)
}
