package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"secutil/store"
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
	// A first start seeds the hash index, which takes long under -race on
	// a busy machine.
	deadline := time.Now().Add(90 * time.Second)
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
	if key == "" {
		return requestJSON(t, http.MethodPost, url, body)
	}
	return requestJSON(t, http.MethodPost, url, body, "X-API-Key", key)
}

// requestJSON sends body as JSON, with the headers given as name, value
// pairs, and decodes the JSON answer.
func requestJSON(t *testing.T, method, url string, body any, header ...string) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
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

// env is a getenv of vars alone but for SECUTIL_DB, which defaults to
// the tests' own (TestMain).
func env(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok || k != "SECUTIL_DB" {
			return v
		}
		return defaultTestDB
	}
}

// TestRunServesAndShutsDown drives run in-process, configured through the
// environment, and checks graceful shutdown on cancel.
func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "run.db")
	vars := env(map[string]string{"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": sharedHashDB(t)})
	mustStep(t, "user add keeps the password out of its output", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"secutil", "user", "add", "-email", "ann@example.com", "-password", "-", "-plan", "pro"},
			vars, strings.NewReader(e2ePassword+"\n"), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), e2ePassword) {
			t.Fatal("user add printed the password")
		}
	})

	base, _, _, stop := serveInProcess(t, vars)
	t.Run("the account gets a key", func(t *testing.T) {
		if status, m := postJSON(t, base+"/api/get_api_key", "", map[string]string{"email": "ann@example.com", "password": e2ePassword}); status != 200 {
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

// serveInProcess runs serve in-process with vars and waits for /health,
// returning what it writes to standard output and error. Its stop cancels
// the run and fails unless run returns nil within 30 s; the run is
// cancelled at the end of the test in any case.
func serveInProcess(t *testing.T, vars func(string) string) (base string, stdout, stderr *syncBuffer, stop func(t *testing.T)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"secutil"}, vars, nil, stdout, stderr) }()
	return waitForURL(t, stdout), stdout, stderr, func(t *testing.T) {
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
}

// mustStep runs one step of a scenario as a subtest and stops the scenario
// when it fails, since the next steps build on it.
func mustStep(t *testing.T, name string, step func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, step) {
		t.FailNow()
	}
}

