package hashid

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// John the Ripper jumbo's own test vectors are not part of this repository:
// TestJohnVectors reads them from a John source tree named by the
// environment (JOHN_SRC=/path/to/john/src) and measures how often Identify
// names the format John reads each vector with. With JOHN_HASHCAT_OUT set
// it also writes the vectors it rewrote for hashcat (mode, John format,
// string) to that file, for docs/bench/john-hashcat-load.sh to load them
// into hashcat. docs/bench/john.md gives the figures and the commands.

// johnVector is one test vector of one John format.
type johnVector struct {
	label string // the format's --format name
	file  string // where it is defined
	hash  string
}

// maxJohnVectors is how many vectors of each format are measured.
const maxJohnVectors = 3

var (
	cDefine    = regexp.MustCompile(`(?m)^\s*#\s*define\s+(\w+)[ \t]+(.*)$`)
	cFmtMain   = regexp.MustCompile(`struct\s+fmt_main\s+(\w+)\s*=\s*\{`)
	cTests     = regexp.MustCompile(`struct\s+fmt_tests\s+(\w+)\s*\[\s*\w*\s*\]\s*=\s*\{`)
	cInclude   = regexp.MustCompile(`(?m)^\s*#\s*include\s+"([^"]+)"`)
	cDynSetup  = regexp.MustCompile(`\{\s*"dynamic_(\d+):\s*([^"]*)",\s*\w+,\s*(\w+)`)
	cDynLarge  = regexp.MustCompile(`(?m)^\s*SETUP_LARGE_HASH(?:_SIMD)?\((\w+),\s*\w+,\s*\w+,\s*(\d+),`)
	cLineStart = regexp.MustCompile(`(?m)^\s*#.*$`)
)

// cSource is one C file with its comments and preprocessor lines removed
// (both branches of an #if are kept) and its string macros.
type cSource struct {
	name    string
	text    string
	defines map[string]string
	include []string
}

func readCSource(path string) (*cSource, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	raw := stripComments(string(b))
	src := &cSource{name: filepath.Base(path), defines: map[string]string{}}
	for _, m := range cDefine.FindAllStringSubmatch(raw, -1) {
		if _, dup := src.defines[m[1]]; !dup {
			src.defines[m[1]] = strings.TrimSpace(m[2])
		}
	}
	for _, m := range cInclude.FindAllStringSubmatch(raw, -1) {
		src.include = append(src.include, m[1])
	}
	src.text = cLineStart.ReplaceAllString(raw, "")
	return src, nil
}

// stripComments removes C comments, leaving string literals alone.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"' || s[i] == '\'':
			q := s[i]
			j := i + 1
			for j < len(s) && s[j] != q && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(s)-1)
			b.WriteString(s[i : j+1])
			i = j
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			b.WriteString(strings.Repeat("\n", strings.Count(s[i:i+2+end], "\n")))
			i += end + 3
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// johnTree is a John source directory, read once.
type johnTree struct {
	dir   string
	files map[string]*cSource
}

func (t *johnTree) file(name string) *cSource {
	if f, ok := t.files[name]; ok {
		return f
	}
	f, err := readCSource(filepath.Join(t.dir, name))
	if err != nil {
		f = nil
	}
	t.files[name] = f
	return f
}

// define finds a macro seen from f: in f, then in what it includes.
func (t *johnTree) define(f *cSource, name string, depth int) (string, *cSource, bool) {
	if v, ok := f.defines[name]; ok {
		return v, f, true
	}
	if depth > 2 {
		return "", nil, false
	}
	for _, inc := range f.include {
		if g := t.file(inc); g != nil {
			if v, where, ok := t.define(g, name, depth+1); ok {
				return v, where, ok
			}
		}
	}
	return "", nil, false
}

// stringExpr evaluates a C expression of string literals and string macros
// (FORMAT_TAG "abc"), as seen from f; ok is false for anything else.
func (t *johnTree) stringExpr(f *cSource, expr string, depth int) (string, bool) {
	expr = strings.TrimSpace(expr)
	var out strings.Builder
	any := false
	for expr != "" {
		switch c := expr[0]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			expr = expr[1:]
		case c == '"':
			s, rest, ok := cString(expr)
			if !ok {
				return "", false
			}
			out.WriteString(s)
			expr, any = rest, true
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			n := 1
			for n < len(expr) && (expr[n] == '_' || expr[n] >= '0' && expr[n] <= '9' || expr[n] >= 'A' && expr[n] <= 'Z' || expr[n] >= 'a' && expr[n] <= 'z') {
				n++
			}
			v, where, ok := t.define(f, expr[:n], 0)
			if !ok || depth > 4 {
				return "", false
			}
			s, ok := t.stringExpr(where, v, depth+1)
			if !ok {
				return "", false
			}
			out.WriteString(s)
			expr, any = expr[n:], true
		default:
			return "", false
		}
	}
	return out.String(), any
}

