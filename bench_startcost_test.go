package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget bounds the heap work one of our packages may do at package
// init. Every process pays for it, "secutil version" and "secutil help"
// included (docs/BENCHMARKS.md, Start cost), so tables, regexps and the
// like are built on first use (sync.OnceValue, or a function loadTables
// calls) instead. The bound catches one package-level regexp.MustCompile of
// any size or a table built at init, not a few errors.New.
type initBudget struct {
	allocs, bytes int
}

var (
	defaultInitBudget = initBudget{allocs: 64, bytes: 16 << 10}
	// secutil/server declares its error codes, its errors and its
	// utilities at init: 183 allocations, 10 KB today.
	serverInitBudget = initBudget{allocs: 320, bytes: 24 << 10}
)

// TestOurPackagesDoLittleAtInit runs "secutil version" with
// GODEBUG=inittrace=1, which makes the runtime report, for each package,
// the memory its init allocated, and holds each of our packages that the
// binary links to its budget. secutil here is this test binary (a second
// link would cost seconds), so package main and the test-only packages
// also carry test code and are left out.
func TestOurPackagesDoLittleAtInit(t *testing.T) {
	t.Parallel()
	linked := map[string]bool{}
	for _, p := range goList(t) {
		if p.ImportPath == modulePath {
			for _, dep := range p.Deps {
				linked[dep] = true
			}
		}
	}
	cmd := exec.Command(secutilBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG="+strings.TrimPrefix(os.Getenv("GODEBUG")+",inittrace=1", ","))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		pkg, allocs, bytes, ok := parseInitTrace(sc.Text())
		if !ok || !strings.HasPrefix(pkg, modulePath+"/") || !linked[pkg] {
			continue
		}
		seen++
		budget := defaultInitBudget
		if pkg == modulePath+"/server" {
			budget = serverInitBudget
		}
		if allocs > budget.allocs || bytes > budget.bytes {
			t.Errorf("%s allocates %d times (%d bytes) at init, over its budget of %d (%d bytes): build package-level tables and regexps on first use",
				pkg, allocs, bytes, budget.allocs, budget.bytes)
		}
	}
	if seen < 10 {
		t.Fatalf("inittrace reported %d of our packages, want the server, store and tools ones:\n%s", seen, stderr.Bytes())
	}
}

// parseInitTrace reads one line of GODEBUG=inittrace=1 output:
// "init secutil/server @138 ms, 0.70 ms clock, 10888 bytes, 187 allocs".
func parseInitTrace(line string) (pkg string, allocs, bytes int, ok bool) {
	f := strings.Fields(line)
	if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
		return "", 0, 0, false
	}
	bytes, err1 := strconv.Atoi(f[7])
	allocs, err2 := strconv.Atoi(f[9])
	return f[1], allocs, bytes, err1 == nil && err2 == nil
}

func TestParseInitTrace(t *testing.T) {
	t.Parallel()
	pkg, allocs, bytes, ok := parseInitTrace("init secutil/server @138 ms, 0.70 ms clock, 10888 bytes, 187 allocs")
	if !ok || pkg != "secutil/server" || allocs != 187 || bytes != 10888 {
		t.Errorf("parseInitTrace = %q, %d, %d, %v", pkg, allocs, bytes, ok)
	}
	for _, line := range []string{"", "init", "secutil version v1", "init x @1 ms, 2 ms clock, many bytes, 3 allocs"} {
		if _, _, _, ok := parseInitTrace(line); ok {
			t.Errorf("parseInitTrace(%q) is ok", line)
		}
	}
}