// TestRunRejectsBadInvocations: every mistake in the invocation is a usage
// error (exit status 2, see main), refused before the database is created;
// a flag naming a file that cannot be used is an ordinary error (status 1).
func TestRunRejectsBadInvocations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() }) // after the parallel subtests
	for _, tt := range []struct {
		name      string
		args      []string
		env       map[string]string
		wantUsage bool
	}{
		{"unknown command", []string{"frobnicate"}, nil, true},
		{"misspelt command", []string{"sevre"}, nil, true},
		{"user without a command", []string{"user"}, nil, true},
		{"unknown user command", []string{"user", "lst"}, nil, true},
		{"user add without email", []string{"user", "add", "-password", e2ePassword}, nil, true},
		{"user add without password", []string{"user", "add", "-email", "ann@example.com"}, nil, true},
		{"user add with an invalid email", []string{"user", "add", "-email", "Ann <ann@example.com>", "-password", e2ePassword}, nil, true},
		{"user add with unknown plan", []string{"user", "add", "-email", "ann@example.com", "-password", e2ePassword, "-plan", "gold"}, nil, true},
		{"user add with unknown flag", []string{"user", "add", "-mail", "ann@example.com"}, nil, true},
		{"user add with an argument", []string{"user", "add", "-email", "ann@example.com", "extra"}, nil, true},
		{"user list with an argument", []string{"user", "list", "extra"}, nil, true},
		{"user set without email", []string{"user", "set", "-plan", "pro"}, nil, true},
		{"user set with two emails", []string{"user", "set", "a@example.com", "-plan", "pro", "b@example.com"}, nil, true},
		{"user set with nothing to change", []string{"user", "set", "ann@example.com"}, nil, true},
		{"user set with unknown plan", []string{"user", "set", "ann@example.com", "-plan", "gold"}, nil, true},
		{"user set unverifying", []string{"user", "set", "ann@example.com", "-verified=false"}, nil, true},
		{"user passwd with an invalid email", []string{"user", "passwd", "not-an-email"}, nil, true},
		{"user delete without email", []string{"user", "delete", "-yes"}, nil, true},
		{"backup without destination", []string{"backup"}, nil, true},
		{"backup with two destinations", []string{"backup", "a.db", "b.db"}, nil, true},
		{"import-wordlist without file", []string{"import-wordlist"}, nil, true},
		{"import-wordlist with unknown algorithm", []string{"import-wordlist", "-algorithms", "crc99", "testdata/wordlist.txt"}, nil, true},
		{"serve with unknown log format", []string{"serve", "-log-format", "xml"}, nil, true},
		{"serve with unknown log format in env", []string{"serve"}, map[string]string{"SECUTIL_LOG_FORMAT": "xml"}, true},
		{"serve with unknown flag", []string{"serve", "-no-such-flag"}, nil, true},
		{"default command with unknown flag", []string{"-no-such-flag"}, nil, true},
		{"short admin token", []string{"serve", "-admin-token", "short"}, nil, true},
		{"short billing secret", []string{"serve", "-billing-secret", "short"}, nil, true},
		{"checkout URL not http", []string{"serve", "-checkout-url", "ftp://pay.example/{product_id}"}, nil, true},
		{"server key too short", []string{"serve", "-server-key", "abcd"}, nil, true},
		{"profiler on every interface", []string{"serve", "-pprof-addr", "0.0.0.0:6060"}, nil, true},
		{"profiler without a host", []string{"serve", "-pprof-addr", ":6060"}, nil, true},
		{"profiler on another machine", []string{"serve", "-pprof-addr", "10.0.0.5:6060"}, nil, true},
		{"hash upstream not a URL", []string{"serve", "-hash-upstream", "not a url"}, nil, true},
		{"trusted proxy not an address", []string{"serve", "-trusted-proxies", "10.0.0.0/8,proxy.example"}, nil, true},
		{"smtp URL not smtp", []string{"serve", "-smtp-url", "http://mail.example"}, nil, true},
		{"TLS certificate without key", []string{"serve", "-tls-cert", "cert.pem"}, nil, true},
		{"address without a port", []string{"serve", "-addr", "127.0.0.1"}, nil, true},
		{"unknown registration policy", []string{"serve", "-registration", "sometimes"}, nil, true},
		{"unknown registration policy in env", []string{"serve"}, map[string]string{"SECUTIL_REGISTRATION": "sometimes"}, true},
		{"busy port", []string{"serve", "-addr", busy.Addr().String()}, nil, false},
		{"missing TLS certificate", []string{"serve", "-tls-cert", "/no/such/cert.pem", "-tls-key", "/no/such/key.pem"}, nil, false},
		{"user add with a common password", []string{"user", "add", "-email", "a@b.c", "-password", "password"}, nil, false},
		{"backup onto an existing file", []string{"backup", existing}, nil, false},
		{"backup of a missing database", []string{"backup", filepath.Join(dir, "copy.db")}, nil, false},
		{"user list of a missing database", []string{"user", "list"}, nil, false},
		{"user set on a missing database", []string{"user", "set", "ann@example.com", "-plan", "pro"}, nil, false},
		{"user passwd on a missing database", []string{"user", "passwd", "ann@example.com"}, nil, false},
		{"user delete on a missing database", []string{"user", "delete", "-yes", "ann@example.com"}, nil, false},
		{"import-wordlist of a missing file", []string{"import-wordlist", "/no/such/words.txt"}, nil, false},
		{"missing GeoIP database", []string{"serve", "-geoip-city", "/no/such/file.mmdb"}, nil, false},
		{"missing breach file", []string{"serve", "-breach-file", "/no/such/pwned.txt"}, nil, false},
		{"breach file of the wrong format", []string{"serve", "-breach-file", "testdata/wordlist.txt"}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "never.db")
			vars := map[string]string{"SECUTIL_DB": db}
			for k, v := range tt.env {
				vars[k] = v
			}
			args := append([]string{"secutil"}, tt.args...)
			err := run(context.Background(), args, env(vars), strings.NewReader(""), io.Discard, io.Discard)
			if err == nil {
				t.Fatalf("run(%q) succeeded", args)
			}
			if got := errors.Is(err, errUsage); got != tt.wantUsage {
				t.Errorf("run(%q) = %v; errors.Is(err, errUsage) = %v, want %v", args, err, got, tt.wantUsage)
			}
			if _, statErr := os.Stat(db); statErr == nil {
				t.Errorf("run(%q) created the database before refusing", args)
			}
		})
	}
}

