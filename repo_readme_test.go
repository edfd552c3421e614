package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"secutil/cmd"
	"secutil/tools/hashid"
)

// maxReadmeLines keeps the README an overview: what does not fit belongs
// in a guide under docs/.
const maxReadmeLines = 300

func readReadme(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(readme)
}

func TestReadmeIsShort(t *testing.T) {
	t.Parallel()
	if n := strings.Count(readReadme(t), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into a guide under docs/ and link to it", n, maxReadmeLines)
	}
}

// serveFlag is a flag of serve as its -h lists it.
type serveFlag struct {
	name, def string // def is "" for a flag whose default is its zero value
}

var defaultInUsage = regexp.MustCompile(`\(default ("(?:[^"\\]|\\.)*"|[^\s)]+)\)$`)

// serveFlags reads serve's flags and their defaults off "secutil serve -h",
// the same listing an operator reads, so the test depends on nothing of
// package cmd but Run.
func serveFlags(t *testing.T) []serveFlag {
	t.Helper()
	var stdout, stderr bytes.Buffer
	noEnv := func(string) string { return "" }
	if err := (cmd.Program{}).Run(context.Background(), []string{"secutil", "serve", "-h"}, noEnv, nil, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("secutil serve -h: %v, want flag.ErrHelp", err)
	}
	var flags []serveFlag
	var usage strings.Builder
	endFlag := func() {
		if len(flags) == 0 {
			return
		}
		if m := defaultInUsage.FindStringSubmatch(usage.String()); m != nil {
			def := m[1]
			if unquoted, err := strconv.Unquote(def); err == nil {
				def = unquoted
			}
			flags[len(flags)-1].def = def
		}
		usage.Reset()
	}
	for line := range strings.Lines(stderr.String() + stdout.String()) {
		line = strings.TrimRight(line, "\n")
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			endFlag()
			name, _, _ := strings.Cut(rest, " ")
			flags = append(flags, serveFlag{name: name})
		} else if text, ok := strings.CutPrefix(line, "    \t"); ok && len(flags) > 0 {
			usage.WriteString(" " + text)
		}
	}
	endFlag()
	if len(flags) == 0 {
		t.Fatalf("secutil serve -h lists no flags:\n%s", stderr.String())
	}
	return flags
}

// envVarOf is the environment variable that sets a serve flag.
func envVarOf(flagName string) string {
	return "SECUTIL_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// backtickedIn returns the code spans of a table cell.
func backtickedIn(cell string) []string {
	var spans []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		spans = append(spans, m[1])
	}
	return spans
}

// TestConfigurationTablesMatchServeFlags holds the configuration tables of
// the README and of docs/CONFIGURATION.md to serve's flag set: one row per
// flag (or per group of flags sharing a default), no row for a flag serve
// lacks, each flag's environment variable in the same order, and its
// default as serve -h gives it. A flag whose default is computed at start
// (its -h default is empty) must not show a single literal as its default.
func TestConfigurationTablesMatchServeFlags(t *testing.T) {
	t.Parallel()
	flags := map[string]serveFlag{}
	for _, f := range serveFlags(t) {
		flags[f.name] = f
	}
	guide, err := os.ReadFile("docs/CONFIGURATION.md")
	if err != nil {
		t.Fatal(err)
	}
	checkConfigurationTable(t, "README.md", readmeSection(t, "Configuration"), flags)
	checkConfigurationTable(t, "docs/CONFIGURATION.md", strings.Split(string(guide), "\n"), flags)
}

func checkConfigurationTable(t *testing.T, file string, lines []string, flags map[string]serveFlag) {
	t.Helper()
	inTable := map[string]bool{}
	for _, line := range lines {
		if !strings.HasPrefix(line, "| `-") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 {
			t.Errorf("%s: configuration row %q: want 4 cells (flag, variable, default, meaning), have %d", file, line, len(cells))
			continue
		}
		names, vars, def := backtickedIn(cells[0]), backtickedIn(cells[1]), cells[2]
		var wantVars []string
		for _, name := range names {
			name = strings.TrimPrefix(name, "-")
			wantVars = append(wantVars, envVarOf(name))
			inTable[name] = true
			f, ok := flags[name]
			switch {
			case !ok:
				t.Errorf("%s's configuration table lists -%s, which serve does not have", file, name)
			case f.def != "" && !slices.Contains(backtickedIn(def), f.def):
				t.Errorf("%s gives -%s the default %q; serve -h says %q", file, name, def, f.def)
			case f.def == "" && strings.HasPrefix(def, "`") && strings.Count(def, "`") == 2 && strings.HasSuffix(def, "`"):
				t.Errorf("%s gives -%s the default %s; serve -h gives it none (it is computed at start, or empty)", file, name, def)
			}
		}
		if !slices.Equal(vars, wantVars) {
			t.Errorf("%s's variables for %s are %v, want %v", file, cells[0], vars, wantVars)
		}
	}
	for name := range flags {
		if !inTable[name] {
			t.Errorf("serve has -%s, which %s's configuration table does not list", name, file)
		}
	}
}

