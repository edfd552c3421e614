package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// echoWorker writes each line as "n:text", "n:too long" for a line over
// the limit, after a random pause that makes the workers finish chunks out
// of order.
func echoWorker(pause bool) func() listWorker {
	return func() listWorker {
		return func(_ context.Context, c *lineChunk) {
			if pause {
				time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			}
			for _, l := range c.lines {
				if l.tooLong {
					fmt.Fprintf(&c.out, "%d:too long\n", l.n)
					c.failed++
					continue
				}
				fmt.Fprintf(&c.out, "%d:%s\n", l.n, l.text)
			}
		}
	}
}

// TestListRunKeepsOrder: whatever order the workers finish in, the output
// is the input's, blank lines skipped but counted, CRLF, a byte-order mark
// and a last line without its newline read as lines.
func TestListRunKeepsOrder(t *testing.T) {
	t.Parallel()
	var in, want strings.Builder
	in.WriteString("\ufeff")
	for n := 1; n <= 5000; n++ {
		switch {
		case n%97 == 0: // blank
		case n%13 == 0:
			in.WriteString("line " + strconv.Itoa(n))
			want.WriteString(strconv.Itoa(n) + ":line " + strconv.Itoa(n) + "\n")
			in.WriteString("\r")
		default:
			in.WriteString("line " + strconv.Itoa(n))
			want.WriteString(strconv.Itoa(n) + ":line " + strconv.Itoa(n) + "\n")
		}
		if n < 5000 {
			in.WriteString("\n")
		}
	}
	var out strings.Builder
	stats, err := listRun{in: listInput{r: strings.NewReader(in.String()), size: -1}, maxLine: 100, chunk: 7, workers: 4, out: &out}.
		run(context.Background(), echoWorker(true))
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Errorf("output differs from the input's order:\n%.300s", out.String())
	}
	if stats != (listStats{lines: 5000 - 5000/97, last: 5000}) {
		t.Errorf("stats %+v", stats)
	}
}

// TestListRunLongLine: a line over the limit is reported on its line and
// the next ones are read, even when it is longer than the read buffer.
func TestListRunLongLine(t *testing.T) {
	t.Parallel()
	for _, long := range []int{11, 200 << 10} {
		in := "short\n" + strings.Repeat("x", long) + "\nnext\nlast"
		var out strings.Builder
		stats, err := listRun{in: listInput{r: strings.NewReader(in), size: -1}, maxLine: 10, chunk: 2, out: &out}.
			run(context.Background(), echoWorker(false))
		if err != nil {
			t.Fatal(err)
		}
		if want := "1:short\n2:too long\n3:next\n4:last\n"; out.String() != want {
			t.Errorf("line of %d bytes: got %q, want %q", long, out.String(), want)
		}
		if stats.failed != 1 || stats.lines != 4 {
			t.Errorf("stats %+v", stats)
		}
	}
}

// interruptingReader gives its text, then ends ctx and blocks, as a
// terminal does, until released.
type interruptingReader struct {
	text    *strings.Reader
	cancel  context.CancelFunc
	release chan struct{}
}

func (r *interruptingReader) Read(p []byte) (int, error) {
	if r.text.Len() > 0 {
		return r.text.Read(p)
	}
	r.cancel()
	<-r.release
	return 0, io.EOF
}

// newInterruptingReader is an interruptingReader of text ending ctx,
// released when the test ends.
func newInterruptingReader(t *testing.T, text string) (io.Reader, context.Context) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &interruptingReader{text: strings.NewReader(text), cancel: cancel, release: make(chan struct{})}
	t.Cleanup(func() { close(r.release) })
	return r, ctx
}

