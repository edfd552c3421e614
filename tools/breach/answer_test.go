package breach_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"secutil/tools/breach"
)

// wantAnswer is the range API's text for the entries, built the plain way.
func wantAnswer(entries []breach.RangeEntry) string {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = fmt.Sprintf("%s:%d", e.Suffix, e.Count)
	}
	return strings.Join(lines, "\r\n")
}

// answerLine is one parsed line of a range answer.
type answerLine struct {
	suffix string
	count  int64
}

// parseAnswer splits an answer on CRLF and checks every line's shape.
func parseAnswer(t *testing.T, answer string, suffixLen int) []answerLine {
	t.Helper()
	if answer == "" {
		return nil
	}
	if strings.HasSuffix(answer, "\r\n") || strings.HasPrefix(answer, "\r\n") {
		t.Fatalf("answer starts or ends with CRLF")
	}
	var out []answerLine
	for l := range strings.SplitSeq(answer, "\r\n") {
		suffix, count, ok := strings.Cut(l, ":")
		n, err := strconv.ParseInt(count, 10, 64)
		if !ok || err != nil || len(suffix) != suffixLen || strings.ToUpper(suffix) != suffix || strings.ContainsAny(suffix, "\r\n") {
			t.Fatalf("malformed answer line %q", l)
		}
		out = append(out, answerLine{suffix, n})
	}
	return out
}

func TestAppendRangeMatchesRange(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		lines := randomLines(r, 3000, kind)
		for i := range 50 {
			lines = append(lines, line{"ABCDE" + fmt.Sprintf("%0*X", 2*kind.DigestLen()-5, i*104729), int64(i + 1)})
		}
		slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.hash, b.hash) })
		for _, eol := range []string{"\n", "\r\n"} {
			f := open(t, writeFile(t, lines, eol, eol == "\n"), kind)
			for _, prefix := range []string{"abcde", "ABCDE", lines[0].hash[:5], lines[1500].hash[:5], lines[len(lines)-1].hash[:5], "00000", "fffff"} {
				got, err := f.AppendRange([]byte("kept"), prefix, false)
				if err != nil {
					t.Fatal(err)
				}
				want := "kept" + wantAnswer(linearRange(lines, strings.ToUpper(prefix)))
				if string(got) != want {
					t.Fatalf("%v %q: got %q, want %q", kind, prefix, got, want)
				}
			}
		}
	}
}

func TestAppendRangeLowerCaseFile(t *testing.T) {
	path := writeFile(t, []line{{"5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", 10437277}}, "\n", true)
	f := open(t, path, breach.KindSHA1)
	got, err := f.AppendRange(nil, "5baa6", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1E4C9B93F3F0682250B6CF8331B7EE68FD8:10437277"; string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestAppendRangeCountDigits checks that an answer line copied from the
// file keeps its count as the API writes it: a count with leading zeros
// (a hand-made file) loses them, a count of 0 stays.
func TestAppendRangeCountDigits(t *testing.T) {
	t.Parallel()
	content := "ABCDE00000000000000000000000000000000001:007\r\n" +
		"ABCDE00000000000000000000000000000000002:0\r\n" +
		"ABCDE00000000000000000000000000000000003:10\r\n"
	path := filepath.Join(t.TempDir(), "pwned.txt")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, breach.KindSHA1)
	got, err := f.AppendRange(nil, "abcde", false)
	if err != nil {
		t.Fatal(err)
	}
	want := "00000000000000000000000000000000001:7\r\n00000000000000000000000000000000002:0\r\n00000000000000000000000000000000003:10"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestAppendRangeBadPrefix(t *testing.T) {
	f := open(t, writeFile(t, randomLines(rand.New(rand.NewPCG(1, 1)), 10, breach.KindSHA1), "\n", true), breach.KindSHA1)
	for _, bad := range []string{"", "1234", "123456", "1234G", "12 45"} {
		got, err := f.AppendRange([]byte("kept"), bad, true)
		if !errors.Is(err, breach.ErrBadPrefix) || string(got) != "kept" {
			t.Fatalf("%q: got %q, %v; want the buffer unchanged and ErrBadPrefix", bad, got, err)
		}
	}
}

// TestAppendRangePadded checks the padding the range API promises: every
// padded answer holds 800 to 1,000 lines (or all real lines when there are
// more), sorted, the real lines unchanged and the others with count 0 and
// distinct suffixes; and the size varies from call to call.
func TestAppendRangePadded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, kind := range []breach.Kind{breach.KindSHA1, breach.KindNTLM} {
		suffixLen := 2*kind.DigestLen() - breach.PrefixLen
		lines := randomLines(r, 2000, kind)
		// "AAAAA" holds more lines than any padded answer; "ABCDE" a few.
		for i := range breach.MaxPaddedLines + 20 {
			lines = append(lines, line{"AAAAA" + fmt.Sprintf("%0*X", suffixLen, i*7919), int64(i + 1)})
		}
		for i := range 30 {
			lines = append(lines, line{"ABCDE" + fmt.Sprintf("%0*X", suffixLen, i*7919), int64(i + 1)})
		}
		slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.hash, b.hash) })
		f := open(t, writeFile(t, lines, "\r\n", false), kind)
		for _, prefix := range []string{"ABCDE", "00000", lines[100].hash[:5], "AAAAA"} {
			realLines := linearRange(lines, prefix)
			sizes := map[int]bool{}
			for range 20 {
				answer, err := f.AppendRange(nil, prefix, true)
				if err != nil {
					t.Fatal(err)
				}
				got := parseAnswer(t, string(answer), suffixLen)
				sizes[len(got)] = true
				if len(realLines) >= breach.MinPaddedLines {
					if want := wantAnswer(realLines); string(answer) != want {
						t.Fatalf("%v %s: a range of %d lines was padded", kind, prefix, len(realLines))
					}
					continue
				}
				if len(got) < breach.MinPaddedLines || len(got) > breach.MaxPaddedLines {
					t.Fatalf("%v %s: %d lines, want %d to %d", kind, prefix, len(got), breach.MinPaddedLines, breach.MaxPaddedLines)
				}
				var kept []breach.RangeEntry
				for i, l := range got {
					if i > 0 && got[i-1].suffix >= l.suffix {
						t.Fatalf("%v %s: line %d (%s) not after line %d (%s)", kind, prefix, i, l.suffix, i-1, got[i-1].suffix)
					}
					if l.count != 0 {
						kept = append(kept, breach.RangeEntry{Suffix: l.suffix, Count: l.count})
					}
				}
				if !slices.Equal(kept, realLines) {
					t.Fatalf("%v %s: the real lines changed: got %d, want %d", kind, prefix, len(kept), len(realLines))
				}
			}
			if len(realLines) < breach.MinPaddedLines && len(sizes) < 2 {
				t.Fatalf("%v %s: 20 padded answers all had %v lines", kind, prefix, sizes)
			}
		}
	}
}
