package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// What the list commands share (identify, check, lookup, and audit's input
// and output): a FILE argument or standard input, the -format flag, and a
// run over the input's lines that hands chunks of lines to a worker per
// core, writes their output in input order, shows progress on a terminal,
// and stops cleanly at an interrupt.

// Output formats of the list commands.
const (
	formatText = "text"
	formatJSON = "json"
	formatCSV  = "csv"
)

// formatFlag defines -format on fs.
func formatFlag(fs *flag.FlagSet) *string {
	return fs.String("format", formatText, "output: text (aligned columns), json (JSON Lines: one object a line, the API's) or csv")
}

// checkFormat refuses a -format value that is not one of the formats.
func checkFormat(format string) error {
	switch format {
	case formatText, formatJSON, formatCSV:
		return nil
	}
	return fmt.Errorf("%w: -format %q: want text, json or csv", ErrUsage, format)
}

// listInput is what a list command reads: the file named by its one
// argument, or standard input when there is none or it is "-".
type listInput struct {
	r    io.Reader
	size int64 // of a regular file, for the time left; -1 when unknown
	file *os.File
}

// openListInput opens the input named by args (at most one), for the
// command whose usage line is usage.
func openListInput(args []string, stdin io.Reader, usage string) (listInput, error) {
	switch {
	case len(args) > 1:
		return listInput{}, fmt.Errorf("%w: %s", ErrUsage, usage)
	case len(args) == 0 || args[0] == "-":
		in := listInput{r: stdin, size: -1}
		if f, ok := stdin.(*os.File); ok {
			in.size = regularSize(f)
		}
		return in, nil
	}
	f, err := os.Open(args[0])
	if err != nil {
		return listInput{}, err
	}
	return listInput{r: f, size: regularSize(f), file: f}, nil
}

// regularSize is the size of f when it is a regular file, else -1.
func regularSize(f *os.File) int64 {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return -1
}

func (in listInput) close() {
	if in.file != nil {
		in.file.Close()
	}
}

// listLine is one line of the input that is not blank.
type listLine struct {
	n    int    // its number, from 1 (blank lines counted)
	text string // without its line end
	// tooLong: the line was longer than the run's maxLine; text is empty.
	tooLong    bool
	start, end int // of text in the chunk's bytes, until it is sealed
}

// lineChunk is a run of consecutive lines that one worker renders.
type lineChunk struct {
	seq   int
	lines []listLine
	text  []byte // the lines' bytes, before they become strings
	end   int64  // input bytes read up to the end of the chunk
	last  int    // the number of the chunk's last line (blank ones counted)
	// Filled by the worker: the rendered lines, how many failed, and an
	// error that stops the run (not a bad line: a failing index or file).
	out    bytes.Buffer
	failed int
	err    error
}

// listWorker renders the lines of a chunk into its out, in order. Each
// worker goroutine has its own (newWorker), so it may keep state.
type listWorker func(ctx context.Context, c *lineChunk)

// listRun is one run of a list command over its input.
type listRun struct {
	in      listInput
	maxLine int // longer lines are reported on their line, not read
	chunk   int // lines a chunk holds at most
	workers int // 0: one per core (GOMAXPROCS)
	// chunks is how many chunks go round at most; 0: two per worker
	// and two more (one being read, one written). Fewer bound the memory
	// of large chunks.
	chunks   int
	out      io.Writer
	progress io.Writer // where progress goes; nil off a terminal
}

// listStats account for a run: the lines read (blank ones not counted),
// those that failed, the number of the last line written, and whether an
// interrupt ended the run before the input did.
type listStats struct {
	lines, failed, last int
	interrupted         bool
}

// maxChunkBytes bounds a chunk's text besides its line count.
const maxChunkBytes = 4 << 20

