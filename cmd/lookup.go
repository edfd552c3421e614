package cmd

import (
	"context"
	"encoding/hex"
	"io"
	"strconv"

	"secutil/store/hashindex"
	"secutil/tools/hashid"
)

// lookup is `secutil lookup [FILE]`: each line's hash reversed with the
// local index, as /hash_lookup reverses it. A line is a hex digest, or a
// line that holds one: user:hash (hashcat's --username), an LM:NT pair, a
// pwdump or secretsdump line (its NT hash).
func (Program) lookup(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("lookup", stderr)
	format := formatFlag(fs)
	db := fs.String("db", defaultDB, "the database; an SQLite file locates the index beside it")
	hashDB := fs.String("hash-db", "", "reverse hash lookup index (default: beside -db, e.g. secutil-hashes.db)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	in, err := openListInput(fs.Args(), stdin, "secutil lookup [-format text|json|csv] [-hash-db F] [FILE] (standard input without FILE, or with -)")
	if err != nil {
		return err
	}
	defer in.close()
	ix, err := openExistingIndex(*hashDB, *db)
	if err != nil {
		return err
	}
	defer ix.Close()
	out := newListOutput(stdout)
	switch *format {
	case formatText:
		out.WriteString(lookupTextHeader)
	case formatCSV:
		writeCSVRow(out, lookupCSVHeader)
	}
	stats, err := listRun{in: in, maxLine: lookupMaxLine, chunk: hashindex.MaxLookupBatch, out: out, progress: progressTo(stderr)}.
		run(ctx, func() listWorker { return lookupWorker(ix, *format) })
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return listResult(stats, err, "hold no hash the index can reverse")
}

// lookupMaxLine is the longest line lookup reads: a secretsdump line with
// a long domain and user is a few hundred bytes.
const lookupMaxLine = 4096

// lookedUp is the JSON object of a line: its number, the user it names,
// and /hash_lookup's answer for its hash.
type lookedUp struct {
	Line      int     `json:"line"`
	User      string  `json:"user,omitempty"`
	Hash      string  `json:"hash"`
	Plaintext *string `json:"plaintext"`
	Type      *string `json:"type"`
	Found     bool    `json:"found"`
}

// notDigest says why a line's hash is not looked up.
const notDigest = "no unsalted hex digest (32, 40, 64 or 128 hex digits): the index holds md5, sha1, sha256, sha512 and ntlm"

// lookupWorker reads each line's hash and looks the chunk's up in one
// batch (a chunk is at most hashindex.MaxLookupBatch lines).
func lookupWorker(ix *hashindex.Index, format string) listWorker {
	var id hashid.LineIdentifier
	return func(ctx context.Context, c *lineChunk) {
		answers := make([]lookedUp, len(c.lines))
		ok := make([]bool, len(c.lines))
		var digests []string
		for i, l := range c.lines {
			if l.tooLong {
				continue
			}
			line := id.Identify(l.text)
			answers[i] = lookedUp{Line: l.n, User: line.User, Hash: line.Hash}
			if ok[i] = isDigest(line); ok[i] {
				digests = append(digests, line.Hash)
			}
		}
		hits, err := ix.LookupMany(ctx, digests)
		if err != nil {
			c.err = err
			return
		}
		w := newChunkWriter(c, format, len(lookupCSVHeader))
		defer w.flush()
		for i, l := range c.lines {
			switch {
			case l.tooLong:
				w.fail(l.n, lineTooLong(lookupMaxLine))
				continue
			case !ok[i]:
				w.fail(l.n, notDigest)
				continue
			}
			a := &answers[i]
			if h := hits[0]; h.Found {
				a.Found, a.Plaintext, a.Type = true, &h.Plaintext, &h.Algorithm
			}
			hits = hits[1:]
			switch {
			case w.enc != nil:
				w.enc.Encode(a)
			case w.csv != nil:
				w.csv.Write([]string{strconv.Itoa(a.Line), csvCell(a.User), csvCell(a.Hash), strconv.FormatBool(a.Found), deref(a.Type), csvCell(deref(a.Plaintext)), ""})
			default:
				c.out.Write(appendLookupText(c.out.AvailableBuffer(), a))
			}
		}
	}
}

// isDigest reports whether the hash a line holds is a hex digest of a
// length the index holds.
func isDigest(line hashid.Line) bool {
	if len(line.Hash)%2 != 0 || !hashindex.HoldsDigestsOf(len(line.Hash)/2) {
		return false
	}
	_, err := hex.DecodeString(line.Hash)
	return err == nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var lookupTextHeader = string(appendPadLeft(nil, "LINE", lineColumn)) + "  FOUND  TYPE    " + string(appendCell(nil, "PLAINTEXT", lookupPlainColumn)) + "  HASH\n"

// lookupPlainColumn is the width of the PLAINTEXT column; a longer one is
// cut in the text output (the JSON and CSV have it whole).
const lookupPlainColumn = 24

func appendLookupText(dst []byte, a *lookedUp) []byte {
	dst = appendLineNumber(dst, a.Line)
	if a.Found {
		dst = append(dst, "  yes    "...)
	} else {
		dst = append(dst, "  no     "...)
	}
	dst = appendCell(dst, deref(a.Type), 6)
	dst = append(dst, "  "...)
	dst = appendCell(dst, deref(a.Plaintext), lookupPlainColumn)
	dst = append(dst, "  "...)
	dst, _ = appendShown(dst, a.Hash, 128)
	if a.User != "" {
		dst = append(dst, " (user "...)
		dst, _ = appendShown(dst, a.User, 40)
		dst = append(dst, ')')
	}
	return append(dst, '\n')
}

var lookupCSVHeader = []string{"line", "user", "hash", "found", "type", "plaintext", "error"}
