package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIndexSummary: the words, the entries per algorithm, each list
// imported with its date and counts, and the size on disk, as text and as
// JSON.
func TestIndexSummary(t *testing.T) {
	t.Parallel()
	index, db := testIndex(t)
	text := mustCLI(t, db, "", "index")
	today := time.Now().UTC().Format(time.DateOnly)
	for _, want := range []string{
		"Reverse hash lookup index: " + index + "\n",
		"Words:         5\n",
		"  md5                    5\n",
		"  ntlm                   5\n",
		": 4 words (4 new), 20 entries, md5, sha1, sha256, sha512, ntlm\n",
		"the input: 1 word (1 new), 5 entries",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "\n  "+today+" ") || !strings.Contains(text, wordlistPath) {
		t.Errorf("text lacks the date or the list's name:\n%s", text)
	}
	var got indexSummary
	if err := json.Unmarshal([]byte(mustCLI(t, "", "", "index", "-format", "json", "-hash-db", index)), &got); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(index)
	if got.Path != index || got.Words != 5 || len(got.Entries) != 5 || got.Entries[0] != (indexEntries{"md5", 5}) ||
		len(got.Lists) != 2 || got.Lists[0].Words != 4 || got.Bytes < fi.Size() {
		t.Errorf("json %+v", got)
	}
}

func TestIndexMissing(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	_, _, err := cli(t, db, "", nil, "index")
	if err == nil || !strings.Contains(err.Error(), "no reverse hash lookup index at "+filepath.Join(filepath.Dir(db), "s-hashes.db")) {
		t.Errorf("error %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(db)); len(entries) != 0 {
		t.Errorf("index left %d files", len(entries))
	}
}
