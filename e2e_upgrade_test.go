package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

// previousRelease is the commit the upgrade test builds as the release
// before this one. The repository has no release tags yet, so it is a
// pinned commit; a release moves it to the release before it. .ci/run reads
// it from here.
const previousRelease = "1bbe062"

// upgradeTestVar turns the upgrade test on: it builds a second secutil
// from git history, which takes a minute.
const upgradeTestVar = "SECUTIL_UPGRADE_TEST"

// TestPreviousReleaseOnTheNewSchema is docs/UPGRADING.md's rule, run: the
// previous release's binary keeps working on the schema this one migrates
// to, so instances can be replaced one at a time. On SQLite and (with
// SECUTIL_TEST_POSTGRES) PostgreSQL, the previous release creates the
// database and serves it; this release opens the database, migrating it,
// and serves it too; then the previous release's instance serves metered
// calls under load, and every call is answered and counted exactly. A
// previous-release process started on the migrated schema either serves
// the same way or refuses, naming the newer schema, as the docs say: it
// never runs on a schema it does not know.
func TestPreviousReleaseOnTheNewSchema(t *testing.T) {
	t.Parallel()
	if os.Getenv(upgradeTestVar) == "" {
		t.Skipf("set %s=1 to build the previous release (commit %s) and run it on this release's schema", upgradeTestVar, previousRelease)
	}
	if err := exec.Command("git", "cat-file", "-e", previousRelease+"^{commit}").Run(); err != nil {
		t.Skipf("commit %s, the previous release, is not in this clone's history (a shallow clone?): %v", previousRelease, err)
	}
	previous := buildPreviousRelease(t)
	current := secutilBinary(t)
	for _, backend := range []string{store.SQLite, store.Postgres} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			previousOnNewSchema(t, previous, current, testDatabase(t, backend, "upgrade.db"))
		})
	}
}

// buildPreviousRelease builds previousRelease from git history, outside
// the checkout, and returns the binary.
func buildPreviousRelease(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o700); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("git", "archive", "--format=tar", previousRelease)
	extract := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	extract.Stdin = pipe
	var archiveErr, extractErr bytes.Buffer
	archive.Stderr, extract.Stderr = &archiveErr, &extractErr
	if err := extract.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", previousRelease, err, archiveErr.String())
	}
	if err := extract.Wait(); err != nil {
		t.Fatalf("tar: %v\n%s", err, extractErr.String())
	}
	bin := filepath.Join(dir, "secutil-"+previousRelease)
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+previousRelease, "-o", bin, ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the previous release %s: %v\n%s", previousRelease, err, out)
	}
	t.Logf("built the previous release %s in %v", previousRelease, time.Since(start).Round(time.Second))
	return bin
}

// previousOnNewSchema runs the upgrade on db: see
// TestPreviousReleaseOnTheNewSchema.
func previousOnNewSchema(t *testing.T, previous, current, db string) {
	const email = "upgrade@example.com"
	previousIndex, currentIndex := filepath.Join(t.TempDir(), "previous-hashes.db"), filepath.Join(t.TempDir(), "current-hashes.db")
	old, oldBase, oldOut, _ := startBinary(t, previous, db, "-hash-db", previousIndex)
	if !strings.Contains(oldOut.String(), "secutil "+previousRelease+" listening") {
		t.Fatalf("the previous release's start line:\n%s", oldOut)
	}
	if out, err := runCommand(previous, "user", "add", "-db", db, "-email", email, "-password", cmdtest.Password, "-plan", "pro"); err != nil {
		t.Fatalf("user add with the previous release: %v\n%s", err, out)
	}
	key := getKey(t, oldBase, email, "default")

	// This release opens the database, migrating it, and serves it beside
	// the previous release's instance, as in a rolling upgrade.
	_, currentBase, _, _ := startBinary(t, current, db, "-hash-db", currentIndex)
	var answered upgradeLoad
	answered.run(t, oldBase, key, 3*time.Second)
	answered.run(t, currentBase, key, time.Second)

	cmdtest.MustStep(t, "a previous-release process started on the new schema serves or refuses it", func(t *testing.T) {
		cmd := exec.Command(previous, "serve", "-addr", "127.0.0.1:0", "-hash-db", previousIndex)
		cmd.Env = append(os.Environ(), "SECUTIL_DB="+db)
		if store.IsPostgres(db) {
			cmd.Dir = t.TempDir()
			cmd.Env = append(cmd.Env, "SECUTIL_SERVER_KEY="+strings.Repeat("5e", 32))
		}
		stdout, stderr := &cmdtest.SyncBuffer{}, &cmdtest.SyncBuffer{}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		deadline := time.Now().Add(90 * time.Second)
		for {
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				if !strings.Contains(stderr.String(), "newer version of secutil") {
					t.Fatalf("the previous release exited on the new schema (%v) without naming the newer schema:\n%s", err, stderr)
				}
				for line := range strings.Lines(stderr.String()) {
					if strings.Contains(line, "newer version of secutil") {
						t.Logf("the previous release refuses to start on the new schema, as documented: %s", strings.TrimSpace(line))
					}
				}
				return
			default:
			}
			if m := cmdtest.ListenLine.FindStringSubmatch(stdout.String()); m != nil {
				if res, err := http.Get(m[1] + "/health"); err == nil {
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						answered.run(t, m[1], key, 2*time.Second)
						return
					}
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the previous release neither served nor refused the new schema in 90 s:\n%s\n%s", stdout, stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("every call answered and counted", func(t *testing.T) {
		if answered.failed.Load() > 0 {
			t.Fatalf("%d calls failed; the first: %v", answered.failed.Load(), answered.firstFailure)
		}
		status, m := cmdtest.PostJSON(t, currentBase+"/api/v1/user_info", key, nil)
		if status != http.StatusOK || m["api_usage"] != float64(answered.ok.Load()) {
			t.Fatalf("user_info: %d %v; want api_usage %d, the calls answered", status, m, answered.ok.Load())
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
		if int64(len(suggestions)) != answered.suggestions.Load() {
			t.Fatalf("%d suggestions stored for %d suggestion calls answered", len(suggestions), answered.suggestions.Load())
		}
		t.Logf("%d metered calls answered and counted, %d of them suggestions, stored", answered.ok.Load(), answered.suggestions.Load())
	})
	if err := old.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := old.Wait(); err != nil {
		t.Errorf("the previous release's instance after SIGINT: %v", err)
	}
}

// upgradeLoad counts the metered calls of the upgrade test: base64 and
// suggestion calls, whose suggestions are stored rows.
type upgradeLoad struct {
	ok, suggestions, failed atomic.Int64
	mu                      sync.Mutex
	firstFailure            string
}

// run sends metered calls to base from 8 workers for the duration.
func (l *upgradeLoad) run(t *testing.T, base, key string, duration time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	end := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; time.Now().Before(end); i++ {
				path, body := "/api/v1/base64", `{"text":"upgrade","option":"encode"}`
				suggestion := (i+w)%2 == 0
				if suggestion {
					path, body = "/api/v1/suggestion", fmt.Sprintf(`{"message":"upgrade %d %d"}`, w, i)
				}
				req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
				req.Header.Set("X-API-Key", key)
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err == nil {
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						l.ok.Add(1)
						if suggestion {
							l.suggestions.Add(1)
						}
						continue
					}
					err = fmt.Errorf("%s %s: %d", base, path, res.StatusCode)
				}
				l.failed.Add(1)
				l.mu.Lock()
				if l.firstFailure == "" {
					l.firstFailure = err.Error()
				}
				l.mu.Unlock()
			}
		})
	}
	wg.Wait()
}