// run reads the input, has the workers render it chunk by chunk, and writes
// their output in input order. An interrupt (ctx ending) stops the reading:
// the chunks already read are finished and written, so the output is every
// line up to the one the stats name. A worker's error or a failed write
// stops the run and is returned.
func (r listRun) run(ctx context.Context, newWorker func() listWorker) (listStats, error) {
	workers := r.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// The workers finish what was read even after an interrupt; they stop
	// early only when the run fails.
	workCtx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stop(nil)
	// A fixed set of chunks goes round, so that their storage is reused.
	chunks := r.chunks
	if chunks <= 0 {
		chunks = 2*workers + 2
	}
	free := make(chan *lineChunk, chunks)
	for range cap(free) {
		free <- &lineChunk{}
	}
	read := make(chan *lineChunk)
	quit := make(chan struct{})
	readErr := make(chan error, 1)
	go func() { readErr <- r.read(read, quit, free) }()

	todo := make(chan *lineChunk, workers)
	finished := make(chan *lineChunk, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for c := range todo {
				if workCtx.Err() == nil {
					work(workCtx, c)
				}
				finished <- c
			}
		}()
	}
	written := make(chan listStats, 1)
	go func() { written <- r.write(finished, stop, free) }()

	var stats listStats
	readDone := false
feed:
	for seq := 0; ; seq++ {
		select {
		case c, ok := <-read:
			if !ok {
				readDone = true
				break feed
			}
			c.seq = seq
			// A chunk read before an interrupt is finished and written,
			// however soon the interrupt follows: only a failed run
			// drops it.
			select {
			case todo <- c:
				continue
			case <-workCtx.Done():
			}
		case <-ctx.Done():
		case <-workCtx.Done():
		}
		break
	}
	stats.interrupted = !readDone && ctx.Err() != nil && workCtx.Err() == nil
	close(quit)
	close(todo)
	wg.Wait()
	close(finished)
	w := <-written
	stats.lines, stats.failed, stats.last = w.lines, w.failed, w.last
	if err := context.Cause(workCtx); err != nil {
		return stats, err
	}
	if readDone {
		// The reader has returned; unless interrupted, it is not waited
		// for: it may be blocked reading a terminal.
		if err := <-readErr; err != nil {
			return stats, err
		}
	}
	return stats, nil
}

// read cuts the input into chunks and sends them on out, which it closes at
// the end of the input; it stops when quit is closed.
func (r listRun) read(out chan<- *lineChunk, quit <-chan struct{}, free <-chan *lineChunk) error {
	defer close(out)
	br := bufio.NewReaderSize(r.in.r, max(64<<10, r.maxLine+2))
	c, ok := reuse(free, quit)
	if !ok {
		return nil
	}
	// send hands the chunk on, and takes the next to fill unless it was
	// the last.
	send := func(last bool) bool {
		c.seal()
		select {
		case out <- c:
		case <-quit:
			return false
		}
		if !last {
			c, ok = reuse(free, quit)
		}
		return ok
	}
	var offset int64
	for n := 1; ; n++ {
		raw, err := br.ReadSlice('\n')
		offset += int64(len(raw))
		tooLong := false
		for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the line
			tooLong = true
			var more []byte
			more, err = br.ReadSlice('\n')
			offset += int64(len(more))
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(raw) == 0 && err != nil {
			break
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark
		}
		switch {
		case tooLong || len(line) > r.maxLine:
			c.lines = append(c.lines, listLine{n: n, tooLong: true})
		case len(line) > 0:
			c.lines = append(c.lines, listLine{n: n, start: len(c.text), end: len(c.text) + len(line)})
			c.text = append(c.text, line...)
		}
		c.end, c.last = offset, n
		if (len(c.lines) >= r.chunk || len(c.text) >= maxChunkBytes) && !send(false) {
			return nil
		}
		if err != nil {
			break
		}
	}
	if len(c.lines) > 0 {
		send(true)
	}
	return nil
}

// reuse takes a chunk the writer is done with, emptied; false once quit
// is closed.
func reuse(free <-chan *lineChunk, quit <-chan struct{}) (*lineChunk, bool) {
	select {
	case c := <-free:
		c.lines, c.text, c.failed, c.err = c.lines[:0], c.text[:0], 0, nil
		c.out.Reset()
		return c, true
	case <-quit:
		return nil, false
	}
}