// TestListRunInterrupted: an interrupt while the reader waits for more
// input stops the run at once, and every chunk read before it is written,
// in order and whole.
func TestListRunInterrupted(t *testing.T) {
	t.Parallel()
	var in, want strings.Builder
	for n := 1; n <= 25; n++ {
		in.WriteString("w" + strconv.Itoa(n) + "\n")
		if n <= 20 { // the chunks of 10 complete before the input stalls
			want.WriteString(strconv.Itoa(n) + ":w" + strconv.Itoa(n) + "\n")
		}
	}
	r, ctx := newInterruptingReader(t, in.String())
	var out strings.Builder
	stats, err := listRun{in: listInput{r: r, size: -1}, maxLine: 100, chunk: 10, workers: 2, out: &out}.run(ctx, echoWorker(true))
	if err != nil {
		t.Fatal(err)
	}
	if !stats.interrupted || stats.last != 20 || out.String() != want.String() {
		t.Errorf("stats %+v, output %q", stats, out.String())
	}
	if err := listResult(stats, nil, "failed"); err == nil || err.Error() != "interrupted: the lines up to line 20 are written" {
		t.Errorf("error %v", err)
	}
}

// TestListRunStopsAtAnError: a worker's error ends the run with it, and
// nothing after the failed chunk is written.
func TestListRunStopsAtAnError(t *testing.T) {
	t.Parallel()
	broken := errors.New("the index is unreadable")
	var in strings.Builder
	for n := 1; n <= 1000; n++ {
		in.WriteString("w\n")
	}
	var out strings.Builder
	_, err := listRun{in: listInput{r: strings.NewReader(in.String()), size: -1}, maxLine: 10, chunk: 10, workers: 3, out: &out}.
		run(context.Background(), func() listWorker {
			return func(ctx context.Context, c *lineChunk) {
				if c.lines[0].n > 300 {
					c.err = broken
					return
				}
				fmt.Fprintf(&c.out, "%d-%d\n", c.lines[0].n, c.last)
			}
		})
	if !errors.Is(err, broken) {
		t.Fatalf("error %v, want %v", err, broken)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 30 || !strings.HasSuffix(out.String(), "291-300\n") {
		t.Errorf("wrote %d chunks, up to %q; want the 30 before the failure", lines, out.String()[max(0, out.Len()-20):])
	}
}

// failingWriter fails every write: standard output closed under the run.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestListRunWriteError(t *testing.T) {
	t.Parallel()
	_, err := listRun{in: listInput{r: strings.NewReader(strings.Repeat("w\n", 100)), size: -1}, maxLine: 10, chunk: 3, out: failingWriter{}}.
		run(context.Background(), echoWorker(false))
	if err == nil || err.Error() != "broken pipe" {
		t.Errorf("error %v, want the write's", err)
	}
}

// brokenReader gives some lines, then fails.
type brokenReader struct{ given bool }

func (r *brokenReader) Read(p []byte) (int, error) {
	if !r.given {
		r.given = true
		return copy(p, "a\nb\n"), nil
	}
	return 0, errors.New("input/output error")
}

func TestListRunReadError(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	_, err := listRun{in: listInput{r: &brokenReader{}, size: -1}, maxLine: 10, chunk: 1, out: &out}.run(context.Background(), echoWorker(false))
	if err == nil || err.Error() != "input/output error" {
		t.Errorf("error %v, want the read's", err)
	}
}

// TestListRunShowsProgress: a long run writes progress lines (rewritten in
// place) and clears the last; output to a file or pipe gets none (see
// progressTo).
func TestListRunShowsProgress(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("w\n", 40)
	var progress cmdtest.SyncBuffer
	// The first chunk takes longer than progressAfter, so that the run
	// shows progress when it is written; the other nine take no time.
	var slowFirst sync.Once
	_, err := listRun{in: listInput{r: strings.NewReader(text), size: int64(len(text))}, maxLine: 10, chunk: 4, workers: 1, out: io.Discard, progress: &progress}.
		run(context.Background(), func() listWorker {
			return func(context.Context, *lineChunk) { slowFirst.Do(func() { time.Sleep(progressAfter * 11 / 10) }) }
		})
	if err != nil {
		t.Fatal(err)
	}
	got := progress.String()
	if !strings.Contains(got, " lines/s, ") || !strings.Contains(got, "% ") && !strings.Contains(got, "%, ") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("progress %q", got)
	}
	if progressTo(&progress) != nil {
		t.Error("progress to a writer that is no terminal")
	}
}

