package hashid

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// example is one line of a fixture: a string and the hashcat mode (or, for
// formats hashcat lacks, the name) it was produced as.
type example struct {
	mode    int
	name    string
	cat     string
	example string
}

// hashcatExamples reads testdata/hashcat-examples.tsv.gz, hashcat 6.2.6's
// example hash of every mode whose input is text (gen_examples.go). The
// fixture is read once per test binary; callers share the slice and must
// not change it.
func hashcatExamples(t testing.TB) []example {
	t.Helper()
	examples, err := readHashcatExamples()
	if err != nil {
		t.Fatal(err)
	}
	return examples
}

// readHashcatExamples decompresses and parses the 3 MB fixture, which five
// tests and two benchmarks read.
var readHashcatExamples = sync.OnceValues(func() ([]example, error) {
	f, err := os.Open("testdata/hashcat-examples.tsv.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var out []example
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("fixture line %.60q: %d fields", line, len(f))
		}
		mode, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, err
		}
		out = append(out, example{mode: mode, name: f[1], cat: f[2], example: f[3]})
	}
	return out, sc.Err()
})

// rankOf is the 1-based position of mode among the candidates, 0 if absent.
func rankOf(cs []Candidate, mode int) int {
	for i, c := range cs {
		if c.HashcatMode != nil && *c.HashcatMode == mode {
			return i + 1
		}
	}
	return 0
}

// agreement counts how often the true mode is among the candidates, in the
// first five, and first.
type agreement struct{ total, among, five, first int }

func (a *agreement) add(rank int) {
	a.total++
	if rank > 0 {
		a.among++
	}
	if rank > 0 && rank <= 5 {
		a.five++
	}
	if rank == 1 {
		a.first++
	}
}

func pct(n, total int) float64 { return 100 * float64(n) / float64(total) }

func (a agreement) String() string {
	return strconv.Itoa(a.total) + " strings: among the candidates " + strconv.FormatFloat(pct(a.among, a.total), 'f', 1, 64) +
		"%, in the first five " + strconv.FormatFloat(pct(a.five, a.total), 'f', 1, 64) +
		"%, first " + strconv.FormatFloat(pct(a.first, a.total), 'f', 1, 64) + "%"
}

// TestHashcatExamples: every example of the fixture is identified with its
// hashcat mode among the candidates, and the table's name, category and
// mode agree with hashcat's.
func TestHashcatExamples(t *testing.T) {
	var a agreement
	for _, ex := range hashcatExamples(t) {
		res := Identify(ex.example)
		rank := rankOf(res.Candidates, ex.mode)
		a.add(rank)
		if rank == 0 {
			var got []string
			for _, c := range res.Candidates {
				got = append(got, c.Name)
			}
			t.Errorf("mode %d (%s): not among %d candidates %q; example %.80q", ex.mode, ex.name, len(res.Candidates), got, ex.example)
			continue
		}
		if c := res.Candidates[rank-1]; c.Category != ex.cat {
			t.Errorf("mode %d: category %q, hashcat says %q", ex.mode, c.Category, ex.cat)
		}
	}
	t.Logf("hashcat 6.2.6 examples: %v", a)
}

// realTools reads testdata/realtools.tsv: hashes made by openssl, htpasswd,
// mkpasswd, slappasswd, doveadm, Python (hashlib, passlib, Werkzeug,
// Django), PHP, MariaDB and PostgreSQL (realtools.sh), each with the name of
// the format it is.
func realTools(t testing.TB) []example {
	t.Helper()
	b, err := os.ReadFile("testdata/realtools.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("realtools line %.60q: %d fields", line, len(f))
		}
		out = append(out, example{cat: f[0], name: f[1], example: f[2]})
	}
	return out
}

// Targets on hashes from real tools: the right format first for at least
// 95%, among the first five for all.
const (
	realToolsFirst = 95
)

func TestRealTools(t *testing.T) {
	var a agreement
	for _, ex := range realTools(t) {
		if byName[ex.name] == nil {
			t.Errorf("%s: no format named %q", ex.cat, ex.name)
			continue
		}
		res := Identify(ex.example)
		rank := 0
		for i, c := range res.Candidates {
			if c.Name == ex.name {
				rank = i + 1
				break
			}
		}
		a.add(rank)
		if rank != 1 {
			first := "nothing"
			if len(res.Candidates) > 0 {
				first = res.Candidates[0].Name
			}
			t.Logf("%s: %q at rank %d (first %q): %.80s", ex.cat, ex.name, rank, first, ex.example)
		}
		if rank == 0 || rank > 5 {
			t.Errorf("%s: %q not in the first five", ex.cat, ex.name)
		}
	}
	t.Logf("real tools: %v", a)
	if pct(a.first, a.total) < realToolsFirst {
		t.Errorf("real tools: first below %d%%: %v", realToolsFirst, a)
	}
}

// maxCalibrationError bounds the expected calibration error on the real-tool
// hashes: over every candidate, grouped in tenths of confidence, the gap
// between a group's mean confidence and how often its candidates are right,
// weighted by the group's size.
const maxCalibrationError = 0.05

// TestCalibration: a candidate's confidence is how often such a candidate is
// the right format, on strings people get from real tools.
func TestCalibration(t *testing.T) {
	var n [11]float64
	var conf, right [11]float64
	total := 0.0
	for _, ex := range realTools(t) {
		for _, c := range Identify(ex.example).Candidates {
			b := int(c.Confidence * 10)
			n[b]++
			conf[b] += c.Confidence
			if c.Name == ex.name {
				right[b]++
			}
			total++
		}
	}
	ece := 0.0
	for b := range n {
		if n[b] > 0 {
			ece += n[b] / total * math.Abs(right[b]/n[b]-conf[b]/n[b])
			t.Logf("confidence %.1f-%.1f: %3.0f candidates, mean %.2f, right %.2f", float64(b)/10, float64(b+1)/10, n[b], conf[b]/n[b], right[b]/n[b])
		}
	}
	t.Logf("expected calibration error %.3f", ece)
	if ece > maxCalibrationError {
		t.Errorf("expected calibration error %.3f above %.2f", ece, maxCalibrationError)
	}
}
