package server_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"secutil/server"
)

func TestEveryAPIRouteUnderBothScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/get_api_key", "/new_api_key", "/regenerate", "/user_info", "/suggestion"} {
		for _, scope := range []string{"/api", "/api/v1"} {
			if res := e.post(scope+path, `{}`); res.status == 404 || res.status == 405 {
				t.Errorf("POST %s%s: %d", scope, path, res.status)
			}
		}
	}
}

// TestAPIOverviewListsEveryRoute: the route table of docs/API.md gives
// every route under /api and /api/v1 its line, and names no other, so a
// new utility's declaration fails here until its line is written.
func TestAPIOverviewListsEveryRoute(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/API.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(doc), "| Route | Auth | What it does |")
	if !found {
		t.Fatal("docs/API.md has no route table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var listed []string
	for _, line := range strings.Split(table, "\n") {
		route, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range regexp.MustCompile("`(/[a-z0-9_]+)`").FindAllStringSubmatch(route, -1) {
			listed = append(listed, m[1])
		}
	}
	routed := server.APIPaths()
	slices.Sort(listed)
	slices.Sort(routed)
	if !slices.Equal(listed, routed) {
		t.Errorf("docs/API.md's route table lists %v;\nthe routes under /api are %v", listed, routed)
	}
}
