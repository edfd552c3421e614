package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/tools/breach"
)

var metricsLine = regexp.MustCompile(`metrics on (http://\S+)`)

// TestRunServesRangeAndMetrics starts serve with a Pwned Passwords file,
// the range API public and metrics on a listener of their own, all from
// the environment, and uses each as an operator would.
func TestRunServesRangeAndMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for pw, n := range map[string]int{"password": 10437277, "letmein": 1234, "123456": 99} {
		lines = append(lines, fmt.Sprintf("%X:%d", breach.SHA1(pw), n))
	}
	slices.Sort(lines)
	pwned := filepath.Join(dir, "pwned.txt")
	if err := os.WriteFile(pwned, []byte(strings.Join(lines, "\r\n")+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const token = "a-metrics-token-of-32-characters"
	base, stdout, _, stop := serveInProcess(t, env(map[string]string{
		"SECUTIL_DB": filepath.Join(dir, "s.db"), "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": sharedHashDB(t),
		"SECUTIL_BREACH_FILE": pwned, "SECUTIL_RANGE_API": "public",
		"SECUTIL_METRICS_ADDR": "127.0.0.1:0", "SECUTIL_METRICS_TOKEN": token,
	}))

	status, body := get(t, base+"/range/5baa6", "")
	if status != 200 || body != "1E4C9B93F3F0682250B6CF8331B7EE68FD8:10437277" {
		t.Fatalf("range: %d %q", status, body)
	}
	m := metricsLine.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("serve did not print the metrics address:\n%s", stdout)
	}
	status, body = get(t, m[1], "")
	if status != 200 || !strings.Contains(body, `secutil_http_requests_total{route="GET /range/{prefix}",status="200"} 1`) {
		t.Fatalf("metrics listener: %d\n%s", status, body)
	}
	if !strings.Contains(body, `secutil_breach_file_timestamp_seconds{kind="sha1"}`) {
		t.Fatalf("metrics lack the breach file's date:\n%s", body)
	}
	if status, _ = get(t, base+"/metrics", ""); status != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %d", status)
	}
	if status, body = get(t, base+"/metrics", token); status != 200 || !strings.Contains(body, "secutil_http_open_connections") {
		t.Fatalf("/metrics with the token: %d\n%s", status, body)
	}
	stop(t)
}

func get(t *testing.T, url, bearer string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

func TestServeRefusesBadEcosystemFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"secutil", "serve", "-range-api", "open"},
		{"secutil", "serve", "-metrics-token", "short"},
		{"secutil", "serve", "-metrics-addr", "not an address", "-addr", "127.0.0.1:0"},
	} {
		db := filepath.Join(t.TempDir(), "s.db")
		if err := run(context.Background(), args, env(map[string]string{"SECUTIL_DB": db}), nil, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func TestDescribeBuild(t *testing.T) {
	t.Parallel()
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "secutil", Version: "v0.0.0-20261123194410-6fb999a3c972+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "6fb999a3c972c9b1429385dbd7e871c20542ec26"},
			{Key: "vcs.time", Value: "2026-11-23T19:44:10Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		name    string
		info    *debug.BuildInfo
		ldflags string
		want    buildInfo
	}{
		{"release", vcs, "1.4.0", buildInfo{"1.4.0", "6fb999a3c972c9b1429385dbd7e871c20542ec26", "2026-11-23T19:44:10Z", "go1.26.8", true}},
		{"from a checkout", vcs, "", buildInfo{"v0.0.0-20261123194410-6fb999a3c972+dirty", "6fb999a3c972c9b1429385dbd7e871c20542ec26", "2026-11-23T19:44:10Z", "go1.26.8", true}},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", buildInfo{server.APIVersion + "-dev", "unknown", "unknown", "go1.26.8", false}},
	} {
		if got := describeBuild(tc.info, tc.ldflags); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
