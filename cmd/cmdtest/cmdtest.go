// Package cmdtest holds what the tests of the command line share: those of
// package cmd, which run it in process, and those of package main, which
// run the built binary. It waits for a server to answer, sends it JSON,
// seeds the hash index the tests' servers share, makes the Pwned Passwords
// fixture, and runs TestMain with the default database outside the
// checkout. Test-only: the binary does not link it.
package cmdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/internal/testpar"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/store/storetest"
	"secutil/tools/strength"
)

// Password is the password of the accounts the tests create: one the
// account policy accepts.
const Password = "violet tram ladder cinema"

var (
	// ListenLine is serve's start line, whose match is the server's URL.
	ListenLine = regexp.MustCompile(`listening on (https?://\S+)`)
	// SetupLine is the one-time setup link of serve's start message.
	SetupLine = regexp.MustCompile(`(https?://\S+/setup\?token=\S+)`)
)

// SyncBuffer lets a test read what a server writes from another goroutine.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitForURL waits until out shows the listening line and /health answers,
// and returns the server's URL.
func WaitForURL(t *testing.T, out fmt.Stringer) string {
	t.Helper()
	// A first start seeds the hash index, which takes long under -race on
	// a busy machine.
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if m := ListenLine.FindStringSubmatch(out.String()); m != nil {
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

// PostJSON posts body as JSON, with the API key when not empty, and
// decodes the JSON answer.
func PostJSON(t *testing.T, url, key string, body any) (int, map[string]any) {
	t.Helper()
	if key == "" {
		return RequestJSON(t, http.MethodPost, url, body)
	}
	return RequestJSON(t, http.MethodPost, url, body, "X-API-Key", key)
}

// RequestJSON sends body as JSON, with the headers given as name, value
// pairs, and decodes the JSON answer.
func RequestJSON(t *testing.T, method, url string, body any, header ...string) (int, map[string]any) {
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

// MustStep runs one step of a scenario as a subtest and stops the scenario
// when it fails, since the next steps build on it.
func MustStep(t *testing.T, name string, step func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, step) {
		t.FailNow()
	}
}

// home is the temporary folder of the test process (Main), which holds
// the default database and the shared hash index.
var home string

var (
	sharedIndexOnce sync.Once
	sharedIndexErr  error
)

// SharedHashDB is a reverse-lookup index that the tests' servers share
// (their -hash-db), seeded from the embedded list as serve seeds a new
// one, once, by the first test that asks for it (seconds, far more under
// -race); the servers find it seeded.
func SharedHashDB(t *testing.T) string {
	t.Helper()
	if home == "" {
		t.Fatal("cmdtest.SharedHashDB needs TestMain to call cmdtest.Main")
	}
	path := filepath.Join(home, "shared-hashes.db")
	sharedIndexOnce.Do(func() { sharedIndexErr = seedHashDB(path) })
	if sharedIndexErr != nil {
		t.Fatal(sharedIndexErr)
	}
	return path
}

// SeedHashDB makes the reverse-lookup index at path as serve seeds a new
// one: the embedded common-password list under every algorithm.
func SeedHashDB(t testing.TB, path string) {
	t.Helper()
	if err := seedHashDB(path); err != nil {
		t.Fatal(err)
	}
}

func seedHashDB(path string) error {
	ix, err := hashindex.Open(path)
	if err != nil {
		return err
	}
	defer ix.Close()
	return ix.EnsureSeeded(context.Background(), strength.CommonPasswords())
}

// NewDatabase creates the database db, empty (an SQLite file, or the
// schema of a PostgreSQL URL), as serve's first start does: the other
// commands open only a database that exists; one that exists is opened
// as serve opens it. It returns db. A new SQLite file is written from
// storetest's migrated copy: migrating a new file costs about 10 ms of
// CPU, and the tests make dozens.
func NewDatabase(t testing.TB, db string) string {
	t.Helper()
	var err error
	if _, statErr := os.Stat(db); store.IsPostgres(db) || statErr == nil {
		err = openAndClose(db)
	} else {
		err = storetest.WriteMigrated(db)
	}
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// openAndClose opens db with store.Open, which creates or migrates it,
// and closes it.
func openAndClose(db string) error {
	st, err := store.Open(context.Background(), db)
	if err != nil {
		return err
	}
	return st.Close()
}

// Main is TestMain's work for a package whose tests run secutil. It runs
// the tests with the default database (SECUTIL_DB, which the processes
// the tests start inherit) in a new temporary folder, so that no default
// path (secutil.db, and secutil-hashes.db and secutil-server.key beside
// it) falls in the checkout; setup, when not nil, first gets that folder,
// which is removed after the tests. It fails the run when the tests
// changed what git status says of the checkout, unless rewrite (the
// package's -update flag, or nil) asked them to rewrite files there. It
// returns the exit status.
func Main(m *testing.M, rewrite *bool, setup func(home string)) int {
	flag.Parse()
	// The tests wait for the processes they start, for servers to drain
	// and for timers.
	testpar.Raise(4)
	var err error
	if home, err = os.MkdirTemp("", "secutil-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	os.Setenv("SECUTIL_DB", filepath.Join(home, "secutil.db"))
	if setup != nil {
		setup(home)
	}
	statusBefore, gitErr := gitStatus()
	code := m.Run()
	switch {
	case rewrite != nil && *rewrite:
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
