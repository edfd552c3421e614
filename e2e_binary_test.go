package main

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

// The fixtures the end-to-end tests share with those of package cmd: a
// wordlist, and the Pwned Passwords file of cmdtest.BreachFixture.
const (
	wordlistPath      = "testdata/wordlist.txt"
	breachFixturePath = "testdata/pwned-passwords-sha1.txt"
)

// TestBinaryEndToEnd runs secutil as a process and uses it as a user would:
// import a wordlist, create an account, serve with a Pwned Passwords file
// and no GeoIP flag, get a key, call utilities, back up while serving, and
// stop it with SIGTERM, which drains it first (-drain, shortened here).
func TestBinaryEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	dir := t.TempDir()
	bin := secutilBinary(t)
	db := cmdtest.NewDatabase(t, filepath.Join(dir, "e2e.db")) // as a first start would: import-wordlist and user add open only one that exists
	cmdtest.MustStep(t, "import-wordlist", func(t *testing.T) {
		out, err := exec.Command(bin, "import-wordlist", "-db", db, "-algorithms", "md5,sha1", wordlistPath).Output()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(string(out), "imported 4 words") {
			t.Fatalf("output %q", out)
		}
	})
	cmd, base, logs, key := serveWithAccount(t, bin, db, "ann@example.com", "starter", "-breach-file", breachFixturePath, "-drain", "100ms")

	t.Run("a utility call is metered", func(t *testing.T) {
		if status, m := cmdtest.PostJSON(t, base+"/api/v1/suggestion", key, map[string]string{"message": "e2e"}); status != 200 {
			t.Fatalf("suggestion: %d %v", status, m)
		}
		status, m := cmdtest.PostJSON(t, base+"/api/v1/user_info", key, nil)
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
			{"known password", map[string]string{"password": "password"}, true, float64(cmdtest.BreachedPasswords["password"])},
			{"another known password", map[string]string{"password": "Tr0ub4dor&3"}, true, float64(cmdtest.BreachedPasswords["Tr0ub4dor&3"])},
			{"lower-case SHA-1 of a filler line", map[string]string{"sha1": fmt.Sprintf("%x", sha1.Sum([]byte(cmdtest.FillerPassword(7))))}, true, float64(cmdtest.FillerCount(7))},
			{"password not in the file", map[string]string{"password": cmdtest.Password}, false, 0},
		} {
			status, m := cmdtest.PostJSON(t, base+"/api/v1/data_breach", key, tt.body)
			if status != 200 || m["breached"] != tt.wantBreached || m["count"] != tt.wantCount || m["source"] != "pwned-passwords file" {
				t.Errorf("%s: %d %v; want breached %v, count %v from the file", tt.name, status, m, tt.wantBreached, tt.wantCount)
			}
		}
		status, m := cmdtest.PostJSON(t, base+"/api/v1/data_breach", key, map[string]string{"prefix": passwordSHA1[:5]})
		want := map[string]any{"suffix": passwordSHA1[5:], "count": float64(cmdtest.BreachedPasswords["password"])}
		suffixes, _ := m["suffixes"].([]any)
		if status != 200 || !slices.ContainsFunc(suffixes, func(e any) bool { return reflect.DeepEqual(e, want) }) {
			t.Errorf("prefix %s: %d %v; want %v among the suffixes", passwordSHA1[:5], status, m, want)
		}
	})

	t.Run("hash_lookup finds an imported word", func(t *testing.T) {
		imported, absent := md5.Sum([]byte("ocelot-quasar-17")), md5.Sum([]byte("ocelot-quasar-18"))
		status, m := cmdtest.PostJSON(t, base+"/api/v1/hash_lookup", key, map[string]string{"hashes": fmt.Sprintf("%x\n%x", imported, absent)})
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
		status, us := cmdtest.PostJSON(t, base+"/api/v1/ip_info", key, map[string]string{"ip_string": "8.8.8.8"})
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
		if !strings.Contains(logs.String(), "draining") || !strings.Contains(logs.String(), "shutting down") {
			t.Fatalf("no drain and graceful shutdown in logs:\n%s", logs)
		}
	})
	t.Run("no secret reached the logs", func(t *testing.T) {
		if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), cmdtest.Password) {
			t.Fatal("a secret reached the logs")
		}
	})
}

// serveWithAccount creates the database db when new, as a first start
// would, and an account with the binary, serves db with the extra serve
// flags, and returns the server, its URL, its log and an API key for the
// account.
func serveWithAccount(t *testing.T, bin, db, email, plan string, serveFlags ...string) (*exec.Cmd, string, *cmdtest.SyncBuffer, string) {
	t.Helper()
	cmdtest.NewDatabase(t, db)
	if out, err := runCommand(bin, "user", "add", "-db", db, "-email", email, "-password", cmdtest.Password, "-plan", plan); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	cmd, base, _, logs := startBinary(t, bin, db, serveFlags...)
	return cmd, base, logs, getKey(t, base, email, "")
}

