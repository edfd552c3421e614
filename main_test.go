package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const e2ePassword = "violet tram ladder cinema"

var listenLine = regexp.MustCompile(`listening on (https?://\S+)`)

// syncBuffer lets the test read what run writes from another goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitForURL waits until out shows the listening line and /health answers.
func waitForURL(t *testing.T, out fmt.Stringer) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenLine.FindStringSubmatch(out.String()); m != nil {
			res, err := http.Get(m[1] + "/health")
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return m[1]
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server did not come up; output:\n%s", out)
	return ""
}

func postJSON(t *testing.T, url, key string, body any) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var m map[string]any
	json.Unmarshal(data, &m)
	return res.StatusCode, m
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestRunServesAndShutsDown drives run in-process, configured through the
// environment, and checks graceful shutdown on cancel.
func TestRunServesAndShutsDown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "run.db")
	ctx := context.Background()
	var out bytes.Buffer
	if err := run(ctx, []string{"secutil", "user", "add", "-email", "ann@example.com", "-password", "-", "-plan", "pro"},
		env(map[string]string{"SECUTIL_DB": db}), strings.NewReader(e2ePassword+"\n"), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), e2ePassword) {
		t.Fatal("user add printed the password")
	}

	ctx, cancel := context.WithCancel(ctx)
	stdout := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"secutil"}, env(map[string]string{"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0"}), nil, stdout, io.Discard)
	}()
	base := waitForURL(t, stdout)
	status, m := postJSON(t, base+"/api/get_api_key", "", map[string]string{"email": "ann@example.com", "password": e2ePassword})
	if status != 200 {
		t.Fatalf("get_api_key: %d %v", status, m)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after shutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunRejectsBadInvocations(t *testing.T) {
	for _, args := range [][]string{
		{"secutil", "frobnicate"},
		{"secutil", "user"},
		{"secutil", "user", "add", "-email", "a@b.c"},
		{"secutil", "user", "add", "-email", "a@b.c", "-password", e2ePassword, "-plan", "gold"},
		{"secutil", "backup"},
		{"secutil", "serve", "-log-format", "xml"},
		{"secutil", "serve", "-no-such-flag"},
		{"secutil", "serve", "-admin-token", "short"},
		{"secutil", "serve", "-billing-secret", "short"},
		{"secutil", "serve", "-checkout-url", "ftp://pay.example/{product_id}"},
		{"secutil", "serve", "-server-key", "abcd"},
		{"secutil", "serve", "-hash-upstream", "not a url"},
		{"secutil", "serve", "-geoip-city", "/no/such/file.mmdb"},
		{"secutil", "serve", "-breach-file", "/no/such/pwned.txt"},
	} {
		dir := t.TempDir()
		db := filepath.Join(dir, "never.db")
		err := run(context.Background(), args, env(map[string]string{"SECUTIL_DB": db}), strings.NewReader(""), io.Discard, io.Discard)
		if err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
		if _, statErr := os.Stat(db); statErr == nil && args[1] == "serve" {
			t.Errorf("run(%q) created the database before refusing its flags", args)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"secutil", "version"}, env(nil), nil, &out, io.Discard); err != nil || !strings.Contains(out.String(), "0.9.5") {
		t.Fatalf("version: %v %q", err, out.String())
	}
}

// TestBinaryEndToEnd builds the real binary and uses it as a user would:
// create an account, serve, get a key, call a utility, back up while
// serving, and stop it with SIGTERM.
func TestBinaryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	db := filepath.Join(dir, "e2e.db")
	cmd, base, logs, key := serveWithAccount(t, bin, db, "ann@example.com", "starter")
	if status, m := postJSON(t, base+"/api/v1/suggestion", key, map[string]string{"message": "e2e"}); status != 200 {
		t.Fatalf("suggestion: %d %v", status, m)
	}
	status, m := postJSON(t, base+"/api/v1/user_info", key, nil)
	if status != 200 || m["api_usage"] != float64(1) || m["max_usage_for_plan"] != float64(100) {
		t.Fatalf("user_info: %d %v", status, m)
	}

	backupPath := filepath.Join(dir, "copy.db")
	if out, err := runCommand(bin, "backup", "-db", db, backupPath); err != nil {
		t.Fatalf("backup while serving: %v\n%s", err, out)
	}
	if fi, err := os.Stat(backupPath); err != nil || fi.Size() == 0 {
		t.Fatalf("backup file: %v", err)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit after SIGTERM: %v\nlogs:\n%s", err, logs)
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Fatalf("no graceful shutdown in logs:\n%s", logs)
	}
	if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), e2ePassword) {
		t.Fatal("a secret reached the logs")
	}
}

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// buildBinary builds secutil once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "secutil-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "secutil")
		if out, err := exec.Command("go", "build", "-o", builtPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtPath != "" {
		os.RemoveAll(filepath.Dir(builtPath))
	}
	os.Exit(code)
}

// serveWithAccount creates an account with the binary, serves db, and
// returns the server, its URL, its log and an API key for the account.
func serveWithAccount(t *testing.T, bin, db, email, plan string) (*exec.Cmd, string, *syncBuffer, string) {
	t.Helper()
	if out, err := runCommand(bin, "user", "add", "-db", db, "-email", email, "-password", e2ePassword, "-plan", plan); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	cmd, base, logs := startBinary(t, bin, db)
	status, m := postJSON(t, base+"/api/get_api_key", "", map[string]string{"email": email, "password": e2ePassword})
	if status != 200 {
		t.Fatalf("get_api_key: %d %v", status, m)
	}
	return cmd, base, logs, m["api_key"].(string)
}

// startBinary runs `secutil serve` on a free port and waits for /health.
func startBinary(t *testing.T, bin, db string) (*exec.Cmd, string, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "SECUTIL_DB="+db)
	stdout := &syncBuffer{}
	cmd.Stdout = stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	go io.Copy(logs, bufio.NewReader(stderr))
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, waitForURL(t, stdout), logs
}

func TestImportWordlist(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	list := filepath.Join(dir, "words.txt")
	os.WriteFile(list, []byte("correcthorse\r\nbatterystaple\n\nTr0ub4dor&3\n"), 0o600)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-algorithms", "md5,ntlm", list},
		env(nil), nil, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "imported 3 words") {
		t.Fatalf("output %q", out.String())
	}
	// Standard input, and idempotent: nothing new the second time.
	out.Reset()
	if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-"},
		env(nil), strings.NewReader("correcthorse\n"), &out, io.Discard); err != nil || !strings.Contains(out.String(), "0 new") {
		t.Fatalf("stdin import: %v %q", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "w-hashes.db")); err != nil {
		t.Fatalf("index not beside the database: %v", err)
	}
	if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-algorithms", "crc99", list},
		env(nil), nil, io.Discard, io.Discard); err == nil {
		t.Fatal("unknown algorithm accepted")
	}
}
