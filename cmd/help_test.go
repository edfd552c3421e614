package cmd

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every command's -h: no "Flags:" heading without flags under it, and no
// "(created when missing)" for a command that refuses a missing database.
func TestCommandHelp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	for _, cmd := range commands() {
		_, help, err := cli(t, db, "", nil, append(strings.Fields(cmd.name), "-h")...)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s -h: %v", cmd.name, err)
		}
		if strings.HasSuffix(strings.TrimSpace(help), "Flags:") {
			t.Errorf("secutil %s -h ends with an empty Flags: section:\n%s", cmd.name, help)
		}
		if cmd.name != "serve" && strings.Contains(help, "created when missing") { // only serve creates a database
			t.Errorf("secutil %s -h says the database is created when missing; the command refuses one:\n%s", cmd.name, help)
		}
	}
}

func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	for _, cmd := range commands() {
		for _, h := range []string{"-h", "--help"} {
			args := append(strings.Fields(cmd.name), h)
			if _, _, err := cli(t, db, "", nil, args...); err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("secutil %s: %v, want help (exit status 0)", strings.Join(args, " "), err)
			}
		}
	}
}

// docs/COMMANDS.md shows the overview's command lines as `secutil help`
// prints them: every line of help is in its block, and every line of its
// block is a line of help.
func TestCommandsDocMatchesHelp(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/COMMANDS.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, found := strings.Cut(string(doc), "\n```\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !found || !closed {
		t.Fatal("docs/COMMANDS.md has no ``` block of the commands")
	}
	var overview strings.Builder
	writeOverview(&overview, "")
	var helpLines []string
	for line := range strings.Lines(overview.String()) {
		if strings.HasPrefix(line, "  ") {
			helpLines = append(helpLines, strings.TrimSpace(line))
		}
	}
	var docLines []string
	for line := range strings.Lines(block) {
		docLines = append(docLines, strings.TrimSpace(line))
	}
	for _, line := range helpLines {
		if !slices.Contains(docLines, line) {
			t.Errorf("secutil help prints a line docs/COMMANDS.md lacks:\n%s", line)
		}
	}
	for _, line := range docLines {
		if !slices.Contains(helpLines, line) {
			t.Errorf("docs/COMMANDS.md lists a line secutil help does not print:\n%s", line)
		}
	}
}
