package cmd

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"strconv"

	"secutil/tools/breach"
	"secutil/tools/passcheck"
	"secutil/tools/strength"
)

// check is `secutil check [FILE]`: the passwords of FILE, one a line,
// rated as /password_strength rates them (score and label), with their
// charset entropy, whether they are common, and how often the Pwned
// Passwords file of -breach-file has seen them. The passwords are not
// written back unless -show-password asks for them.
func (Program) check(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", stderr)
	format := formatFlag(fs)
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file (HASH:COUNT lines sorted by hash) for the breached counts, as serve's; see docs/BREACH.md (default: none, the counts are not configured)")
	minScore := fs.Int("min-score", 0, "fail (exit status 1) when any password scores below this, 0 to 4")
	showPassword := fs.Bool("show-password", false, "write each password beside its rating")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *minScore < 0 || *minScore > 4 {
		return fmt.Errorf("%w: -min-score %d: want 0 to 4", ErrUsage, *minScore)
	}
	in, err := openListInput(fs.Args(), stdin, "secutil check [-format text|json|csv] [-breach-file F] [-min-score N] [-show-password] [FILE] (standard input without FILE, or with -)")
	if err != nil {
		return err
	}
	defer in.close()
	o := checkOptions{format: *format, minScore: *minScore, showPassword: *showPassword}
	if *breachFile == "" {
		fmt.Fprintln(stderr, "secutil check: breached counts not configured: give -breach-file, a Pwned Passwords SHA-1 file (docs/BREACH.md)")
	} else {
		sources, closeBreach, err := openBreachSources(*breachFile, "", nil)
		defer closeBreach()
		if err != nil {
			return err
		}
		o.breach = sources.sha1
	}
	out := newListOutput(stdout)
	switch o.format {
	case formatText:
		out.WriteString(o.textHeader())
	case formatCSV:
		writeCSVRow(out, o.csvHeader())
	}
	run := listRun{in: in, maxLine: checkMaxLine, chunk: 4096, out: out, progress: progressTo(stderr)}
	if o.breach != nil {
		// A chunk is one batch lookup. One chunk per worker and one being
		// read go round: they are large.
		run.chunk, run.chunks = checkBreachBatch, runtime.GOMAXPROCS(0)+1
	}
	stats, err := run.run(ctx, func() listWorker { return o.worker() })
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	what := "are refused (too long, or not UTF-8)"
	if o.minScore > 0 {
		what = fmt.Sprintf("score below -min-score %d or are refused (too long, or not UTF-8)", o.minScore)
	}
	return listResult(stats, err, what)
}

// checkMaxLine is the longest line check reads: a password of
// strength.MaxPasswordLength characters of up to 4 bytes each.
const checkMaxLine = 4 * strength.MaxPasswordLength

// checkBreachBatch is how many passwords one breach lookup asks. Their
// digests lie all over the file, so the more of them, the less of the file
// a lookup reads per password: on a 10 M-line file a batch of 2^16 has a
// digest every 6.7 KB and reads the whole file, and copying it from the
// page cache was a quarter of the run's CPU; 2^17 halves that for 70 MB
// more at peak. A chunk of them costs about 60 MB.
const checkBreachBatch = 1 << 17

type checkOptions struct {
	format       string
	minScore     int
	showPassword bool
	breach       breach.Source // nil: not configured
}

// checkedLine is the JSON object of a line: its number, the password when
// asked for, and the API's rating.
type checkedLine struct {
	Number   int    `json:"line"`
	Password string `json:"password,omitempty"`
	passcheck.Result
}

// recentSlots is the size of a check worker's table of recent passwords:
// small enough to stay in the CPU's cache (a map of a whole chunk's
// passwords did not, and cost a twentieth of the run), large enough to
// hold a list's frequent passwords.
const recentSlots = 1 << 13

