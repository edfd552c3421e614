package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
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
		"SECUTIL_DB": cmdtest.NewDatabase(t, filepath.Join(dir, "s.db")), "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t),
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

// TestRunServesAndShutsDown drives run in-process, configured through the
// environment, and checks graceful shutdown on cancel.
func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "run.db"))
	vars := env(map[string]string{"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t)})
	cmdtest.MustStep(t, "user add keeps the password out of its output", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"secutil", "user", "add", "-email", "ann@example.com", "-password", "-", "-plan", "pro"},
			vars, strings.NewReader(cmdtest.Password+"\n"), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), cmdtest.Password) {
			t.Fatal("user add printed the password")
		}
	})

	base, _, _, stop := serveInProcess(t, vars)
	t.Run("the account gets a key", func(t *testing.T) {
		if status, m := cmdtest.PostJSON(t, base+"/api/get_api_key", "", map[string]string{"email": "ann@example.com", "password": cmdtest.Password}); status != 200 {
			t.Fatalf("get_api_key: %d %v", status, m)
		}
	})
	t.Run("listening on loopback, it answers only loopback names (DNS rebinding)", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, base+"/health", nil)
		req.Host = "attacker.example"
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMisdirectedRequest {
			t.Fatalf("Host attacker.example: %d, want 421", res.StatusCode)
		}
	})
	t.Run("cancel shuts down cleanly", stop)
}

// TestShutdownLeavesNoGoroutine serves with every listener (-metrics-addr
// and -pprof-addr too), hands the outbox a job, cancels, and finds none of
// the goroutines serve started still running once run has returned.
//
// Not parallel: it compares the process's goroutines before and after,
// which tests running meanwhile would add to.
func TestShutdownLeavesNoGoroutine(t *testing.T) {
	before := goroutines()
	db := filepath.Join(t.TempDir(), "shutdown.db")
	base, stdout, _, stop := serveInProcess(t, env(map[string]string{
		"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t),
		"SECUTIL_METRICS_ADDR": "127.0.0.1:0", "SECUTIL_PPROF_ADDR": "127.0.0.1:0",
	}))
	for _, want := range []string{"metrics on http://", "profiler on http://"} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("start message lacks %q:\n%s", want, stdout)
		}
	}
	if status, m := cmdtest.PostJSON(t, base+"/forgot-password", "", map[string]string{"email": "nobody@example.com"}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d %v", status, m) // its mail job runs on an outbox worker
	}
	stop(t)
	http.DefaultClient.CloseIdleConnections()

	// A goroutine told to stop may take a moment to be gone from the list.
	var left []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if left = newGoroutines(before, goroutines()); len(left) == 0 {
			return
		}
	}
	t.Fatalf("%d goroutines outlived the server:\n\n%s", len(left), strings.Join(left, "\n\n"))
}

var goroutineHeader = regexp.MustCompile(`^goroutine (\d+) `)

// goroutines are the stacks of the process's goroutines by id.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, stack := range bytes.Split(buf, []byte("\n\n")) {
		if m := goroutineHeader.FindSubmatch(stack); m != nil {
			out[string(m[1])] = string(stack)
		}
	}
	return out
}

// processWide are goroutines the first use of a package starts for the
// rest of the process, whoever used it: not the server's to stop.
var processWide = []string{"os/signal.loop", "os/signal.signal_recv"}

// newGoroutines are the stacks in after whose goroutines were not in
// before, but for the test's own and the process-wide ones.
func newGoroutines(before, after map[string]string) []string {
	var out []string
	for id, stack := range after {
		if _, old := before[id]; old || strings.Contains(stack, "testing.tRunner") {
			continue
		}
		if !containsAny(stack, processWide) {
			out = append(out, stack)
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// serve takes flags only: an argument left after them ("secutil serve
// 127.0.0.1:18102" served on the default address) is a usage error that
// suggests what it was probably meant as, before anything is opened.
func TestServeRefusesStrayArguments(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	for _, c := range []struct {
		args []string
		want string // the end of the error; "" for no suggestion
	}{
		{[]string{"serve", "127.0.0.1:18102"}, "did you mean -addr 127.0.0.1:18102?"},
		{[]string{"serve", ":9090"}, "did you mean -addr :9090?"},
		{[]string{"serve", "8081"}, "did you mean -addr 127.0.0.1:8081?"},
		{[]string{"serve", "-registration", "open", "data/main.db"}, "did you mean -db data/main.db?"},
		{[]string{"serve", "postgres://ann:s3cret@db.example/secutil"}, "did you mean -db 'postgres://ann:xxxxx@db.example/secutil'?"},
		{[]string{"-db", db, "user", "list"}, `did you mean "secutil user list …" (a command comes before its flags)?`},
		{[]string{"-db", db, "backpu", "x.db"}, `did you mean "secutil backup …" (a command comes before its flags)?`},
		{[]string{"serve", "please"}, ""},
	} {
		_, _, err := cli(t, db, "", nil, c.args...)
		wantUsageHint(t, c.args, err, "serve takes flags only", c.want)
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("secutil %s: the error shows the URL's password: %v", strings.Join(c.args, " "), err)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("serve created the database before refusing its arguments")
	}
}

// serve creates its SQLite file only in a folder that exists, and says
// so in a sentence naming the path instead of SQLite's "unable to open
// database file"; a -db naming a folder is refused the same way.
func TestServeNamesAMissingFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ db, hashDB, want string }{
		{filepath.Join(dir, "missingdir", "x.db"), "", "the database " + filepath.Join(dir, "missingdir", "x.db") + " cannot be created: there is no folder " + filepath.Join(dir, "missingdir")},
		{dir, "", "the database " + dir + " is a folder: give the path of a file, such as " + filepath.Join(dir, "secutil.db")},
		{filepath.Join(dir, "x.db"), filepath.Join(dir, "nowhere", "h.db"), "the hash index " + filepath.Join(dir, "nowhere", "h.db") + " cannot be created: there is no folder"},
	} {
		_, _, err := cli(t, c.db, "", map[string]string{"SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": c.hashDB}, "serve")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "unable to open") {
			t.Errorf("serve -db %s -hash-db %q: %v, want %q", c.db, c.hashDB, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused serve left %v behind", entries)
	}
}
