package cmd

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"secutil/server"
)

// printVersion is `secutil version`.
func (p Program) printVersion(_ context.Context, args []string, _ func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	b := p.build()
	commit := b.commit
	if b.modified {
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(stdout, "secutil %s\ncommit  %s\ndate    %s\napi     %s\ngo      %s\n", b.version, commit, b.date, server.APIVersion, b.goVersion)
	return nil
}

// buildInfo describes the running binary.
type buildInfo struct {
	version, commit, date, goVersion string
	modified                         bool // built from a tree with uncommitted changes
}

// build is the running binary: the version main was given, else what Go
// recorded in the binary: the module version, and the commit, its time and
// the tree's state when built in a git checkout (-buildvcs, on by default).
func (p Program) build() buildInfo {
	info, _ := debug.ReadBuildInfo()
	return describeBuild(info, p.Version)
}

func describeBuild(info *debug.BuildInfo, ldflagsVersion string) buildInfo {
	b := buildInfo{version: ldflagsVersion, commit: "unknown", date: "unknown", goVersion: runtime.Version()}
	if info != nil {
		if b.version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.version = info.Main.Version
		}
		b.goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.commit = s.Value
			case "vcs.time":
				b.date = s.Value
			case "vcs.modified":
				b.modified = s.Value == "true"
			}
		}
	}
	if b.version == "" {
		b.version = server.APIVersion + "-dev"
	}
	return b
}
