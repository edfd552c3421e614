package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"secutil/cmd/cmdtest"
)

// TestReadmeFirstCommandLeavesOnlyIgnoredFiles runs the README's first
// command (`go run .`) as a newcomer does in a fresh clone, with its
// defaults but the port (another program may hold 8080), in a folder of
// its own, until /health answers; then stops it, and asks git whether the
// repository's .gitignore ignores every path the command created there, as
// if it had run in the checkout. Otherwise `go test ./...`, the README's
// second command, would find the checkout changed (TestMain) and the tree
// unlike the README's Project structure.
func TestReadmeFirstCommandLeavesOnlyIgnoredFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	args := readmeFirstCommand(t)
	dir := t.TempDir()
	server := exec.Command(secutilBinary(t), args...)
	server.Dir = dir
	for _, v := range os.Environ() {
		if !strings.HasPrefix(v, "SECUTIL_") { // TestMain's SECUTIL_DB among them
			server.Env = append(server.Env, v)
		}
	}
	server.Env = append(server.Env, "SECUTIL_ADDR=127.0.0.1:0", "SECUTIL_DRAIN=0") // nothing to drain: no balancer
	stdout, stderr := &cmdtest.SyncBuffer{}, &cmdtest.SyncBuffer{}
	server.Stdout, server.Stderr = stdout, stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	cmdtest.WaitForURL(t, stdout)
	server.Process.Signal(syscall.SIGTERM)
	if err := server.Wait(); err != nil {
		t.Fatalf("secutil %s: %v after SIGTERM; log:\n%s", strings.Join(args, " "), err, stderr)
	}

	created := createdPaths(t, dir)
	for _, want := range []string{"secutil.db", "secutil-hashes.db", "secutil-server.key"} {
		if !slices.Contains(created, want) {
			t.Errorf("the first command made no %s in its folder; it made %q", want, created)
		}
	}
	for _, path := range notIgnored(t, created) {
		t.Errorf("the README's first command, run in a checkout, creates %s, which .gitignore does not ignore", path)
	}
}

// notIgnored asks git which of paths, relative to the checkout's root,
// the repository's .gitignore does not ignore (the user's own excludes
// aside); it skips t outside a git checkout.
func notIgnored(t *testing.T, paths []string) []string {
	t.Helper()
	check := exec.Command("git", "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--verbose", "--non-matching", "--stdin")
	check.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	var gitErr bytes.Buffer
	check.Stderr = &gitErr
	out, err := check.Output()
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound) || strings.Contains(gitErr.String(), "not a git repository"):
		t.Skipf("no git checkout to check against: %v %s", err, gitErr.String())
	case err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1): // 1: none ignored
		t.Fatalf("git check-ignore: %v\n%s", err, gitErr.String())
	}
	var missed []string
	for line := range strings.Lines(string(out)) {
		if path, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "::\t"); ok {
			missed = append(missed, path)
		}
	}
	return missed
}

// readmeFirstCommand is the arguments of the README's first command, the
// first line of its "Two commands": `go run .` and what follows it.
func readmeFirstCommand(t *testing.T) []string {
	t.Helper()
	for _, line := range readmeSection(t, "Two commands") {
		if strings.HasPrefix(line, "```") || strings.TrimSpace(line) == "" {
			continue
		}
		command, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(command)
		if len(fields) < 3 || !slices.Equal(fields[:3], []string{"go", "run", "."}) {
			t.Fatalf("the README's first command is %q, not go run .: update this test with it", line)
		}
		return fields[3:]
	}
	t.Fatal("the README's Two commands has no command")
	return nil
}

// createdPaths lists what is under dir, relative to it, a folder with a
// trailing slash (as git check-ignore tells a folder from a file that is
// not there).
func createdPaths(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if d.IsDir() {
			rel += "/"
		}
		paths = append(paths, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}