// cString decodes the C string literal s starts with.
func cString(s string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			i++
			if i >= len(s) {
				return "", "", false
			}
			switch c := s[i]; c {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				j := i + 1
				for j < len(s) && j < i+3 && isHex(s[j:j+1]) {
					j++
				}
				v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
				b.WriteByte(byte(v))
				i = j - 1
			case '0', '1', '2', '3', '4', '5', '6', '7':
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 8)
				b.WriteByte(byte(v))
				i = j - 1
			default:
				b.WriteByte(c)
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", false
}

// skipQuoted returns the index of the quote that closes the C string or
// character literal opening at s[i].
func skipQuoted(s string, i int) int {
	q := s[i]
	for i++; i < len(s) && s[i] != q; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i
}

// braced returns the text inside the braces that open at s[0].
func braced(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipQuoted(s, i)
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i]
			}
		}
	}
	return s
}

// splitTop splits s at the commas outside braces, parentheses and strings.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipQuoted(s, i)
		case '{', '(':
			depth++
		case '}', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// testsArray reads the vectors of the fmt_tests array named name, looked
// for in f and then in every file of the tree.
func (t *johnTree) testsArray(f *cSource, name string) []string {
	find := func(g *cSource) []string {
		for _, m := range cTests.FindAllStringSubmatchIndex(g.text, -1) {
			if g.text[m[2]:m[3]] != name {
				continue
			}
			body := braced(g.text[m[1]-1:])
			var out []string
			for _, entry := range splitTop(body) {
				entry = strings.TrimSpace(entry)
				if !strings.HasPrefix(entry, "{") {
					continue
				}
				inner := braced(entry)
				parts := splitTop(inner)
				hash, ok := t.stringExpr(g, parts[0], 0)
				if !ok {
					continue // {NULL} and the like
				}
				// With a fields array ({user, hash, ...}), the vector is
				// the passwd line John reads: the user, then the hash
				// (from the fields when the ciphertext is empty).
				if len(parts) > 2 && strings.HasPrefix(strings.TrimSpace(parts[2]), "{") {
					fields := braced(strings.TrimSpace(parts[2]))
					fs := splitTop(fields)
					user, _ := t.stringExpr(g, fs[0], 0)
					if hash == "" && len(fs) > 1 {
						hash, _ = t.stringExpr(g, fs[1], 0)
					}
					if user != "" && hash != "" {
						hash = user + ":" + hash
					}
				}
				if hash != "" {
					out = append(out, hash)
				}
			}
			return out
		}
		return nil
	}
	if v := find(f); v != nil {
		return v
	}
	for _, inc := range f.include {
		if g := t.file(inc); g != nil {
			if v := find(g); v != nil {
				return v
			}
		}
	}
	if name == "tests" {
		return nil // a file's own array, not another file's
	}
	names, _ := filepath.Glob(filepath.Join(t.dir, "*.[ch]"))
	for _, n := range names {
		if g := t.file(filepath.Base(n)); g != nil && strings.Contains(g.text, name) {
			if v := find(g); v != nil {
				return v
			}
		}
	}
	return nil
}

// johnVectors reads every CPU format of the tree: each fmt_main of the
// *_fmt_plug.c and *_fmt.c files (OpenCL and ZTEX builds of a format carry
// the same vectors and are left out) and each preloaded dynamic_N.
func johnVectors(t *testing.T, dir string) []johnVector {
	tree := &johnTree{dir: dir, files: map[string]*cSource{}}
	paths, _ := filepath.Glob(filepath.Join(dir, "*_fmt*.c"))
	sort.Strings(paths)
	var out []johnVector
	seen := map[string]bool{}
	for _, path := range paths {
		base := filepath.Base(path)
		if strings.HasPrefix(base, "opencl_") || strings.HasPrefix(base, "ztex_") || base == "dynamic_fmt.c" {
			continue
		}
		f := tree.file(base)
		if f == nil {
			continue
		}
		for _, m := range cFmtMain.FindAllStringSubmatchIndex(f.text, -1) {
			body := braced(f.text[m[1]-1:])
			params := braced(strings.TrimSpace(body))
			fields := splitTop(params)
			if len(fields) < 3 {
				continue
			}
			label, ok := tree.stringExpr(f, fields[0], 0)
			testsName := strings.TrimSpace(fields[len(fields)-1])
			if !ok || label == "" || seen[strings.ToLower(label)] {
				continue
			}
			seen[strings.ToLower(label)] = true
			for i, h := range tree.testsArray(f, testsName) {
				if i == maxJohnVectors {
					break
				}
				out = append(out, johnVector{label: label, file: base, hash: h})
			}
		}
	}
	pre := tree.file("dynamic_preloads.c")
	if pre == nil {
		t.Fatalf("%s: no dynamic_preloads.c", dir)
	}
	type dyn struct{ n, expr, tests string }
	var dyns []dyn
	for _, m := range cDynSetup.FindAllStringSubmatch(pre.text, -1) {
		dyns = append(dyns, dyn{m[1], m[2], m[3]})
	}
	for _, m := range cDynLarge.FindAllStringSubmatch(pre.text, -1) {
		for k := range 9 {
			dyns = append(dyns, dyn{m[2] + strconv.Itoa(k), m[1], "_Preloads_" + m[2] + strconv.Itoa(k)})
		}
	}
	for _, d := range dyns {
		label := "dynamic_" + d.n
		if seen[label] {
			continue
		}
		seen[label] = true
		for i, h := range tree.testsArray(pre, d.tests) {
			if i == maxJohnVectors {
				break
			}
			out = append(out, johnVector{label: label, file: "dynamic_preloads.c", hash: h})
		}
	}
	return out
}

