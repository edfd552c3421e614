package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

const modulePath = "secutil"

// readmeSection returns the lines of the README section with the given
// "## " heading, up to the next one.
func readmeSection(t *testing.T, heading string) []string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(readme), "\n## "+heading+"\n")
	if !found {
		t.Fatalf("README.md has no %q section", "## "+heading)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return strings.Split(section, "\n")
}

var backticked = regexp.MustCompile("`([^`]+)`")

// namedEntries returns the paths a bullet of the structure section is
// about: the backticked names before its " — ".
func namedEntries(bullet string) []string {
	head, _, _ := strings.Cut(bullet, " — ")
	var names []string
	for _, m := range backticked.FindAllStringSubmatch(head, -1) {
		names = append(names, strings.TrimSuffix(m[1], "/"))
	}
	return names
}

// TestReadmeStructureMatchesTree keeps the README's "Project structure" in
// step with the tree: its top-level bullets name (or match, as `*.go` does)
// exactly the entries of the repository's root (dot files and git-ignored
// build products aside), and its nested bullets name every Go package under
// cmd/, server/, store/ and tools/, each by its directory or, for a group, by a
// directory followed by "/..." (`server/internal/...`). The tree is the
// section's first list.
func TestReadmeStructureMatchesTree(t *testing.T) {
	var topLevel, nested []string
	for _, line := range readmeSection(t, "Project structure") {
		if line == "" && len(topLevel) > 0 {
			break // the end of the first list, the tree
		}
		switch {
		case strings.HasPrefix(line, "- "):
			topLevel = append(topLevel, namedEntries(line)...)
		case strings.HasPrefix(line, "  - "):
			nested = append(nested, namedEntries(line)...)
		}
	}
	for _, name := range append(slices.Clone(topLevel), nested...) {
		if matches, err := filepath.Glob(strings.TrimSuffix(name, "/...")); err != nil || len(matches) == 0 {
			t.Errorf("README's Project structure names %s, which does not exist", name)
		}
	}

	ignored := gitIgnorePatterns(t)
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || ignored.match(e.Name(), e.IsDir()) {
			continue
		}
		if !slices.ContainsFunc(topLevel, func(pattern string) bool { ok, _ := path.Match(pattern, e.Name()); return ok }) {
			t.Errorf("README's Project structure has no top-level bullet for %s", e.Name())
		}
	}

	for _, root := range []string{"cmd", "server", "store", "tools"} {
		for _, dir := range goPackageDirs(t, root) {
			if dir != root && !slices.ContainsFunc(nested, func(name string) bool { return namesPackage(name, dir) }) {
				t.Errorf("README's Project structure has no nested bullet for the package %s", dir)
			}
		}
	}
}

// namesPackage reports whether a nested bullet's name covers the package
// directory dir: it is dir, or a directory of dir's followed by "/...".
func namesPackage(name, dir string) bool {
	if group, ok := strings.CutSuffix(name, "/..."); ok {
		return dir == group || strings.HasPrefix(dir, group+"/")
	}
	return name == dir
}

// goPackageDirs lists the directories under root holding non-test Go files.
func goPackageDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			if dir := filepath.ToSlash(filepath.Dir(p)); !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// gitIgnore holds the .gitignore patterns that can match a top-level entry.
type gitIgnore []struct {
	pattern string
	dirOnly bool
}

func gitIgnorePatterns(t *testing.T) gitIgnore {
	t.Helper()
	data, err := os.ReadFile(".gitignore")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var g gitIgnore
	for line := range strings.Lines(string(data)) {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") || strings.HasPrefix(p, "!") {
			continue
		}
		dirOnly := strings.HasSuffix(p, "/")
		p = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(p, "/"), "**/"), "/")
		if strings.Contains(p, "/") {
			continue // matches only deeper in the tree
		}
		g = append(g, struct {
			pattern string
			dirOnly bool
		}{p, dirOnly})
	}
	return g
}

