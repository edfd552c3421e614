package pgtest

import (
	"fmt"
	"os"
	osexec "os/exec" // pgtest.go has an exec of its own
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// Cluster is a PostgreSQL server of one test's own, for a test that stops
// or restarts it: the server EnvVar names is shared by tests running in
// parallel. It listens only on a Unix socket in its own temporary folder.
type Cluster struct {
	dir, bin string
}

// NewCluster starts a new cluster from the PostgreSQL installed on the
// machine (Debian's packages, under /usr/lib/postgresql), stopped and
// removed when t ends. It skips t when EnvVar is not set, like URL, and
// fails it when EnvVar is set but no PostgreSQL is installed. As root the
// cluster runs as the postgres user, as .ci/postgres.sh runs it.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	if !Enabled() {
		t.Skip(EnvVar + " is not set: no PostgreSQL to test against")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(bins) == 0 {
		t.Fatalf("%s is set but no PostgreSQL is installed under /usr/lib/postgresql", EnvVar)
	}
	slices.SortFunc(bins, func(a, b string) int { return version(a) - version(b) })
	c := &Cluster{dir: ownedTempDir(t, "secutil-pgtest-"), bin: bins[len(bins)-1]}
	t.Cleanup(func() {
		c.run(t, "pg_ctl", "-D", c.data(), "-m", "immediate", "stop")
		os.RemoveAll(c.dir)
	})
	c.initdb(t)
	c.mustRun(t, "pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "start",
		"-o", fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -c fsync=off", c.dir))
	return c
}

// ownedTempDir makes a new temporary folder, owned by the postgres user
// when the test runs as root (the user PostgreSQL runs as).
func ownedTempDir(t testing.TB, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		owner, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			t.Fatalf("running as root, the cluster needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(owner.Uid)
		gid, _ := strconv.Atoi(owner.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			t.Fatal(err)
		}
	}
	return dir
}

// initdb gives the cluster its data directory: a copy of one that initdb
// made earlier for this PostgreSQL version and user, kept in the temporary
// folder (the first test that needs one makes it). initdb costs about a
// CPU-second; copying its 39 MB, a few milliseconds.
func (c *Cluster) initdb(t testing.TB) {
	t.Helper()
	template := filepath.Join(os.TempDir(), fmt.Sprintf("secutil-pgtest-initdb-%d-uid%d", version(c.bin), os.Getuid()))
	if _, err := os.Stat(filepath.Join(template, "data", "PG_VERSION")); err != nil {
		// Made beside it and renamed into place, so that a test process
		// starting at the same time sees all of it or none.
		maker := &Cluster{dir: ownedTempDir(t, "secutil-pgtest-initdb-"), bin: c.bin}
		maker.mustRun(t, "initdb", "-D", maker.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
		if err := os.Rename(maker.dir, template); err != nil {
			os.RemoveAll(maker.dir) // another process's is in place: use it
		}
	}
	if out, err := osexec.Command("cp", "-a", filepath.Join(template, "data"), c.data()).CombinedOutput(); err != nil {
		t.Fatalf("copying the initdb template %s: %v\n%s", template, err, out)
	}
}

// version is the major version in a path like /usr/lib/postgresql/15/bin.
func version(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// URL is the cluster's postgres database, as a postgres:// URL.
func (c *Cluster) URL() string {
	return "postgres://postgres@/postgres?host=" + c.dir + "&sslmode=disable"
}

// Restart restarts the server as an operator's pg_ctl restart -m fast
// does: the sessions are ended (SQLSTATE 57P01), new connections refused
// while it stops and starts (57P03), and it returns once the server
// accepts connections again.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	c.mustRun(t, "pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-m", "fast", "restart")
}

func (c *Cluster) mustRun(t testing.TB, program string, args ...string) {
	t.Helper()
	if out, err := c.run(t, program, args...); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		t.Fatalf("%s: %v\n%s\n%s", program, err, out, log)
	}
}

// run runs one of PostgreSQL's programs, as the postgres user when root.
func (c *Cluster) run(t testing.TB, program string, args ...string) ([]byte, error) {
	t.Helper()
	argv := append([]string{filepath.Join(c.bin, program)}, args...)
	if os.Getuid() == 0 {
		argv = append([]string{"runuser", "-u", "postgres", "--"}, argv...)
	}
	cmd := osexec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.dir // the postgres user may not enter the current folder
	return cmd.CombinedOutput()
}
