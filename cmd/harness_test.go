package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
	"secutil/tools/passhash"
)

// The in-process harness of the command's tests: run drives Program.Run
// with the repository's templates/ and static/ as the assets (what main
// embeds), env and cli give it an environment, and serveInProcess and
// serveDB serve until the test ends.

// TestMain runs the tests with the default database in a temporary folder
// and fails the run when they changed the checkout (cmdtest.Main); -update
// rewrites the golden files and the breach fixture.
func TestMain(m *testing.M) {
	os.Exit(cmdtest.Main(m, update, nil))
}

// testProgram is the program main builds, with the assets read from the
// checkout (go:embed cannot reach them from this folder) and cheap account
// passwords.
var testProgram = Program{Assets: os.DirFS(".."), PasswordParams: cheapPasswords}

// cheapPasswords are argon2id costs that keep the user commands and the
// logins quick: the cost changes no logic.
var cheapPasswords = passhash.Params{MemoryKiB: 64, Time: 1, Parallelism: 1}

// run is testProgram.Run.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return testProgram.Run(ctx, args, getenv, stdin, stdout, stderr)
}

// The fixtures this package's tests share with those of package main and
// server, in the repository's testdata/: a wordlist, and the Pwned
// Passwords file of cmdtest.BreachFixture.
const (
	wordlistPath      = "../testdata/wordlist.txt"
	breachFixturePath = "../testdata/pwned-passwords-sha1.txt"
)

// env is a getenv of vars alone but for SECUTIL_DB, which defaults to
// the tests' own, in a temporary folder (cmdtest.Main).
func env(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok || k != "SECUTIL_DB" {
			return v
		}
		return os.Getenv("SECUTIL_DB")
	}
}

// serveInProcess runs serve in-process with vars and waits for /health,
// returning what it writes to standard output and error. Its stop cancels
// the run and fails unless run returns nil within 30 s; the run is
// cancelled at the end of the test in any case.
func serveInProcess(t *testing.T, vars func(string) string) (base string, stdout, stderr *cmdtest.SyncBuffer, stop func(t *testing.T)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stdout, stderr = &cmdtest.SyncBuffer{}, &cmdtest.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"secutil"}, vars, nil, stdout, stderr) }()
	return cmdtest.WaitForURL(t, stdout), stdout, stderr, func(t *testing.T) {
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

// cli runs one command line in-process on the database db and returns its
// standard output and error.
func cli(t *testing.T, db, stdin string, vars map[string]string, args ...string) (string, string, error) {
	t.Helper()
	all := map[string]string{"SECUTIL_DB": db}
	for k, v := range vars {
		all[k] = v
	}
	var stdout, stderr strings.Builder
	err := run(context.Background(), append([]string{"secutil"}, args...), env(all), strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// mustCLI is cli that fails the test when the command fails.
func mustCLI(t *testing.T, db, stdin string, args ...string) string {
	t.Helper()
	out, errOut, err := cli(t, db, stdin, nil, args...)
	if err != nil {
		t.Fatalf("secutil %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// storedAccount reads an account straight from the database.
func storedAccount(t *testing.T, db, email string) (*store.Account, error) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return st.AccountByEmail(context.Background(), email)
}

func mustStoredAccount(t *testing.T, db, email string) *store.Account {
	t.Helper()
	a, err := storedAccount(t, db, email)
	if err != nil {
		t.Fatalf("account %s: %v", email, err)
	}
	return a
}

// serveDB serves db in-process with the index of cmdtest.SharedHashDB and the
// other settings in vars, until the test ends; it returns the server's
// URL and what it writes to standard output and error.
func serveDB(t *testing.T, db string, vars map[string]string) (string, *cmdtest.SyncBuffer, *cmdtest.SyncBuffer) {
	t.Helper()
	all := map[string]string{"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t)}
	for k, v := range vars {
		all[k] = v
	}
	base, stdout, stderr, stop := serveInProcess(t, env(all))
	t.Cleanup(func() { stop(t) })
	return base, stdout, stderr
}

// wantUsageHint checks what the command line args answered: a usage error
// that says what, and ends with the suggestion want ("did you mean
// -db?"), or makes none when want is "".
func wantUsageHint(t *testing.T, args []string, err error, what, want string) {
	t.Helper()
	line := "secutil " + strings.Join(args, " ")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), what) {
		t.Errorf("%s: %v, want a usage error saying %q", line, err, what)
		return
	}
	if got := err.Error(); want == "" && strings.Contains(got, "did you mean") || want != "" && !strings.HasSuffix(got, want) {
		t.Errorf("%s: %q, want it to end %q", line, got, want)
	}
}
