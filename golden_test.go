package main

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and the generated fixtures in testdata/")

// checkGolden compares got with the file testdata/name, or with -update
// writes got there.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -run '%s' -update rewrites it after an intended change)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

// goVersionPlaceholder stands for runtime.Version() in version.golden, so
// the file holds under every Go release.
const goVersionPlaceholder = "GO_VERSION"

// TestGoldenOutput pins what people read on the terminal: the overview, the
// serve flags and the version line.
func TestGoldenOutput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, golden string
		args         []string
		fromStderr   bool
		wantErr      error
	}{
		{"help", "usage.golden", []string{"help"}, false, nil},
		{"-h", "usage.golden", []string{"-h"}, false, nil},
		{"--help", "usage.golden", []string{"--help"}, false, nil},
		{"unknown command", "usage.golden", []string{"frobnicate"}, true, errUsage},
		{"serve -h", "serve-usage.golden", []string{"serve", "-h"}, true, flag.ErrHelp},
		{"version", "version.golden", []string{"version"}, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"secutil"}, tt.args...), env(nil), nil, &stdout, &stderr)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("run(%q): got error %v, want %v", tt.args, err, tt.wantErr)
			}
			got, other := stdout.Bytes(), stderr.Bytes()
			if tt.fromStderr {
				got, other = other, got
			}
			if len(other) != 0 {
				t.Errorf("unexpected output on the other stream: %q", other)
			}
			checkGolden(t, tt.golden, bytes.ReplaceAll(got, []byte(runtime.Version()), []byte(goVersionPlaceholder)))
		})
	}
}

// breachedFixturePasswords are the passwords testdata/pwned-passwords-sha1.txt
// holds, with the counts the end-to-end test expects. The counts are made
// up; the format is that of the Pwned Passwords download.
var breachedFixturePasswords = map[string]int64{
	"password":     424242,
	"correcthorse": 17,
	"Tr0ub4dor&3":  31,
	// Long and rated strong, so only the breach file refuses it as an
	// account password.
	breachedPassphrase: 12,
}

// breachedPassphrase is a password the account policy accepts unless a
// breach file holds it.
const breachedPassphrase = "orchid lantern quarry melody"

// breachFixtureFiller is the number of filler lines around the known
// passwords, so that lookups search a file of a few blocks.
const breachFixtureFiller = 200

// fillerPassword is the plaintext of filler line i.
func fillerPassword(i int) string { return fmt.Sprintf("secutil breach fixture filler %d", i) }

// fillerCount is the count of filler line i.
func fillerCount(i int) int64 { return int64(i*37%1000 + 1) }

// breachFixture is the content of testdata/pwned-passwords-sha1.txt:
// upper-case SHA1:COUNT lines sorted by hash, CRLF-terminated like the download.
func breachFixture() []byte {
	var lines []string
	for password, count := range breachedFixturePasswords {
		lines = append(lines, fmt.Sprintf("%X:%d", sha1.Sum([]byte(password)), count))
	}
	for i := range breachFixtureFiller {
		lines = append(lines, fmt.Sprintf("%X:%d", sha1.Sum([]byte(fillerPassword(i))), fillerCount(i)))
	}
	slices.Sort(lines) // every hash has 40 digits, so line order is hash order
	return []byte(strings.Join(lines, "\r\n") + "\r\n")
}

// TestBreachFixtureIsGenerated keeps the committed fixture equal to what
// breachFixture generates (-update rewrites it).
func TestBreachFixtureIsGenerated(t *testing.T) {
	t.Parallel()
	checkGolden(t, "pwned-passwords-sha1.txt", breachFixture())
}
