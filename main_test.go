package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"secutil/cmd"
	"secutil/cmd/cmdtest"
	"secutil/tools/passhash"
)

func TestExitStatus(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err        error
		want       int
		wantStderr string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{fmt.Errorf("%w: unknown command %q", cmd.ErrUsage, "x"), 2, "secutil: usage error: unknown command \"x\"\n"},
		{errors.New("no database at x.db"), 1, "secutil: no database at x.db\n"},
	} {
		var stderr bytes.Buffer
		if got := exitStatus(tt.err, &stderr); got != tt.want || stderr.String() != tt.wantStderr {
			t.Errorf("exitStatus(%v) = %d, wrote %q; want %d, %q", tt.err, got, stderr.String(), tt.want, tt.wantStderr)
		}
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
		{[]string{"serve", "-breach-file", wordlistPath}, 1, "is not a Pwned Passwords SHA-1 file"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runSecutil(t, "", nil, tt.args...)
			if r.status != tt.wantStatus {
				t.Errorf("exit status %d, want %d; stderr:\n%s", r.status, tt.wantStatus, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, r.stderr)
			}
		})
	}
}

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// buildBinary builds secutil once per test run, into the test process's
// temporary folder, for the runs that measure the built artefact itself
// (the load, index and memory benchmarks); the other tests run
// secutilBinary, which costs no second link.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtPath = filepath.Join(testHome, "build", "secutil")
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
// linking a second 50 MB binary would cost seconds of CPU a run. It
// hashes account passwords at testPasswordCost.
func secutilBinary(t *testing.T) string {
	t.Helper()
	if secutilLinkErr != nil {
		t.Fatal(secutilLinkErr)
	}
	return secutilLink
}

// secutilRun is one run of secutilBinary: what it wrote and its exit
// status.
type secutilRun struct {
	stdout, stderr string
	status         int
}

// runSecutil runs secutilBinary with args, stdin and the extra
// environment variables env (NAME=value), its default database one that
// does not exist.
func runSecutil(t *testing.T, stdin string, env []string, args ...string) secutilRun {
	t.Helper()
	cmd := exec.Command(secutilBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "SECUTIL_DB="+filepath.Join(t.TempDir(), "never.db")), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return secutilRun{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// testPasswordCost is the argon2id cost at which secutilBinary hashes
// account passwords, in place of passhash.Default (19 MiB and two passes,
// about 30 ms of CPU a hash): the tests' servers verify a password at
// every login and every wrong guess, and the cost changes no logic. The
// hashes a server reads carry their own cost, so a database the tests
// fill with production-cost hashes (an older release's) still verifies.
var testPasswordCost = passhash.Params{MemoryKiB: 64, Time: 1, Parallelism: 1}

// testHome is the test process's temporary folder (cmdtest.Main), removed
// after the tests.
var testHome string

// TestMain runs the tests with the default database (SECUTIL_DB, for the
// binaries the tests start) in a temporary folder, and fails the run when
// the tests changed the checkout (cmdtest.Main).
//
// Started by the name runsAsSecutil, the test binary is secutil itself:
// main runs and exits as the built binary would, its account passwords
// at testPasswordCost (see secutilBinary).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == runsAsSecutil {
		passhash.Default = testPasswordCost
		main()
	}
	os.Exit(cmdtest.Main(m, nil, func(home string) {
		testHome = home
		secutilLink, secutilLinkErr = linkAsSecutil(home)
	}))
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