// seal makes the chunk's lines strings: one allocation for the chunk.
func (c *lineChunk) seal() {
	text := string(c.text)
	for i := range c.lines {
		l := &c.lines[i]
		l.text = text[l.start:l.end]
	}
}

// write writes the chunks' output in input order, with progress, and
// returns the totals of what it wrote. A chunk's error, or its own, stops
// the run; what follows is not written.
func (r listRun) write(finished <-chan *lineChunk, stop context.CancelCauseFunc, free chan<- *lineChunk) listStats {
	var stats listStats
	pending := map[int]*lineChunk{}
	next := 0
	start := time.Now()
	var shown time.Time
	failed := false
	for c := range finished {
		pending[c.seq] = c
		for c := pending[next]; c != nil; c = pending[next] {
			delete(pending, next)
			next++
			if failed {
				continue
			}
			err := c.err
			if err == nil {
				_, err = r.out.Write(c.out.Bytes())
			}
			if err != nil {
				failed = true
				stop(err)
				continue
			}
			stats.lines += len(c.lines)
			stats.failed += c.failed
			stats.last = c.last
			if now := time.Now(); r.progress != nil && now.Sub(start) >= progressAfter && now.Sub(shown) >= progressEvery {
				fmt.Fprintf(r.progress, "\r%s\x1b[K", listProgress(stats.last, c.end, r.in.size, now.Sub(start)))
				shown = now
			}
			free <- c // never blocks: it has room for every chunk
		}
	}
	if !shown.IsZero() {
		fmt.Fprint(r.progress, "\r\x1b[K")
	}
	return stats
}

// Progress shows after progressAfter, and is rewritten at most every
// progressEvery: a short input shows none.
const (
	progressAfter = 500 * time.Millisecond
	progressEvery = 200 * time.Millisecond
)

// listProgress is the progress line of a run: lines read, the rate, and
// when the input's size is known, the share read and the time left at
// that rate.
func listProgress(lines int, read, size int64, elapsed time.Duration) string {
	seconds := max(elapsed.Seconds(), 1e-9)
	s := fmt.Sprintf("%d lines, %.0f lines/s", lines, float64(lines)/seconds)
	if size > 0 && read > 0 {
		left := time.Duration(float64(size-read) / (float64(read) / seconds) * float64(time.Second))
		s += fmt.Sprintf(", %.1f%%, %s left", 100*float64(read)/float64(size), left.Round(time.Second))
	}
	return s
}

// listResult turns a run's totals into the command's error: an interrupt,
// then failed lines (what says why is written on each); nil when every
// line passed.
func listResult(stats listStats, err error, what string) error {
	switch {
	case err != nil:
		return err
	case stats.interrupted:
		return fmt.Errorf("interrupted: the lines up to line %d are written", stats.last)
	case stats.failed > 0:
		return fmt.Errorf("%d of %d lines %s", stats.failed, stats.lines, what)
	}
	return nil
}

// appendPadLeft appends spaces, then s, to width characters.
func appendPadLeft(dst []byte, s string, width int) []byte {
	return append(appendSpaces(dst, width-utf8.RuneCountInString(s)), s...)
}

// appendIntPadLeft appends n right-aligned to width characters.
func appendIntPadLeft(dst []byte, n int, width int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	return append(appendSpaces(dst, width-len(d)), d...)
}

// appendLineNumber appends n right-aligned in the LINE column.
func appendLineNumber(dst []byte, n int) []byte {
	return appendIntPadLeft(dst, n, lineColumn)
}

// spaces pads the columns, a run at a time rather than a byte at a time.
const spaces = "                                                                "

// appendSpaces appends n spaces (none when n <= 0).
func appendSpaces(dst []byte, n int) []byte {
	for ; n > len(spaces); n -= len(spaces) {
		dst = append(dst, spaces...)
	}
	return append(dst, spaces[:max(n, 0)]...)
}

// lineColumn is the width of the LINE column: up to a million lines align.
const lineColumn = 7