// TestBinaryExitStatus checks what a shell sees: 0 for asked-for help, 2 for
// a usage error (with the usage on stderr for an unknown command), 1 for
// any other failure.
func TestBinaryExitStatus(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	bin := secutilBinary(t)
	for _, tt := range []struct {
		args       []string
		wantStatus int
		wantStderr string
	}{
		{[]string{"version"}, 0, ""},
		{[]string{"-version"}, 0, ""},
		{[]string{"--version"}, 0, ""},
		{[]string{"help"}, 0, ""},
		{[]string{"-h"}, 0, ""},
		{[]string{"--help"}, 0, ""},
		{[]string{"serve", "-h"}, 0, "-breach-file"},
		{[]string{"user", "-h"}, 0, ""},
		{[]string{"user", "set", "-h"}, 0, "-disabled"},
		{[]string{"user", "delete", "--help"}, 0, "-yes"},
		{[]string{"backup", "-h"}, 0, "-db"},
		{[]string{"frobnicate"}, 2, "Usage:"},
		{[]string{"sevre"}, 2, `did you mean "secutil serve"?`},
		{[]string{"user", "lst"}, 2, `did you mean "secutil user list"?`},
		{[]string{"user"}, 2, "user passwd"},
		{[]string{"backup", "/tmp/never-written.db"}, 1, "no database at"},
		{[]string{"serve", "-no-such-flag"}, 2, "flag provided but not defined"},
		{[]string{"backup"}, 2, "secutil backup [-db FILE] DEST"},
		{[]string{"serve", "-breach-file", "testdata/wordlist.txt"}, 1, "is not a Pwned Passwords SHA-1 file"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), "SECUTIL_DB="+filepath.Join(t.TempDir(), "never.db"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if got := cmd.ProcessState.ExitCode(); got != tt.wantStatus {
				t.Errorf("exit status %d, want %d; stderr:\n%s", got, tt.wantStatus, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr.String())
			}
		})
	}
}

// breachFixturePath is the Pwned Passwords file the end-to-end test serves.
const breachFixturePath = "testdata/pwned-passwords-sha1.txt"

