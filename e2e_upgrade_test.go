package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	var load meteredLoad
	loadFor(t, &load, oldBase, key, 3*time.Second)
	loadFor(t, &load, currentBase, key, time.Second)

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
						loadFor(t, &load, m[1], key, 2*time.Second)
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
		load.checkCounted(t, currentBase, key, db)
		t.Logf("%d metered calls answered and counted, %d of them suggestions, stored", load.ok.Load(), load.suggestions.Load())
	})
	if err := old.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := old.Wait(); err != nil {
		t.Errorf("the previous release's instance after SIGINT: %v", err)
	}
}

// sendTo sends the calls of a meteredLoad to the instance at base.
func sendTo(base, key string) func(path string, body []byte) (*http.Response, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	return func(path string, body []byte) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
		return client.Do(req)
	}
}

// loadFor sends metered calls to base for the duration, adding to l.
func loadFor(t *testing.T, l *meteredLoad, base, key string, duration time.Duration) {
	t.Helper()
	l.start(t, 8, sendTo(base, key))
	time.Sleep(duration)
	l.stop()
}
