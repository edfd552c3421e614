package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/breach"
)

// The tests of this file generate clients from static/openapi.json with the
// generators people use, pinned in server/testdata (oapi-codegen in
// clients/go/go.mod, openapi-typescript in clients/ts/package-lock.json,
// Redocly's linter in redocly/package-lock.json), and call a running
// server through them. They build oapi-codegen and a 30,000-line client
// (a minute of CPU the first time) and need Node.js, so they run only when
// SECUTIL_TEST_CLIENTS is set: .ci/run installs the tools, sets it and
// requires them to pass. They never reach the network: Go modules come
// from the module cache (GOPROXY=off), npm packages from the checkout's
// install or npm's local cache.
const clientsGate = "SECUTIL_TEST_CLIENTS"

func requireClientTools(t *testing.T) {
	t.Helper()
	if os.Getenv(clientsGate) == "" {
		t.Skipf("set %s=1 to generate the clients and run it (.ci/run does, after installing the tools)", clientsGate)
	}
}

// openAPIPath is static/openapi.json, absolute: the generators run in
// directories of their own.
func openAPIPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../static/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoClientFromOpenAPI generates the Go client with oapi-codegen's
// default configuration (types, client, echo server and embedded
// document, as `oapi-codegen -package secutil openapi.json` makes them),
// builds a program on it, and makes real calls through it: a route at the
// root, a utility under /api/v1, a range at the root.
func TestGoClientFromOpenAPI(t *testing.T) {
	t.Parallel()
	requireClientTools(t)
	dir := t.TempDir()
	copyFiles(t, "testdata/clients/go", dir, "go.mod", "go.sum", "main.go")
	// The module cache only, the toolchain that runs the test, the
	// module's own go.sum: what .ci/run downloaded, pinned.
	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s\n(run `go mod download` in server/testdata/clients/go if a module is missing; .ci/run does)",
				strings.Join(args, " "), err, out)
		}
	}
	goCmd("tool", "oapi-codegen", "-package", "secutil", "-o", "secutil/secutil.go", openAPIPath(t))
	goCmd("build", "-trimpath", "-o", "clientcheck", ".") // -trimpath: the build cache serves the next run, from another directory
	checkClient(t, filepath.Join(dir, "clientcheck"))
}

// TestTypeScriptClientFromOpenAPI generates the TypeScript types with
// openapi-typescript, compiles a program that calls through openapi-fetch
// with them (tsc, strict: a path, body or field the document does not
// give fails to compile), and runs it.
func TestTypeScriptClientFromOpenAPI(t *testing.T) {
	t.Parallel()
	requireClientTools(t)
	node := nodePath(t)
	modules := npmModules(t, "testdata/clients/ts")
	dir := t.TempDir()
	copyFiles(t, "testdata/clients/ts", dir, "package.json", "check.ts", "tsconfig.json")
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	runNode := func(args ...string) {
		t.Helper()
		cmd := exec.Command(node, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	runNode(filepath.Join(modules, "openapi-typescript", "bin", "cli.js"), openAPIPath(t), "-o", filepath.Join(dir, "schema.d.ts"))
	runNode(filepath.Join(modules, "typescript", "bin", "tsc"), "-p", dir)
	checkClient(t, node, filepath.Join(dir, "out", "check.js"))
}

// checkClient runs a client program (argv: BASE_URL API_KEY PREFIX) against
// a server with a key and the range API, and holds what it printed to what
// the server answers.
func checkClient(t *testing.T, program ...string) {
	t.Helper()
	e := rangeEnv(t, server.RangePublic)
	key := e.key("ann@example.com", store.PlanPro)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	prefix, suffix := hexOf(breach.KindSHA1, "password")

	cmd := exec.Command(program[0], append(program[1:], srv.URL, key, prefix)...)
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			out = append(out, exit.Stderr...)
		}
		t.Fatalf("%s: %v\n%s", filepath.Base(program[len(program)-1]), err, out)
	}
	var answers map[string]struct {
		Status int
		Value  map[string]any
		Body   string
	}
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("the client printed %s: %v", out, err)
	}
	for _, c := range []struct {
		call, field string
		status      int
		want        any
	}{
		{"health", "status", 200, "ok"},
		{"health", "version", 200, server.APIVersion},
		{"base64", "answer", 200, "aGk="},
		{"base64_without_key", "code", 401, "unauthorized"},
	} {
		a := answers[c.call]
		if a.Status != c.status || a.Value[c.field] != c.want {
			t.Errorf("%s: status %d, %s %v; want %d and %v (the client printed %s)", c.call, a.Status, c.field, a.Value[c.field], c.status, c.want, out)
		}
	}
	line := fmt.Sprintf("%s:%d", suffix, rangePasswords["password"])
	if r := answers["range"]; r.Status != 200 || !slices.Contains(strings.Split(r.Body, "\r\n"), line) {
		t.Errorf("range %s: status %d, no line %s in %.200q", prefix, r.Status, line, r.Body)
	}
}

