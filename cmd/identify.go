package cmd

import (
	"context"
	"io"
	"math"
	"strconv"

	"secutil/tools/hashid"
)

// identify is `secutil identify [FILE]`: the format of the hash on each
// line, as /hash_identifier names it, whole-line formats included (pwdump
// and secretsdump lines, LM:NT pairs, user:hash, shadow lines).
func (Program) identify(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("identify", stderr)
	format := formatFlag(fs)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	in, err := openListInput(fs.Args(), stdin, "secutil identify [-format text|json|csv] [FILE] (standard input without FILE, or with -)")
	if err != nil {
		return err
	}
	defer in.close()
	out := newListOutput(stdout)
	switch *format {
	case formatText:
		out.WriteString(identifyTextHeader)
	case formatCSV:
		writeCSVRow(out, identifyCSVHeader)
	}
	stats, err := listRun{in: in, maxLine: hashid.MaxInputBytes, chunk: 1024, out: out, progress: progressTo(stderr)}.
		run(ctx, func() listWorker { return identifyWorker(*format) })
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return listResult(stats, err, "hold no hash identified")
}

// identifyWorker renders lines in the format with a LineIdentifier of its
// own: a line's answer is written before the next is identified. Text and
// CSV show the best candidate only, so they ask for that alone.
func identifyWorker(format string) listWorker {
	var id hashid.LineIdentifier
	identify := id.IdentifyBest
	if format == formatJSON {
		identify = id.Identify
	}
	return func(_ context.Context, c *lineChunk) {
		w := newChunkWriter(c, format, len(identifyCSVHeader))
		defer w.flush()
		for _, l := range c.lines {
			if l.tooLong {
				w.fail(l.n, lineTooLong(hashid.MaxInputBytes))
				continue
			}
			line := identify(l.text)
			if !identified(line) {
				c.failed++
			}
			switch {
			case w.enc != nil:
				w.enc.Encode(identifiedLine{l.n, line})
			case w.csv != nil:
				w.csv.Write(identifyCSVRow(l.n, line))
			default:
				c.out.Write(appendIdentifyText(c.out.AvailableBuffer(), l.n, line))
			}
		}
	}
}

// identified reports whether a line holds a hash whose format is named.
func identified(line hashid.Line) bool {
	return line.Estimate != hashid.Unknown && line.Estimate != hashid.NotHash
}

// identifiedLine is the JSON object of a line: its number and
// /hash_identifier's answer for it.
type identifiedLine struct {
	Number int `json:"line"`
	hashid.Line
}

// The text columns: the line's number, the best candidate, its hashcat
// mode, John format and confidence, then the hash and how the line was
// read.
const (
	identifyNameColumn = 30
	identifyModeColumn = 7
	identifyJohnColumn = 16
	identifyHashColumn = 64
)

var identifyTextHeader = string(appendCell(appendPadLeft(nil, "LINE", lineColumn), "  BEST CANDIDATE", identifyNameColumn+2)) +
	"  HASHCAT  " + string(appendCell(nil, "JOHN", identifyJohnColumn)) + "  CONF  HASH\n"

func appendIdentifyText(dst []byte, n int, line hashid.Line) []byte {
	dst = appendLineNumber(dst, n)
	dst = append(dst, "  "...)
	if !identified(line) {
		name := line.Estimate
		if line.Note != "" {
			name += ": " + line.Note
		}
		dst = appendCell(dst, name, identifyNameColumn)
		dst = append(dst, "        -  "...)
		dst = appendCell(dst, "-", identifyJohnColumn)
		dst = append(dst, "     -  "...)
	} else {
		best := line.Candidates[0]
		dst = appendCell(dst, best.Name, identifyNameColumn)
		dst = append(dst, "  "...)
		if best.HashcatMode != nil {
			dst = appendIntPadLeft(dst, *best.HashcatMode, identifyModeColumn)
		} else {
			dst = appendPadLeft(dst, "-", identifyModeColumn)
		}
		dst = append(dst, "  "...)
		john := best.JohnFormat
		if john == "" {
			john = "-"
		}
		dst = appendCell(dst, john, identifyJohnColumn)
		dst = append(dst, "  "...)
		dst = appendConfidence(dst, best.Confidence)
		dst = append(dst, "  "...)
	}
	dst, _ = appendShown(dst, line.Hash, identifyHashColumn)
	if line.Layout != hashid.LayoutHash {
		dst = append(dst, " ("...)
		dst = append(dst, line.Layout...)
		if line.User != "" {
			dst = append(dst, ", user "...)
			dst, _ = appendShown(dst, line.User, 40)
		}
		if line.LM != nil {
			dst = append(dst, ", "...)
			dst = append(dst, line.LM.Name...)
			if line.LM.HashcatMode != nil {
				dst = append(dst, " hash present, hashcat -m "...)
				dst = strconv.AppendInt(dst, int64(*line.LM.HashcatMode), 10)
			}
		}
		dst = append(dst, ')')
	}
	return append(dst, '\n')
}

// appendConfidence appends a confidence as strconv.AppendFloat(dst, c, 'f',
// 2, 64) does, for a fraction of its work (every line shows one): a
// confidence is a number of hundredths in [0,1], written digit by digit.
func appendConfidence(dst []byte, c float64) []byte {
	k := int(math.Round(c * 100))
	if k < 0 || k > 100 || float64(k)/100 != c {
		return strconv.AppendFloat(dst, c, 'f', 2, 64)
	}
	return append(dst, '0'+byte(k/100), '.', '0'+byte(k/10%10), '0'+byte(k%10))
}

var identifyCSVHeader = []string{"line", "layout", "user", "hash", "estimate", "hashcat_mode", "john_format", "confidence", "lm", "hashcat", "error"}

func identifyCSVRow(n int, line hashid.Line) []string {
	row := []string{strconv.Itoa(n), line.Layout, csvCell(line.User), csvCell(line.Hash), line.Estimate, "", "", "", "", "", ""}
	if identified(line) {
		best := line.Candidates[0]
		if best.HashcatMode != nil {
			row[5] = strconv.Itoa(*best.HashcatMode)
		}
		row[6], row[7], row[9] = best.JohnFormat, strconv.FormatFloat(best.Confidence, 'f', 2, 64), best.Hashcat
	}
	if line.LM != nil {
		row[8] = line.LM.Name
	}
	return row
}