// worker rates a chunk's passwords, then looks them all up in the breach
// file in one batch, then writes them. A password met recently in the
// chunk takes that line's rating: the rating depends on the password
// alone, and real lists repeat a lot (a leaked list such as RockYou's
// holds each distinct password about twice on average, the most common
// ones thousands of times), while the estimate is most of a line's cost.
// Recently is the last line whose password fell in the same slot of a
// table indexed by a hash: a frequent password keeps coming back to its
// slot. (strength.Score also keeps the scores of the common list.)
func (o checkOptions) worker() listWorker {
	var results []passcheck.Result
	var refused []error
	var passwords []string
	var recent [recentSlots]int32 // a slot's last line in the chunk, plus one; 0: none
	seed := maphash.MakeSeed()
	return func(ctx context.Context, c *lineChunk) {
		n := len(c.lines)
		results, refused, passwords = resize(results, n), resize(refused, n), resize(passwords, n)
		clear(recent[:])
		for i, l := range c.lines {
			passwords[i] = l.text
			if l.tooLong {
				results[i], refused[i] = passcheck.Result{}, passcheck.ErrTooLong
				continue
			}
			slot := &recent[maphash.String(seed, l.text)%recentSlots]
			if last := int(*slot) - 1; last >= 0 && c.lines[last].text == l.text {
				results[i], refused[i] = results[last], refused[last]
				continue
			}
			results[i], refused[i] = passcheck.Check(l.text)
			*slot = int32(i + 1)
		}
		if o.breach != nil {
			if err := passcheck.AddBreached(ctx, o.breach, passwords, results, func(i int) bool { return refused[i] != nil }); err != nil {
				c.err = err
				return
			}
		}
		w := newChunkWriter(c, o.format, len(o.csvHeader()))
		defer w.flush()
		for i, l := range c.lines {
			if refused[i] != nil {
				w.fail(l.n, refused[i].Error()+": not rated")
				continue
			}
			r := &results[i]
			below := r.Score < o.minScore
			if below {
				c.failed++
			}
			password := ""
			if o.showPassword {
				password = l.text
			}
			switch {
			case w.enc != nil:
				w.enc.Encode(checkedLine{l.n, password, *r})
			case w.csv != nil:
				w.csv.Write(o.csvRow(l.n, password, r))
			default:
				c.out.Write(o.appendText(c.out.AvailableBuffer(), l.n, password, r, below))
			}
		}
	}
}

// resize returns s with length n, reusing its storage when it can.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (o checkOptions) textHeader() string {
	h := string(appendPadLeft(nil, "LINE", lineColumn)) + "  SCORE  LABEL        ENTROPY  COMMON  BREACHED"
	if o.showPassword {
		h += "  PASSWORD"
	}
	return h + "\n"
}

func (o checkOptions) appendText(dst []byte, n int, password string, r *passcheck.Result, below bool) []byte {
	dst = appendLineNumber(dst, n)
	dst = append(dst, "      "...)
	dst = strconv.AppendInt(dst, int64(r.Score), 10)
	dst = append(dst, "  "...)
	dst = appendCell(dst, r.Label, 11)
	var num [24]byte
	dst = appendPadLeft(dst, string(strconv.AppendFloat(num[:0], r.Entropy, 'f', 2, 64)), 9)
	if r.Common {
		dst = append(dst, "  yes   "...)
	} else {
		dst = append(dst, "  no    "...)
	}
	breached := "-"
	if r.Breached != nil {
		breached = string(strconv.AppendInt(num[:0], *r.Breached, 10))
	}
	dst = append(dst, "  "...)
	dst = appendPadLeft(dst, breached, 8)
	if o.showPassword {
		dst = append(dst, "  "...)
		dst, _ = appendShown(dst, password, strength.MaxPasswordLength)
	}
	if below {
		dst = append(dst, "  (below -min-score "...)
		dst = strconv.AppendInt(dst, int64(o.minScore), 10)
		dst = append(dst, ')')
	}
	return append(dst, '\n')
}

func (o checkOptions) csvHeader() []string {
	h := []string{"line", "score", "label", "entropy", "common", "breached"}
	if o.showPassword {
		h = append(h, "password")
	}
	return append(h, "error")
}

func (o checkOptions) csvRow(n int, password string, r *passcheck.Result) []string {
	breached := ""
	if r.Breached != nil {
		breached = strconv.FormatInt(*r.Breached, 10)
	}
	row := []string{strconv.Itoa(n), strconv.Itoa(r.Score), r.Label, strconv.FormatFloat(r.Entropy, 'f', 2, 64), strconv.FormatBool(r.Common), breached}
	if o.showPassword {
		row = append(row, csvCell(password))
	}
	return append(row, "")
}
