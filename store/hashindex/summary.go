package hashindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// ImportedList is the record of one complete import: the list's name (a file's path as
// given to the command, "standard input", or SeedListName), when it ended, and its
// Stats. It is stored in the meta table as JSON under the key "list:" and a
// 10-digit sequence number (docs/HASHINDEX.md).
type ImportedList struct {
	Name       string    `json:"name"`
	Imported   time.Time `json:"imported"`
	Words      int64     `json:"words"`     // lines imported, repeats included
	NewWords   int64     `json:"new_words"` // words the index did not hold
	Entries    int64     `json:"entries"`   // index entries added
	Skipped    int64     `json:"skipped"`   // lines longer than MaxWordBytes
	Algorithms []string  `json:"algorithms"`
}

// AlgorithmEntries is how many index entries an algorithm has.
type AlgorithmEntries struct {
	Algorithm string
	Entries   int64
}

// Summary is what the index holds.
type Summary struct {
	Words   int64              // distinct words (each has one sha256 entry)
	Entries []AlgorithmEntries // for every algorithm, in Algorithms order
	Lists   []ImportedList     // the complete imports, oldest first
	Bytes   int64              // on disk: the SQLite file, its write-ahead log and the run files
}

// listKeyPrefix starts the meta keys of the import records.
const listKeyPrefix = "list:"

// recordList records a complete import of the named list. Only an import, holding the
// import lock, calls it, so the sequence number it takes is free.
func (ix *Index) recordList(ctx context.Context, name string, stats Stats, indexed []*algorithm) error {
	if name == os.Stdin.Name() {
		name = "standard input"
	}
	record := ImportedList{Name: name, Imported: time.Now().UTC().Truncate(time.Second), Words: stats.Words,
		NewWords: stats.NewWords, Entries: stats.Entries, Skipped: stats.Skipped}
	for _, a := range indexed {
		record.Algorithms = append(record.Algorithms, a.name)
	}
	value, err := json.Marshal(record)
	if err != nil {
		return err
	}
	_, err = ix.writer.ExecContext(ctx, `INSERT INTO meta(key, value)
		SELECT printf('`+listKeyPrefix+`%010d', COUNT(*) + 1), ? FROM meta WHERE key LIKE '`+listKeyPrefix+`%'`, string(value))
	return err
}

// Summary describes what the index holds: its words, its entries by algorithm, the lists
// imported into it (since this record was kept: an index built by an older secutil
// lists the imports made after), and its size on disk.
func (ix *Index) Summary(ctx context.Context) (Summary, error) {
	var s Summary
	counts := map[string]int64{}
	if err := queryRows(ctx, ix.reader, "SELECT algorithm, entries FROM counts", func(rows *sql.Rows) error {
		var name string
		var n int64
		err := rows.Scan(&name, &n)
		counts[name] = n
		return err
	}); err != nil {
		return Summary{}, err
	}
	for _, a := range algorithmList {
		s.Entries = append(s.Entries, AlgorithmEntries{Algorithm: a.name, Entries: counts[a.name]})
	}
	s.Words = counts[sha256Algorithm.name]
	if err := queryRows(ctx, ix.reader, "SELECT key, value FROM meta WHERE key LIKE '"+listKeyPrefix+"%' ORDER BY key", func(rows *sql.Rows) error {
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			return err
		}
		var l ImportedList
		if err := json.Unmarshal([]byte(value), &l); err != nil {
			return fmt.Errorf("%w: meta %s: %v", errDamaged, strings.TrimSpace(key), err)
		}
		s.Lists = append(s.Lists, l)
		return nil
	}); err != nil {
		return Summary{}, err
	}
	var err error
	s.Bytes, err = ix.diskBytes()
	return s, err
}

// queryRows runs query and calls scan for each row.
func queryRows(ctx context.Context, db *sql.DB, query string, scan func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