// TestBinaryEndToEnd runs secutil as a process and uses it as a user would:
// import a wordlist, create an account, serve with a Pwned Passwords file
// and no GeoIP flag, get a key, call utilities, back up while serving, and
// stop it with SIGTERM.
func TestBinaryEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	dir := t.TempDir()
	bin := secutilBinary(t)
	db := filepath.Join(dir, "e2e.db")
	mustStep(t, "import-wordlist", func(t *testing.T) {
		out, err := exec.Command(bin, "import-wordlist", "-db", db, "-algorithms", "md5,sha1", "testdata/wordlist.txt").Output()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(string(out), "imported 4 words") {
			t.Fatalf("output %q", out)
		}
	})
	cmd, base, logs, key := serveWithAccount(t, bin, db, "ann@example.com", "starter", "-breach-file", breachFixturePath)

	t.Run("a utility call is metered", func(t *testing.T) {
		if status, m := postJSON(t, base+"/api/v1/suggestion", key, map[string]string{"message": "e2e"}); status != 200 {
			t.Fatalf("suggestion: %d %v", status, m)
		}
		status, m := postJSON(t, base+"/api/v1/user_info", key, nil)
		if status != 200 || m["api_usage"] != float64(1) || m["max_usage_for_plan"] != float64(100) {
			t.Fatalf("user_info: %d %v", status, m)
		}
	})

	t.Run("data_breach answers from the breach file", func(t *testing.T) {
		passwordSHA1 := fmt.Sprintf("%X", sha1.Sum([]byte("password")))
		for _, tt := range []struct {
			name         string
			body         map[string]string
			wantBreached bool
			wantCount    float64
		}{
			{"known password", map[string]string{"password": "password"}, true, float64(breachedFixturePasswords["password"])},
			{"another known password", map[string]string{"password": "Tr0ub4dor&3"}, true, float64(breachedFixturePasswords["Tr0ub4dor&3"])},
			{"lower-case SHA-1 of a filler line", map[string]string{"sha1": fmt.Sprintf("%x", sha1.Sum([]byte(fillerPassword(7))))}, true, float64(fillerCount(7))},
			{"password not in the file", map[string]string{"password": e2ePassword}, false, 0},
		} {
			status, m := postJSON(t, base+"/api/v1/data_breach", key, tt.body)
			if status != 200 || m["breached"] != tt.wantBreached || m["count"] != tt.wantCount || m["source"] != "pwned-passwords file" {
				t.Errorf("%s: %d %v; want breached %v, count %v from the file", tt.name, status, m, tt.wantBreached, tt.wantCount)
			}
		}
		status, m := postJSON(t, base+"/api/v1/data_breach", key, map[string]string{"prefix": passwordSHA1[:5]})
		want := map[string]any{"suffix": passwordSHA1[5:], "count": float64(breachedFixturePasswords["password"])}
		suffixes, _ := m["suffixes"].([]any)
		if status != 200 || !slices.ContainsFunc(suffixes, func(e any) bool { return reflect.DeepEqual(e, want) }) {
			t.Errorf("prefix %s: %d %v; want %v among the suffixes", passwordSHA1[:5], status, m, want)
		}
	})

	t.Run("hash_lookup finds an imported word", func(t *testing.T) {
		imported, absent := md5.Sum([]byte("ocelot-quasar-17")), md5.Sum([]byte("ocelot-quasar-18"))
		status, m := postJSON(t, base+"/api/v1/hash_lookup", key, map[string]string{"hashes": fmt.Sprintf("%x\n%x", imported, absent)})
		results, _ := m["results"].([]any)
		if status != 200 || len(results) != 2 {
			t.Fatalf("hash_lookup: %d %v", status, m)
		}
		if r := results[0].(map[string]any); r["found"] != true || r["plaintext"] != "ocelot-quasar-17" || r["type"] != "md5" {
			t.Errorf("imported word: %v", r)
		}
		if r := results[1].(map[string]any); r["found"] != false {
			t.Errorf("word never imported: %v", r)
		}
	})

	t.Run("ip_info answers from the embedded GeoIP data", func(t *testing.T) {
		status, us := postJSON(t, base+"/api/v1/ip_info", key, map[string]string{"ip_string": "8.8.8.8"})
		org, _ := us["org"].(string)
		if status != 200 || us["country_iso"] != "US" || us["country_flag"] != "🇺🇸" || us["currency"] != "USD" || us["asn"] != float64(15169) || !strings.Contains(org, "Google") {
			t.Fatalf("8.8.8.8 on a server with no GeoIP flag: %d %v", status, us)
		}
	})

	t.Run("backup while serving", func(t *testing.T) {
		backupPath := filepath.Join(dir, "copy.db")
		if out, err := runCommand(bin, "backup", "-db", db, backupPath); err != nil {
			t.Fatalf("backup while serving: %v\n%s", err, out)
		}
		if fi, err := os.Stat(backupPath); err != nil || fi.Size() == 0 {
			t.Fatalf("backup file: %v", err)
		}
	})

	t.Run("SIGTERM shuts down gracefully", func(t *testing.T) {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("server exit after SIGTERM: %v\nlogs:\n%s", err, logs)
		}
		if !strings.Contains(logs.String(), "shutting down") {
			t.Fatalf("no graceful shutdown in logs:\n%s", logs)
		}
	})
	t.Run("no secret reached the logs", func(t *testing.T) {
		if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), e2ePassword) {
			t.Fatal("a secret reached the logs")
		}
	})
}

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// buildBinary builds secutil once per test run, for the runs that measure
// the built artefact itself (the load and index benchmarks); the other
// tests run secutilBinary, which costs no second link.
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