func (g gitIgnore) match(name string, isDir bool) bool {
	for _, p := range g {
		if ok, _ := path.Match(p.pattern, name); ok && (isDir || !p.dirOnly) {
			return true
		}
	}
	return false
}

// TestGitignoreCoversWhatTheDocsCreate: what the other commands the
// README and the guides show create when run in a checkout is ignored
// too: the built binary, the folder go mod vendor fills for an offline
// build, a backup by the name backup suggests, the database's WAL files,
// an index built with import-wordlist.
func TestGitignoreCoversWhatTheDocsCreate(t *testing.T) {
	t.Parallel()
	for _, path := range notIgnored(t, []string{
		"secutil",                          // README: go build -o secutil .
		"vendor/modules.txt",               // DEPLOYMENT.md: go mod vendor
		"secutil-backup.db",                // secutil backup, given a folder, suggests this name
		"secutil.db-wal", "secutil.db-shm", // serve's SQLite files
		"secutil-hashes.db", "secutil-hashes.db-runs/md5-0.run", // import-wordlist
		"secutil-server.key",
		"secutil-before-upgrade.dump", // UPGRADING.md: pg_dump --file
	}) {
		t.Errorf("a command the docs show creates %s in the checkout, which .gitignore does not ignore", path)
	}
}

// listedPackage is the part of `go list -json` output the import rules read.
type listedPackage struct {
	ImportPath   string
	Standard     bool
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
	Module       *struct{ Path string }
}

