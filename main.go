// Command secutil serves the Security and Password Utility API, its web
// dashboard and docs from one binary on an embedded SQLite file.
//
// The commands live in package cmd; main hands it what only this package
// can give (the embedded templates and static files, which go:embed cannot
// reach from a folder below them, and the version a release build sets),
// and turns the error it returns into the exit status.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"secutil/cmd"
)

// assets are the web pages' templates and static files (CSS, JS, icon and
// the OpenAPI document), built into the binary so it needs no files beside it.
//
//go:embed templates static
var assets embed.FS

// version is set by a release build with -ldflags "-X main.version=...";
// otherwise it is the module version Go recorded, or the API version + "-dev".
var version string

func main() {
	err := cmd.Program{Assets: assets, Version: version}.Run(context.Background(), os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	os.Exit(exitStatus(err, os.Stderr))
}

// exitStatus is 0 for success and for -h (the flags were printed, as
// asked), 2 for a mistake in the invocation and 1 for any other failure,
// which it reports on stderr.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "secutil:", err)
	if errors.Is(err, cmd.ErrUsage) {
		return 2
	}
	return 1
}
