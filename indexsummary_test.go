package main

import (
	"testing"
	"time"

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
