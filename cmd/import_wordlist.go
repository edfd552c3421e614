package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"secutil/store/hashindex"
	"secutil/tools/plural"
)

// importWordlist is `secutil import-wordlist FILE`: it adds the words of
// FILE (or standard input) to the reverse hash lookup index.
func (Program) importWordlist(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("import-wordlist", stderr)
	db := fs.String("db", defaultDB, "the database, an existing SQLite file beside which the index is (serve creates both), or a postgres:// URL (the index is then in the working directory)")
	hashDB := fs.String("hash-db", "", "reverse hash lookup index (default: beside -db)")
	algorithms := fs.String("algorithms", strings.Join(hashindex.Algorithms, ","), "comma-separated algorithms to index")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	const usage = "secutil import-wordlist [-algorithms md5,sha1,...] FILE (or - for standard input)"
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: %s", ErrUsage, usage)
	}
	names := strings.Split(*algorithms, ",")
	for _, name := range names {
		if !slices.Contains(hashindex.Algorithms, strings.ToLower(name)) {
			return fmt.Errorf("%w: -algorithms: %v", ErrUsage, &hashindex.UnknownAlgorithmError{Name: name})
		}
	}
	index := hashDBPath(*hashDB, *db)
	if *hashDB == "" {
		// An index beside a database that does not exist is an index no
		// server reads: -db was mistyped.
		if err := checkExisting(*db); err != nil {
			return fmt.Errorf("%w (the index goes beside it; or give -hash-db the index's own path)", err)
		}
	}
	if err := checkCreatable("the hash index", index, "secutil-hashes.db"); err != nil {
		return err
	}
	in, err := openListInput(fs.Args(), stdin, usage)
	if err != nil {
		return err
	}
	defer in.close()
	ix, err := hashindex.Open(index)
	if err != nil {
		return err
	}
	defer ix.Close()
	// An import holds a few batches of about 45 MB at once; without a limit the garbage
	// collector lets the heap grow to twice that before it collects.
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(importMemoryLimit)
	}
	// On a terminal the progress line is rewritten in place after every batch; into a
	// file or pipe, a line every 10 seconds.
	terminal := isTerminal(stderr)
	var printed time.Time
	stats, err := ix.Import(ctx, in.r, names, func(p hashindex.Progress) {
		switch {
		case terminal:
			fmt.Fprintf(stderr, "\r%s\x1b[K", progressLine(p, in.size))
		case time.Since(printed) >= 10*time.Second:
			fmt.Fprintln(stderr, progressLine(p, in.size))
			printed = time.Now()
		}
	})
	if terminal {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, importSummary(stats))
	return nil
}

// importSummary accounts for every line an import read: the words it
// indexed, split into new ones and ones the index held already (or that
// the input repeated), and the lines it skipped, with why.
func importSummary(stats hashindex.Stats) string {
	s := fmt.Sprintf("imported %s (%d new, %d already in the index or repeated in the input)",
		plural.Count(stats.Words, "word", "words"), stats.NewWords, stats.Words-stats.NewWords)
	if stats.Skipped > 0 {
		s += fmt.Sprintf("; skipped %s longer than %d bytes", plural.Count(stats.Skipped, "line", "lines"), hashindex.MaxWordBytes)
	}
	return s + fmt.Sprintf("; empty lines are ignored; %s added in %s",
		plural.Count(stats.Entries, "index entry", "index entries"), stats.Duration.Round(time.Millisecond))
}

// importMemoryLimit is the heap size at which an import's garbage collector works harder,
// to keep its peak memory under 1 GiB.
const importMemoryLimit = 640 << 20

// progressLine reports an import's progress: words read, new words, entries added, the
// rate, and when the input's size is known, the share read and the time left at that rate.
func progressLine(p hashindex.Progress, size int64) string {
	seconds := max(p.Duration.Seconds(), 1e-9)
	line := fmt.Sprintf("%s, %d new, %s, %.0f words/s", plural.Count(p.Words, "word", "words"), p.NewWords, plural.Count(p.Entries, "entry", "entries"), float64(p.Words)/seconds)
	if size > 0 && p.Bytes > 0 {
		left := time.Duration(float64(size-p.Bytes) / (float64(p.Bytes) / seconds) * float64(time.Second))
		line += fmt.Sprintf(", %.1f%%, ETA %s", 100*float64(p.Bytes)/float64(size), left.Round(time.Second))
	}
	return line
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