// runsAsSecutil is the name under which this test binary is the program
// rather than its tests: TestMain runs main when the process was started
// by that name, as through secutilLink.
const runsAsSecutil = "secutil"

// secutilLink is a symbolic link called secutil to this test binary, made
// by TestMain; secutilLinkErr says why there is none.
var (
	secutilLink    string
	secutilLinkErr error
)

// secutilBinary is a path that runs secutil as a user's shell would run the
// built binary: this test binary, which holds main, through a link whose
// name makes TestMain run main instead of the tests. The process has
// secutil's arguments, exit status, signal handling and standard streams;
// linking a second 50 MB binary would cost seconds of CPU a run.
func secutilBinary(t *testing.T) string {
	t.Helper()
	if secutilLinkErr != nil {
		t.Fatal(secutilLinkErr)
	}
	return secutilLink
}

// TestMain runs the tests with the default database (SECUTIL_DB, for the
// binaries the tests start, and env's default) in a temporary folder, so
// that no default path (secutil.db, secutil-hashes.db and
// secutil-server.key beside it) falls in the checkout; and it fails the
// run when the tests changed what git status says of the checkout.
//
// Started by the name runsAsSecutil, the test binary is secutil itself:
// main runs and exits as the built binary would (see secutilBinary).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == runsAsSecutil {
		main()
		os.Exit(0)
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	flag.Parse()
	home, err := os.MkdirTemp("", "secutil-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	defaultTestDB = filepath.Join(home, defaultDB)
	secutilLink, secutilLinkErr = linkAsSecutil(home)
	os.Setenv("SECUTIL_DB", defaultTestDB)
	statusBefore, gitErr := gitStatus()
	code := m.Run()
	if builtPath != "" {
		os.RemoveAll(filepath.Dir(builtPath))
	}
	if sharedIndexDir != "" {
		os.RemoveAll(sharedIndexDir)
	}
	switch {
	case *update: // asked to rewrite files in testdata/
		return code
	case gitErr != nil:
		fmt.Fprintf(os.Stderr, "not checking that the tests leave the checkout as they found it: %v\n", gitErr)
		return code
	}
	statusAfter, err := gitStatus()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	if changed := changedLines(statusBefore, statusAfter); len(changed) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests changed the checkout; git status, - before, + after:\n%s\n", strings.Join(changed, "\n"))
		return 1
	}
	return code
}

// linkAsSecutil makes a link called runsAsSecutil to this test binary in
// a new folder of dir.
func linkAsSecutil(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		return "", err
	}
	link := filepath.Join(bin, runsAsSecutil)
	return link, os.Symlink(self, link)
}

// changedLines are the lines of after not in before (+) and of before not
// in after (-).
func changedLines(before, after string) []string {
	var out []string
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "+ "+l)
		}
	}
	return out
}

// defaultTestDB is SECUTIL_DB during the tests: a file in a temporary
// folder, never one in the checkout.
var defaultTestDB string

// gitStatus is what git says of the checkout, ignored files included (a
// test's stray secutil.db is ignored); an error when there is no git or no
// checkout.
func gitStatus() (string, error) {
	out, err := exec.Command("git", "status", "--porcelain", "--ignored").Output()
	if err != nil {
		return "", fmt.Errorf("git status: %w", err)
	}
	return string(out), nil
}