// readmeNumber is a number written in prose or code, as opposed to a digit
// inside a name (SHA-1, argon2id, /api/v1).
var readmeNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// numericDefault matches a flag default that is a whole number, with a
// unit or without: 5s, 500, 6MiB.
var numericDefault = regexp.MustCompile(`^(\d+)[A-Za-z]*$`)

// thousands matches a number written with thousands separators (1,200).
var thousands = regexp.MustCompile(`^\d{1,3}(,\d{3})+$`)

// partOfName reports whether the digits starting at i of text belong to a
// name: they follow a letter, a digit or '_', or a '-', '.' or '/' that
// itself follows a letter or a digit.
func partOfName(text string, i int) bool {
	if i == 0 {
		return false
	}
	isWordByte := func(b byte) bool { return b == '_' || b < 0x80 && unicode.IsLetter(rune(b)) || b >= '0' && b <= '9' }
	prev := text[i-1]
	if isWordByte(prev) {
		return true
	}
	return strings.IndexByte("-./", prev) >= 0 && i >= 2 && isWordByte(text[i-2])
}

// TestReadmeNumbersAreChecked: every number the README writes is one this
// test computes from the code, so none can drift from what the code does.
// A new number in the README needs a line here that computes it, or it
// belongs in a guide under docs/.
func TestReadmeNumbersAreChecked(t *testing.T) {
	t.Parallel()
	checked := map[string]string{
		strconv.Itoa(hashid.Formats()): "the number of hash formats, hashid.Formats()",
	}
	for _, f := range serveFlags(t) {
		if f.name == "addr" {
			host, port, err := net.SplitHostPort(f.def)
			if err != nil {
				t.Fatalf("serve's -addr default %q: %v", f.def, err)
			}
			checked[host] = "the host of serve's -addr default"
			checked[port] = "the port of serve's -addr default"
		}
		if m := numericDefault.FindStringSubmatch(f.def); m != nil {
			checked[m[1]] = "the number of serve's -" + f.name + " default"
		}
	}
	readme := readReadme(t)
	for _, loc := range readmeNumber.FindAllStringIndex(readme, -1) {
		if partOfName(readme, loc[0]) {
			continue
		}
		number := readme[loc[0]:loc[1]]
		if thousands.MatchString(number) {
			number = strings.ReplaceAll(number, ",", "")
		}
		if _, ok := checked[number]; !ok {
			line := strings.Count(readme[:loc[0]], "\n") + 1
			t.Errorf("README.md:%d writes %s, which is none of the numbers this test computes (%v): compute it here or leave it to a guide under docs/", line, readme[loc[0]:loc[1]], checked)
		}
	}
}

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fence        = regexp.MustCompile("(?m)^```")
)

// outsideCode returns text with its fenced code blocks removed.
func outsideCode(text string) string {
	parts := fence.Split(text, -1)
	var b strings.Builder
	for i := 0; i < len(parts); i += 2 {
		b.WriteString(parts[i])
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file: lower case, punctuation dropped, spaces as '-'.
func headingAnchors(text string) []string {
	var anchors []string
	for line := range strings.Lines(outsideCode(text)) {
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var a strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		anchors = append(anchors, a.String())
	}
	return anchors
}

// TestDocsLinksResolve: every relative link of the README and of the
// guides in docs/ names a file of the repository, and every #fragment a
// heading of the file it points into.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	guides, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append([]string{"README.md"}, guides...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(outsideCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			rel, fragment, _ := strings.Cut(target, "#")
			linked := file
			if rel != "" {
				linked = path.Join(path.Dir(file), rel)
				if _, err := os.Stat(linked); err != nil {
					t.Errorf("%s links to %s, which does not exist", file, target)
					continue
				}
			}
			if fragment == "" {
				continue
			}
			text, err := os.ReadFile(linked)
			if err != nil {
				t.Errorf("%s links to %s: %v", file, target, err)
				continue
			}
			if !slices.Contains(headingAnchors(string(text)), fragment) {
				t.Errorf("%s links to %s, but %s has no heading with that anchor", file, target, linked)
			}
		}
	}
}