// johnRank is the 1-based position of the first candidate naming label as
// its John format or one of John's formats that also read it, 0 if none
// does.
func johnRank(cs []Candidate, label string) int {
	for i, c := range cs {
		if strings.EqualFold(c.JohnFormat, label) {
			return i + 1
		}
		for _, also := range c.JohnAlso {
			if strings.EqualFold(also, label) {
				return i + 1
			}
		}
	}
	return 0
}

func TestJohnVectors(t *testing.T) {
	dir := os.Getenv("JOHN_SRC")
	if dir == "" {
		t.Skip("JOHN_SRC (a John the Ripper jumbo src directory) not set")
	}
	vectors := johnVectors(t, dir)
	if len(vectors) == 0 {
		t.Fatalf("%s: no test vectors found", dir)
	}
	var all, named, both, only, dynamic, rewritten agreement
	var toHashcat []string // mode, John format, the string rewritten for hashcat
	formatsSeen := map[string]bool{}
	hashcatHas := johnFormatsHashcatHas()
	for _, v := range vectors {
		formatsSeen[strings.ToLower(v.label)] = true
		res := Identify(v.hash)
		rank := johnRank(res.Candidates, v.label)
		all.add(rank)
		if !strings.HasPrefix(v.label, "dynamic_") {
			named.add(rank)
		}
		// A string rewritten for hashcat is identified as the same mode.
		if rank > 0 {
			c := res.Candidates[rank-1]
			if h, ok := c.Params["hashcat_hash"].(string); ok {
				r := rankOf(Identify(h).Candidates, *c.HashcatMode)
				rewritten.add(r)
				if r == 0 && testing.Verbose() {
					t.Logf("REWRITE %s -> mode %d not identified: %.200q", v.label, *c.HashcatMode, h)
				}
				toHashcat = append(toHashcat, strconv.Itoa(*c.HashcatMode)+"\t"+v.label+"\t"+h)
			}
		}
		switch {
		case strings.HasPrefix(v.label, "dynamic_"):
			dynamic.add(rank)
		case hashcatHas[strings.ToLower(v.label)]:
			both.add(rank)
		default:
			only.add(rank)
		}
		if rank != 1 && testing.Verbose() {
			first := "nothing"
			if len(res.Candidates) > 0 {
				first = res.Candidates[0].Name + " (" + res.Candidates[0].JohnFormat + ")"
			}
			t.Logf("MISS %s [%s] rank %d, first %s: %.400q", v.label, v.file, rank, first, v.hash)
		}
	}
	t.Logf("John formats: %d, vectors: %d", len(formatsSeen), len(vectors))
	t.Logf("all: %v", all)
	t.Logf("all but dynamic_N: %v", named)
	t.Logf("formats hashcat also has: %v", both)
	t.Logf("formats only John knows: %v", only)
	t.Logf("dynamic_N: %v", dynamic)
	t.Logf("rewritten for hashcat (hashcat_hash), identified as the same mode: %v", rewritten)
	if out := os.Getenv("JOHN_HASHCAT_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(toHashcat, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// johnFormatsHashcatHas are the John formats (lower case) the table maps
// to a hashcat mode.
func johnFormatsHashcatHas() map[string]bool {
	out := map[string]bool{}
	for _, f := range formats {
		if f.john != "" && f.mode != noMode {
			out[strings.ToLower(f.john)] = true
		}
	}
	return out
}
