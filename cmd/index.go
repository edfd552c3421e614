package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"secutil/store/hashindex"
	"secutil/tools/plural"
)

// index is `secutil index`: what the reverse hash lookup index holds: its
// words, its entries per algorithm, the lists imported into it (when, how
// many words) and its size on disk.
func (Program) index(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	flags := newFlagSet("index", stderr)
	format := flags.String("format", formatText, "output: text or json (one object)")
	db := flags.String("db", defaultDB, "the database; an SQLite file locates the index beside it")
	hashDB := flags.String("hash-db", "", "reverse hash lookup index (default: beside -db, e.g. secutil-hashes.db)")
	if err := parseFlags(flags, args, getenv); err != nil {
		return err
	}
	if *format != formatText && *format != formatJSON {
		return fmt.Errorf("%w: -format %q: want text or json", ErrUsage, *format)
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("%w: secutil index [-format text|json] [-hash-db F] takes no argument", ErrUsage)
	}
	ix, err := openExistingIndex(*hashDB, *db)
	if err != nil {
		return err
	}
	defer ix.Close()
	s, err := ix.Summary(ctx)
	if err != nil {
		return err
	}
	path := hashDBPath(*hashDB, *db)
	if *format == formatJSON {
		return writeIndexJSON(stdout, path, s)
	}
	writeIndexText(stdout, path, s)
	return nil
}

// errNoIndex is openExistingIndex's error when there is no index.
var errNoIndex = errors.New("no reverse hash lookup index")

// openExistingIndex opens the reverse-lookup index serve would use, which
// must exist: reading it never leaves a new, empty one behind.
func openExistingIndex(given, db string) (*hashindex.Index, error) {
	path := hashDBPath(given, db)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s: give -hash-db or -db (SECUTIL_HASH_DB, SECUTIL_DB) as to serve, which creates it at its first start, or import a wordlist with secutil import-wordlist", errNoIndex, path)
	}
	return hashindex.Open(path)
}

// indexSummary is the JSON form of the index's summary.
type indexSummary struct {
	Path    string                   `json:"path"`
	Words   int64                    `json:"words"`
	Entries []indexEntries           `json:"entries"`
	Lists   []hashindex.ImportedList `json:"lists"`
	Bytes   int64                    `json:"bytes"`
}

type indexEntries struct {
	Algorithm string `json:"algorithm"`
	Entries   int64  `json:"entries"`
}

func writeIndexJSON(w io.Writer, path string, s hashindex.Summary) error {
	out := indexSummary{Path: path, Words: s.Words, Lists: s.Lists, Bytes: s.Bytes, Entries: []indexEntries{}}
	if out.Lists == nil {
		out.Lists = []hashindex.ImportedList{}
	}
	for _, e := range s.Entries {
		out.Entries = append(out.Entries, indexEntries{e.Algorithm, e.Entries})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func writeIndexText(w io.Writer, path string, s hashindex.Summary) {
	fmt.Fprintf(w, "Reverse hash lookup index: %s\n", path)
	fmt.Fprintf(w, "Size on disk:  %s (%s bytes)\n", humanBytes(s.Bytes), grouped(s.Bytes))
	fmt.Fprintf(w, "Words:         %s\n\nEntries by algorithm:\n", grouped(s.Words))
	for _, e := range s.Entries {
		fmt.Fprintf(w, "  %-8s %15s\n", e.Algorithm, grouped(e.Entries))
	}
	if len(s.Lists) == 0 {
		fmt.Fprintln(w, "\nLists imported: none recorded (an index made before secutil kept this record lists only the imports since)")
		return
	}
	fmt.Fprintln(w, "\nLists imported, oldest first:")
	for _, l := range s.Lists {
		name, _ := appendShown(nil, l.Name, 200)
		fmt.Fprintf(w, "  %s  %s: %s (%s new), %s, %s",
			l.Imported.UTC().Format("2006-01-02 15:04 UTC"), name, plural.Count(l.Words, "word", "words"), grouped(l.NewWords),
			plural.Count(l.Entries, "entry", "entries"), strings.Join(l.Algorithms, ", "))
		if l.Skipped > 0 {
			fmt.Fprintf(w, "; %s longer than %d bytes skipped", plural.Count(l.Skipped, "line", "lines"), hashindex.MaxWordBytes)
		}
		fmt.Fprintln(w)
	}
}

// grouped writes n with thousands separators: 1234567 → 1,234,567.
func grouped(n int64) string {
	s := fmt.Sprint(n)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// humanBytes writes a size in the largest binary unit under it.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
