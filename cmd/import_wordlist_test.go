package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store/hashindex"
)

// TestImportSummaryAccountsForEveryWord: the summary splits the words into
// new and already held ones, names the skipped lines and why, and writes
// counts of one in the singular.
func TestImportSummaryAccountsForEveryWord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		stats hashindex.Stats
		want  string
	}{
		{hashindex.Stats{Words: 5, NewWords: 3, Entries: 12, Skipped: 1, Duration: 3 * time.Millisecond},
			"imported 5 words (3 new, 2 already in the index or repeated in the input); skipped 1 line longer than 256 bytes; empty lines are ignored; 12 index entries added in 3ms"},
		{hashindex.Stats{Words: 1, NewWords: 1, Entries: 1},
			"imported 1 word (1 new, 0 already in the index or repeated in the input); empty lines are ignored; 1 index entry added in 0s"},
	} {
		if got := importSummary(c.stats); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// TestImportWordlist imports the wordlist fixture in-process, then the
// same words again from standard input.
func TestImportWordlist(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := cmdtest.NewDatabase(t, filepath.Join(dir, "w.db"))
	cmdtest.MustStep(t, "from a file", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-algorithms", "md5,ntlm", wordlistPath},
			env(nil), nil, &out, &errOut); err != nil {
			t.Fatalf("%v\n%s", err, errOut.String())
		}
		if !strings.Contains(out.String(), "imported 4 words (4 new") {
			t.Fatalf("output %q", out.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "w-hashes.db")); err != nil {
			t.Fatalf("index not beside the database: %v", err)
		}
	})
	t.Run("again from standard input, with CRLF: nothing new", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"secutil", "import-wordlist", "-db", db, "-"},
			env(nil), strings.NewReader("correcthorse\r\nocelot-quasar-17\r\n"), &out, io.Discard); err != nil || !strings.Contains(out.String(), "imported 2 words (0 new") {
			t.Fatalf("stdin import: %v %q", err, out.String())
		}
	})
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := hashindex.Progress{Words: 500_000, NewWords: 400_000, Entries: 2_000_000, Bytes: 5_000_000, Duration: 2 * time.Second}
	for _, tc := range []struct {
		size int64
		want string
	}{
		{20_000_000, "500000 words, 400000 new, 2000000 entries, 250000 words/s, 25.0%, ETA 6s"},
		{-1, "500000 words, 400000 new, 2000000 entries, 250000 words/s"}, // standard input: no ETA
	} {
		if got := progressLine(p, tc.size); got != tc.want {
			t.Errorf("size %d: got %q, want %q", tc.size, got, tc.want)
		}
	}
}
