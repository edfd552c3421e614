package hashindex

import (
	"context"
	"database/sql"
	"encoding/hex"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// Collisions of 64-bit prefixes are too rare to find by search, so these tests plant
// rows directly through a second connection to the file.

func openWithRaw(t *testing.T) (*Index, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hashes.db")
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return ix, raw
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

func lookupWord(t *testing.T, ix *Index, name, word string) Hit {
	t.Helper()
	digest := algorithmsByName[name].sum([]byte(word))
	hit, err := ix.Lookup(context.Background(), hex.EncodeToString(digest), []string{name})
	if err != nil {
		t.Fatal(err)
	}
	return hit
}

func TestEntryPrefixCollisionIsVerified(t *testing.T) {
	ix, raw := openWithRaw(t)
	// An impostor word filed under md5("password")'s prefix must not be returned.
	md5Key := prefixKey(algorithmsByName["md5"].sum([]byte("password")))
	mustExec(t, raw, "INSERT INTO words(id, word) VALUES (1, 'impostor')")
	mustExec(t, raw, "INSERT INTO md5(prefix, word_id) VALUES (?, 1)", md5Key)
	if hit := lookupWord(t, ix, "md5", "password"); hit.Found {
		t.Fatalf("got %+v, want a miss", hit)
	}
	if _, err := ix.Import(context.Background(), strings.NewReader("password"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if hit := lookupWord(t, ix, "md5", "password"); hit.Plaintext != "password" {
		t.Fatalf("got %+v, want password", hit)
	}
}

func TestWordIDCollisionProbes(t *testing.T) {
	ix, raw := openWithRaw(t)
	// An impostor holds the id "password" would get: import must move it to the next slot.
	mustExec(t, raw, "INSERT INTO words(id, word) VALUES (?, 'impostor')", wordID([]byte("password")))
	for range 2 {
		stats, err := ix.Import(context.Background(), strings.NewReader("password\n"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Skipped != 0 {
			t.Fatalf("got %+v, want nothing skipped", stats)
		}
	}
	for _, name := range Algorithms {
		if hit := lookupWord(t, ix, name, "password"); hit.Plaintext != "password" {
			t.Fatalf("%s: got %+v, want password", name, hit)
		}
	}
	var n int
	if err := raw.QueryRow("SELECT count(*) FROM words").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if got, want := n, 2; got != want {
		t.Fatalf("words: got %d, want %d", got, want)
	}
}

func TestProbeWindowWraps(t *testing.T) {
	ix, raw := openWithRaw(t)
	mustExec(t, raw, "INSERT INTO words(id, word) VALUES (?, 'top'), (?, 'bottom'), (0, 'outside')",
		int64(math.MaxInt64), int64(math.MinInt64+1))
	rows, err := queryProbeRange(context.Background(), ix.reader, math.MaxInt64-2)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		got = append(got, w)
	}
	if strings.Join(got, ",") != "bottom,top" && strings.Join(got, ",") != "top,bottom" {
		t.Fatalf("got %v, want top and bottom", got)
	}
}

func FuzzReadWords(f *testing.F) {
	f.Add([]byte("password\r\n\n123456\nqwerty"))
	f.Add([]byte(strings.Repeat("a", MaxWordBytes+1) + "\nok\r"))
	f.Add([]byte("\r\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := make(chan [][]byte, 1)
		done := make(chan struct{})
		var words [][]byte
		go func() {
			defer close(done)
			for batch := range out {
				words = append(words, batch...)
			}
		}()
		_, err := readWords(context.Background(), strings.NewReader(string(data)), out)
		close(out)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range words {
			if len(w) == 0 || len(w) > MaxWordBytes || strings.ContainsRune(string(w), '\n') {
				t.Fatalf("bad word %q", w)
			}
		}
	})
}