// getKey is the API key named name of the account email, whose password
// is cmdtest.Password, from the server at base; for name "" the request
// names no key and gets the default one.
func getKey(t *testing.T, base, email, name string) string {
	t.Helper()
	body := map[string]string{"email": email, "password": cmdtest.Password}
	if name != "" {
		body["name"] = name
	}
	status, m := cmdtest.PostJSON(t, base+"/api/get_api_key", "", body)
	if status != 200 {
		t.Fatalf("get_api_key: %d %v", status, m)
	}
	return m["api_key"].(string)
}

// startBinary runs `secutil serve` with the extra flags on a free port,
// waits for /health, and returns the server, its URL, and its standard
// output (the start message) and error (the log). On PostgreSQL, whose
// servers keep their files (hash index, server key) in the working
// directory by default, each runs in a new folder, with the server key
// that every server on one database must share.
func startBinary(t *testing.T, bin, db string, serveFlags ...string) (*exec.Cmd, string, *cmdtest.SyncBuffer, *cmdtest.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "-addr", "127.0.0.1:0"}, serveFlags...)...)
	cmd.Env = append(os.Environ(), "SECUTIL_DB="+db)
	if store.IsPostgres(db) {
		cmd.Dir = t.TempDir()
		cmd.Env = append(cmd.Env, "SECUTIL_SERVER_KEY="+strings.Repeat("5e", 32))
	}
	stdout := &cmdtest.SyncBuffer{}
	cmd.Stdout = stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &cmdtest.SyncBuffer{}
	go io.Copy(logs, bufio.NewReader(stderr))
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // a server still running: no zombie left
	return cmd, cmdtest.WaitForURL(t, stdout), stdout, logs
}

// runCommand runs the binary bin with args and returns what it wrote to
// standard output and error.
func runCommand(bin string, args ...string) ([]byte, error) {
	return exec.Command(bin, args...).CombinedOutput()
}

// meteredLoad is metered calls sent by workers, base64 and suggestion calls
// in turn, for the end-to-end tests that count every call: it counts the
// calls answered 200, the suggestions among them (each stores a row) and
// the failures, keeping the first few. start and stop may alternate; the
// counts add up.
type meteredLoad struct {
	ok, suggestions, failed atomic.Int64
	mu                      sync.Mutex
	failures                []string
	done                    chan struct{}
	wg                      sync.WaitGroup
}

// start runs workers that send calls with send, which posts a JSON body
// to a path with the account's key (to an instance, or through a
// balancer), until stop, which the test's end calls too.
func (l *meteredLoad) start(t *testing.T, workers int, send func(path string, body []byte) (*http.Response, error)) {
	l.done = make(chan struct{})
	done := l.done
	for w := range workers {
		l.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				path, body := "/api/v1/base64", []byte(`{"text":"load","option":"encode"}`)
				suggestion := (w+i)%2 == 0
				if suggestion {
					path, body = "/api/v1/suggestion", fmt.Appendf(nil, `{"message":"load %d %d"}`, w, i)
				}
				res, err := send(path, body)
				if err == nil {
					answer, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						l.ok.Add(1)
						if suggestion {
							l.suggestions.Add(1)
						}
						continue
					}
					err = fmt.Errorf("%s: %d %s", path, res.StatusCode, answer)
				}
				l.failed.Add(1)
				l.mu.Lock()
				if len(l.failures) < 5 {
					l.failures = append(l.failures, err.Error())
				}
				l.mu.Unlock()
			}
		})
	}
	t.Cleanup(l.stop)
}

// stop ends the calls and waits for the workers.
func (l *meteredLoad) stop() {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	l.wg.Wait()
}

// waitForAnswers waits until n calls in all were answered 200.
func (l *meteredLoad) waitForAnswers(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for l.ok.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls answered in 30 s, want %d; failures: %v", l.ok.Load(), n, l.failures)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkCounted fails t unless every call was answered, the account of
// key, read at base, counts exactly the calls answered, and each
// suggestion answered stored its row in the database db.
func (l *meteredLoad) checkCounted(t *testing.T, base, key, db string) {
	t.Helper()
	if l.failed.Load() > 0 {
		t.Fatalf("%d calls of %d failed; the first: %v", l.failed.Load(), l.ok.Load()+l.failed.Load(), l.failures)
	}
	status, m := cmdtest.PostJSON(t, base+"/api/v1/user_info", key, nil)
	if status != http.StatusOK || m["api_usage"] != float64(l.ok.Load()) {
		t.Fatalf("user_info: %d %v; want api_usage %d, the calls answered", status, m, l.ok.Load())
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	suggestions, err := st.Suggestions(context.Background(), 1_000_000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(suggestions)) != l.suggestions.Load() {
		t.Fatalf("%d suggestions stored for %d suggestion calls answered", len(suggestions), l.suggestions.Load())
	}
}