// appendShown appends text of the input for a terminal: at most width
// characters (an ellipsis marks a cut), with what a terminal would act on
// (control characters, escapes, invalid UTF-8) written as '?'. It returns
// the characters it wrote.
func appendShown(dst []byte, s string, width int) ([]byte, int) {
	if printableASCII(s) { // most text: hashes, names
		if len(s) <= width {
			return append(dst, s...), len(s)
		}
		return append(append(dst, s[:width-1]...), "…"...), width
	}
	cut := utf8.RuneCountInString(s) > width
	n := 0
	for _, r := range s {
		if cut && n == width-1 {
			return append(dst, "…"...), width
		}
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			r = '?'
		}
		dst = utf8.AppendRune(dst, r)
		n++
	}
	return dst, n
}

// printableASCII reports whether s is printable ASCII only. It reads eight
// bytes at a time: every line of a list's text shows a hash or a name.
func printableASCII(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; len(s) >= 8; s = s[8:] {
		_ = s[7] // one bounds check for the eight
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		// A byte below ' ' borrows when ' ' is taken from it; one above
		// '~' (or with its high bit set already) reaches 0x80 when 1 is
		// added to it. Either sets a high bit that x has clear.
		below := (x - ' '*ones) &^ x
		above := x + ones | x
		if (below|above)&highs != 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// appendCell appends s as a column of width characters: shown as
// appendShown shows it, then padded with spaces.
func appendCell(dst []byte, s string, width int) []byte {
	dst, n := appendShown(dst, s, width)
	return appendSpaces(dst, width-n)
}

// newListOutput buffers a list command's standard output.
func newListOutput(stdout io.Writer) *bufio.Writer { return bufio.NewWriterSize(stdout, 64<<10) }

// progressTo is where a run shows its progress: standard error when it is
// a terminal, nowhere otherwise.
func progressTo(stderr io.Writer) io.Writer {
	if isTerminal(stderr) {
		return stderr
	}
	return nil
}

// writeCSVRow writes one CSV record, such as a header.
func writeCSVRow(w io.Writer, row []string) {
	cw := csv.NewWriter(w)
	cw.Write(row)
	cw.Flush()
}

// csvCell keeps a spreadsheet from reading text of the input as a
// formula: a cell starting with = + - @ or a tab or CR gets a quote first.
func csvCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// chunkWriter renders the lines of a chunk in the run's format: a JSON
// object a line, CSV records whose last column is the error, or text.
type chunkWriter struct {
	c          *lineChunk
	enc        *json.Encoder
	csv        *csv.Writer
	csvColumns int
}

func newChunkWriter(c *lineChunk, format string, csvColumns int) *chunkWriter {
	w := &chunkWriter{c: c, csvColumns: csvColumns}
	switch format {
	case formatJSON:
		w.enc = json.NewEncoder(&c.out)
		w.enc.SetEscapeHTML(false)
	case formatCSV:
		w.csv = csv.NewWriter(&c.out)
	}
	return w
}

// lineError is the JSON object of a line that failed before it was read.
type lineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// fail counts line n as failed and writes why on its line.
func (w *chunkWriter) fail(n int, why string) {
	w.c.failed++
	switch {
	case w.enc != nil:
		w.enc.Encode(lineError{n, why})
	case w.csv != nil:
		row := make([]string, w.csvColumns)
		row[0], row[len(row)-1] = strconv.Itoa(n), why
		w.csv.Write(row)
	default:
		b := appendLineNumber(w.c.out.AvailableBuffer(), n)
		b = append(b, "  error: "...)
		b = append(b, why...)
		w.c.out.Write(append(b, '\n'))
	}
}

// flush ends the chunk's output.
func (w *chunkWriter) flush() {
	if w.csv != nil {
		w.csv.Flush()
	}
}

// lineTooLong says why a line longer than limit bytes was not read.
func lineTooLong(limit int) string {
	if limit >= 1<<20 && limit%(1<<20) == 0 {
		return fmt.Sprintf("line longer than %d MiB: not read", limit>>20)
	}
	return fmt.Sprintf("line longer than %d bytes: not read", limit)
}