// TestOpenAPIPassesRedoclyLint: Redocly's linter, with its recommended
// rules, finds no error in the document (its warnings are logged).
func TestOpenAPIPassesRedoclyLint(t *testing.T) {
	t.Parallel()
	requireClientTools(t)
	node := nodePath(t)
	modules := npmModules(t, "testdata/redocly")
	cmd := exec.Command(node, filepath.Join(modules, "@redocly", "cli", "bin", "cli.js"),
		"lint", "--extends=recommended", "--format=json", openAPIPath(t))
	cmd.Dir = t.TempDir() // no redocly.yaml but the flags
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.Output() // it exits 1 on errors, which the report lists
	var report struct {
		Totals   struct{ Errors, Warnings int }
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}
	if jsonErr := json.Unmarshal(out, &report); jsonErr != nil {
		t.Fatalf("redocly lint: %v, %v\n%s", err, jsonErr, out)
	}
	warnings := map[string]int{}
	for _, p := range report.Problems {
		if p.Severity != "error" {
			warnings[p.RuleID]++
			continue
		}
		var at string
		if len(p.Location) > 0 {
			at = p.Location[0].Pointer
		}
		t.Errorf("%s at %s: %s", p.RuleID, at, p.Message)
	}
	if report.Totals.Errors != 0 || err != nil {
		t.Errorf("redocly lint: %d errors (%v)", report.Totals.Errors, err)
	}
	t.Logf("%d warnings: %v", report.Totals.Warnings, warnings)
}

// nodePath is the node command; the gate set, a missing one fails.
func nodePath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (.ci/run installs it): %v", err)
	}
	return node
}

// npmModules is the node_modules directory of the packages that
// server/<dir>/package-lock.json pins: dir's own once `npm ci` has run
// there (.ci/run runs it), else one installed into a temporary directory
// from npm's local cache, never from the network. It fails the test when
// neither is possible.
func npmModules(t *testing.T, dir string) string {
	t.Helper()
	modules, err := npmInstall(t, dir)
	if err != nil {
		t.Fatalf("%v: run `npm ci` in server/%s (.ci/run does)", err, dir)
	}
	return modules
}

// npmInstall is npmModules' search, its error for the caller to judge.
func npmInstall(t *testing.T, dir string) (string, error) {
	t.Helper()
	// npm ci writes node_modules/.package-lock.json last.
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return filepath.Abs(filepath.Join(dir, "node_modules"))
	}
	tmp := t.TempDir()
	copyFiles(t, dir, tmp, "package.json", "package-lock.json")
	cmd := exec.Command("npm", "ci", "--offline", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("the packages of server/%s are not installed, nor in npm's cache: %v\n%s", dir, err, out)
	}
	return filepath.Join(tmp, "node_modules"), nil
}

// copyFiles copies the named files of directory from into directory to.
func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