// listedPackages is `go list -json -deps ./...`: every package of the
// module and every package they import, listed once for the tests that read
// them. Naming listedPackage's fields spares go list what it computes only
// for the others (whether each package is stale, which hashes every file):
// 0.4 CPU-second a listing instead of 0.7.
var listedPackages = sync.OnceValues(func() ([]listedPackage, error) {
	cmd := exec.Command("go", "list", "-json="+jsonFields(listedPackage{}), "-deps", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
})

// jsonFields is the comma-separated names of the fields of the struct v,
// as go list -json= takes them.
func jsonFields(v any) string {
	var names []string
	for f := range reflect.TypeOf(v).Fields() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}

// goList is listedPackages, failing the test when go list failed.
func goList(t *testing.T) []listedPackage {
	t.Helper()
	pkgs, err := listedPackages()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// layer ranks a package of this module: a package may import its own
// layer and the ones below, never one above.
func layer(importPath string) int {
	rel := strings.TrimPrefix(importPath, modulePath+"/")
	switch {
	case importPath == modulePath:
		return 4
	case rel == "cmd" || strings.HasPrefix(rel, "cmd/"):
		return 3
	case rel == "server" || strings.HasPrefix(rel, "server/"):
		return 2
	case rel == "store" || strings.HasPrefix(rel, "store/"):
		return 1
	default: // tools/...
		return 0
	}
}

func under(importPath, dir string) bool {
	p := modulePath + "/" + dir
	return importPath == p || strings.HasPrefix(importPath, p+"/")
}

// commandsPath is the package of the commands, which only main imports.
const commandsPath = modulePath + "/cmd"

func inModule(importPath string) bool {
	return importPath == modulePath || strings.HasPrefix(importPath, modulePath+"/")
}

// TestImportRules enforces the import direction the README's Project
// structure states.
func TestImportRules(t *testing.T) {
	t.Parallel()
	for _, p := range goList(t) {
		if !inModule(p.ImportPath) {
			continue // the standard library and third-party modules
		}
		allImports := slices.Concat(p.Imports, p.TestImports, p.XTestImports)
		if !under(p.ImportPath, "store") && slices.Contains(allImports, "database/sql") {
			t.Errorf("%s imports database/sql: only packages under store/ hold SQL", p.ImportPath)
		}
		if under(p.ImportPath, "store") && slices.Contains(p.Imports, "net/http") {
			t.Errorf("%s imports net/http: the store knows nothing of HTTP", p.ImportPath)
		}
		if under(p.ImportPath, "tools") {
			for _, banned := range []string{"net/http", "database/sql"} {
				if slices.Contains(p.Deps, banned) {
					t.Errorf("%s depends on %s: tools are pure functions", p.ImportPath, banned)
				}
			}
		}
		for _, imp := range allImports {
			if inModule(imp) && (imp == modulePath || layer(imp) > layer(p.ImportPath)) {
				t.Errorf("%s imports %s, a layer above it", p.ImportPath, imp)
			}
			if imp == commandsPath && p.ImportPath != modulePath {
				t.Errorf("%s imports %s: only package main hands over to the commands", p.ImportPath, imp)
			}
		}
	}
}

// TestBinaryLinksOnlyNamedDependencies: the binary links this module's
// main, cmd, server, store and tools packages (not cmd/cmdtest, which is
// test-only), and every third-party module they
// import is named in the README (its import rules list each with the reason
// it is there).
func TestBinaryLinksOnlyNamedDependencies(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	all := goList(t)
	i := slices.IndexFunc(all, func(p listedPackage) bool { return p.ImportPath == modulePath })
	if i < 0 {
		t.Fatalf("go list did not list %s", modulePath)
	}
	linked := map[string]bool{modulePath: true}
	for _, dep := range all[i].Deps {
		linked[dep] = true
	}
	moduleOf := map[string]string{}
	for _, p := range all {
		if p.Module != nil {
			moduleOf[p.ImportPath] = p.Module.Path
		}
	}
	for _, p := range all {
		if !linked[p.ImportPath] || !inModule(p.ImportPath) {
			continue
		}
		if p.ImportPath != modulePath && p.ImportPath != commandsPath && !under(p.ImportPath, "server") && !under(p.ImportPath, "store") && !under(p.ImportPath, "tools") {
			t.Errorf("the binary links %s, outside main.go, cmd/, server/, store/ and tools/", p.ImportPath)
		}
		for _, imp := range p.Imports {
			mod, thirdParty := moduleOf[imp]
			if thirdParty && mod != modulePath && !bytes.Contains(readme, []byte("`"+mod+"`")) {
				t.Errorf("%s imports %s from the module %s, which the README's import rules do not name", p.ImportPath, imp, mod)
			}
		}
	}
}

// TestOneDidYouMeanAndOnePlural: the "did you mean" distance and the
// plural of a count are written once for the whole module, in
// tools/closest and tools/plural, which every layer may import. A function
// of the shape of either anywhere else is a second copy: an edit distance
// takes two strings (and maybe a limit) and returns an int; a plural takes
// a count and two nouns and returns a string.
func TestOneDidYouMeanAndOnePlural(t *testing.T) {
	t.Parallel()
	shapes := []struct {
		name, home string
		matches    func(params []string, results []string) bool
	}{
		{"an edit distance", "tools/closest", func(p, r []string) bool {
			return slices.Equal(r, []string{"int"}) && (slices.Equal(p, []string{"string", "string"}) || slices.Equal(p, []string{"string", "string", "int"}))
		}},
		{"a plural", "tools/plural", func(p, r []string) bool {
			return slices.Equal(r, []string{"string"}) && len(p) == 3 && p[1] == "string" && p[2] == "string" && p[0] != "string"
		}},
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			params, results := fieldTypes(fn.Type.Params), fieldTypes(fn.Type.Results)
			for _, s := range shapes {
				if s.matches(params, results) && filepath.ToSlash(filepath.Dir(p)) != s.home {
					t.Errorf("%s: %s has the shape of %s; use %s, the module's one copy", fset.Position(fn.Pos()), fn.Name.Name, s.name, s.home)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fieldTypes lists a parameter or result list's types as written, one per
// name ("a, b string" is two strings).
func fieldTypes(fields *ast.FieldList) []string {
	var types []string
	if fields == nil {
		return nil
	}
	for _, f := range fields.List {
		var b strings.Builder
		if err := printer.Fprint(&b, token.NewFileSet(), f.Type); err != nil {
			continue
		}
		for range max(1, len(f.Names)) {
			types = append(types, b.String())
		}
	}
	return types
}