// serveWithAccount creates an account with the binary, serves db with the
// extra serve flags, and returns the server, its URL, its log and an API key
// for the account.
func serveWithAccount(t *testing.T, bin, db, email, plan string, serveFlags ...string) (*exec.Cmd, string, *syncBuffer, string) {
	t.Helper()
	if out, err := runCommand(bin, "user", "add", "-db", db, "-email", email, "-password", e2ePassword, "-plan", plan); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	cmd, base, _, logs := startBinary(t, bin, db, serveFlags...)
	status, m := postJSON(t, base+"/api/get_api_key", "", map[string]string{"email": email, "password": e2ePassword})
	if status != 200 {
		t.Fatalf("get_api_key: %d %v", status, m)
	}
	return cmd, base, logs, m["api_key"].(string)
}

// startBinary runs `secutil serve` with the extra flags on a free port,
// waits for /health, and returns the server, its URL, and its standard
// output (the start message) and error (the log). On PostgreSQL, whose
// servers keep their files (hash index, server key) in the working
// directory by default, each runs in a new folder, with the server key
// that every server on one database must share.
func startBinary(t *testing.T, bin, db string, serveFlags ...string) (*exec.Cmd, string, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "-addr", "127.0.0.1:0"}, serveFlags...)...)
	cmd.Env = append(os.Environ(), "SECUTIL_DB="+db)
	if store.IsPostgres(db) {
		cmd.Dir = t.TempDir()
		cmd.Env = append(cmd.Env, "SECUTIL_SERVER_KEY="+strings.Repeat("5e", 32))
	}
	stdout := &syncBuffer{}
	cmd.Stdout = stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	go io.Copy(logs, bufio.NewReader(stderr))
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // a server still running: no zombie left
	return cmd, waitForURL(t, stdout), stdout, logs
}

// TestImportWordlist imports testdata/wordlist.txt in-process, then the
// same words again from standard input.
func TestImportWordlist(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	mustStep(t, "from a file", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-algorithms", "md5,ntlm", "testdata/wordlist.txt"},
			env(nil), nil, &out, &errOut); err != nil {
			t.Fatalf("%v\n%s", err, errOut.String())
		}
		if !strings.Contains(out.String(), "imported 4 words (4 new") {
			t.Fatalf("output %q", out.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "w-hashes.db")); err != nil {
			t.Fatalf("index not beside the database: %v", err)
		}
	})
	t.Run("again from standard input, with CRLF: nothing new", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-"},
			env(nil), strings.NewReader("correcthorse\r\nocelot-quasar-17\r\n"), &out, io.Discard); err != nil || !strings.Contains(out.String(), "imported 2 words (0 new") {
			t.Fatalf("stdin import: %v %q", err, out.String())
		}
	})
}

func TestAllowedHostsDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		given, listen string
		want          []string
	}{
		{"", "127.0.0.1:8080", []string{"localhost", "127.0.0.1", "::1", "127.0.0.1"}},
		{"", "[::1]:8080", []string{"localhost", "127.0.0.1", "::1", "::1"}},
		{"", "127.0.0.2:80", []string{"localhost", "127.0.0.1", "::1", "127.0.0.2"}},
		{"", "localhost:8080", []string{"localhost", "127.0.0.1", "::1", "localhost"}},
		{"", "0.0.0.0:8080", nil},
		{"", ":8080", nil},
		{"", "192.0.2.7:8080", nil},
		{"api.example,localhost", "127.0.0.1:8080", []string{"api.example", "localhost"}},
	} {
		if got := allowedHosts(tc.given, tc.listen); !slices.Equal(got, tc.want) {
			t.Errorf("allowedHosts(%q, %q) = %q, want %q", tc.given, tc.listen, got, tc.want)
		}
	}
}

func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	got, err := parsePrefixes(" 10.1.2.3/8, 192.0.2.1 ,fd00::1 ,")
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("fd00::1/128")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
}
