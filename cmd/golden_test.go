package cmd

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"secutil/cmd/cmdtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and the generated breach fixture")

// checkGolden compares got with the file at path, or with -update writes
// got there.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd -run '%s' -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test ./cmd -run '%s' -update rewrites it after an intended change)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
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
		{"unknown command", "usage.golden", []string{"frobnicate"}, true, ErrUsage},
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
			checkGolden(t, filepath.Join("testdata", tt.golden), bytes.ReplaceAll(got, []byte(runtime.Version()), []byte(goVersionPlaceholder)))
		})
	}
}

// TestBreachFixtureIsGenerated keeps the committed fixture equal to what
// cmdtest.BreachFixture generates (-update rewrites it).
func TestBreachFixtureIsGenerated(t *testing.T) {
	t.Parallel()
	checkGolden(t, breachFixturePath, cmdtest.BreachFixture())
}