func TestListProgress(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		size int64
		want string
	}{
		{40_000_000, "500000 lines, 250000 lines/s, 25.0%, 6s left"},
		{-1, "500000 lines, 250000 lines/s"}, // standard input: no time left
	} {
		if got := listProgress(500_000, 10_000_000, c.size, 2*time.Second); got != c.want {
			t.Errorf("size %d: got %q, want %q", c.size, got, c.want)
		}
	}
}

func TestAppendCell(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 5, "abcd…"},
		{"abcde", 5, "abcde"},
		{"a\x1b[31mb", 8, "a?[31mb "},
		{"é\xffz", 4, "é?z "},
		{"", 2, "  "},
	} {
		if got := string(appendCell(nil, c.in, c.width)); got != c.want {
			t.Errorf("appendCell(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

// TestPrintableASCII: the eight-bytes-at-a-time reading answers as the
// definition does, for every byte at every offset of a printable string and
// at either end of the printable range.
func TestPrintableASCII(t *testing.T) {
	t.Parallel()
	printable := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < ' ' || s[i] > '~' {
				return false
			}
		}
		return true
	}
	base := []byte(" ~abcdefghijklmnopqrstu")
	for n := 0; n <= len(base); n++ {
		for at := 0; at < n; at++ {
			for b := 0; b < 256; b++ {
				s := []byte(string(base[:n]))
				s[at] = byte(b)
				if got, want := printableASCII(string(s)), printable(string(s)); got != want {
					t.Fatalf("printableASCII(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

func FuzzPrintableASCII(f *testing.F) {
	for _, s := range []string{"", "abc", "0123456789abcdef\x7f", "é", "\x00\x1f ~\x7f\x80\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' })
		if got := printableASCII(s); got != want {
			t.Fatalf("printableASCII(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestAppendPadding: numbers and text right-aligned, and runs of spaces
// longer than the padding constant.
func TestAppendPadding(t *testing.T) {
	t.Parallel()
	if got := string(appendIntPadLeft(nil, 1000, 7)); got != "   1000" {
		t.Errorf("appendIntPadLeft(1000, 7) = %q", got)
	}
	if got := string(appendIntPadLeft(nil, 12345678, 7)); got != "12345678" {
		t.Errorf("appendIntPadLeft(12345678, 7) = %q", got)
	}
	if got := string(appendPadLeft(nil, "é", 3)); got != "  é" {
		t.Errorf("appendPadLeft(é, 3) = %q", got)
	}
	for _, n := range []int{-1, 0, 1, len(spaces), len(spaces) + 1, 3*len(spaces) + 5} {
		if got := string(appendSpaces([]byte("x"), n)); got != "x"+strings.Repeat(" ", max(n, 0)) {
			t.Errorf("appendSpaces(%d): %d bytes", n, len(got))
		}
	}
}

// TestOpenListInput: at most one argument, "-" or none for standard input,
// and a missing file is no usage error.
func TestOpenListInput(t *testing.T) {
	t.Parallel()
	stdin := strings.NewReader("x")
	for _, args := range [][]string{nil, {"-"}} {
		in, err := openListInput(args, stdin, "usage")
		if err != nil || in.r != stdin || in.size != -1 {
			t.Errorf("%q: %+v, %v", args, in, err)
		}
	}
	if _, err := openListInput([]string{"a", "b"}, stdin, "usage"); !errors.Is(err, ErrUsage) {
		t.Errorf("two arguments: %v", err)
	}
	if _, err := openListInput([]string{t.TempDir() + "/missing"}, stdin, "usage"); err == nil || errors.Is(err, ErrUsage) {
		t.Errorf("a missing file: %v", err)
	}
	in, err := openListInput([]string{wordlistPath}, stdin, "usage")
	if err != nil || in.size <= 0 {
		t.Errorf("a file: %+v, %v", in, err)
	}
	in.close()
}

// TestCSVCell: text of the input a spreadsheet would run as a formula
// gets a quote first; the rest is left as it is.
func TestCSVCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")", "+1": "'+1", "-2": "'-2", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx",
		"alice": "alice", "": "", "a=b": "a=b",
	} {
		if got := csvCell(in); got != want {
			t.Errorf("csvCell(%q) = %q, want %q", in, got, want)
		}
	}
}
