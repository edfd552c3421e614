package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
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

// TestImportWordlistCompressed: a gzip file is imported as the words it
// holds, whatever its name, and the words are found by lookup.
func TestImportWordlistCompressed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	list := filepath.Join(dir, "rockyou.txt.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("alpha\r\nbravo\ncharlie\n"))
	zw.Close()
	if err := os.WriteFile(list, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "w-hashes.db")
	if out := mustCLI(t, "", "", "import-wordlist", "-hash-db", index, list); !strings.HasPrefix(out, "imported 3 words (3 new, ") {
		t.Fatalf("output %q", out)
	}
	if out := mustCLI(t, "", hexMD5("bravo")+"\n", "lookup", "-format", "csv", "-hash-db", index); !strings.Contains(out, ",true,md5,bravo,") {
		t.Errorf("lookup %q", out)
	}
}

// TestImportWordlistRefusesBinary: binary input is refused with an error
// naming the file, and nothing is added to the index.
func TestImportWordlistRefusesBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blob := filepath.Join(dir, "photo.jpg")
	data := append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{0, 1, 2, 3, 0xfe}, 4000)...)
	if err := os.WriteFile(blob, data, 0o600); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "w-hashes.db")
	_, _, err := cli(t, "", "", nil, "import-wordlist", "-hash-db", index, blob)
	var refused *hashindex.NotWordlistError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), blob) {
		t.Fatalf("error %v, want one naming %s", err, blob)
	}
	if out := mustCLI(t, "", "", "index", "-hash-db", index); !strings.Contains(out, "Words:         0\n") || !strings.Contains(out, "Lists imported: none recorded") {
		t.Errorf("the index after the refusal:\n%s", out)
	}
}
