package hashindex

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// ImportBatchWords is how many words one import transaction holds. A crash or
// cancellation loses at most the batch in flight; committed batches stay usable.
const ImportBatchWords = 100_000

// batchWords is ImportBatchWords, smaller in tests that need several batches.
var batchWords = ImportBatchWords

// rowsPerInsert is how many rows one multi-row INSERT binds (2 parameters each):
// it amortises the per-statement cost of database/sql and the driver.
const rowsPerInsert = 500

// Stats summarises an import. Words counts accepted lines (duplicates included),
// NewWords the words the index did not hold, Entries the (word, algorithm) pairs added,
// Skipped the lines dropped for being longer than MaxWordBytes.
type Stats struct {
	Words, NewWords, Entries, Skipped int64
	Duration                          time.Duration
}

// Progress is the running total Import reports after each committed batch.
type Progress = Stats

// Import adds one word per line of r (a trailing \r is stripped, empty lines are ignored,
// lines longer than MaxWordBytes are skipped) to the index for the given algorithms
// (nil means Algorithms). Importing the same words again adds nothing. progress, if not
// nil, is called after every committed batch. On error or cancellation the batches
// committed so far remain in the index.
func (ix *Index) Import(ctx context.Context, r io.Reader, algorithms []string, progress func(Progress)) (Stats, error) {
	start := time.Now()
	tables, err := entryTables(algorithms)
	if err != nil {
		return Stats{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var skipped int64 // written by the reader, read after readerDone
	var readErr error
	lines := make(chan [][]byte, 1)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(lines)
		skipped, readErr = readWords(ctx, r, lines)
	}()
	hashed := make(chan []indexedWord, 1)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			for words := range lines {
				select {
				case hashed <- hashWords(words, tables):
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() { workers.Wait(); close(hashed) }()

	var stats Stats
	for batch := range hashed {
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			var added Stats
			added, err = ix.writeBatch(ctx, batch, tables)
			stats.Words += added.Words
			stats.NewWords += added.NewWords
			stats.Entries += added.Entries
			stats.Skipped += added.Skipped
		}
		if err != nil {
			cancel() // stop the reader and workers; keep draining so they can exit
			continue
		}
		if progress != nil {
			stats.Duration = time.Since(start)
			progress(stats)
		}
	}
	<-readerDone // r must not be read after Import returns
	stats.Skipped += skipped
	stats.Duration = time.Since(start)
	if err == nil {
		err = readErr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		// Fold the write-ahead log back into the file so it does not keep the size
		// of the largest batch; busy readers only make this a partial checkpoint.
		_, err = ix.writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return stats, err
}

// entryTables resolves algorithm names to the algorithms that have an entries table
// (sha256 is the words table itself, always written).
func entryTables(names []string) ([]*algorithm, error) {
	if names == nil {
		names = Algorithms
	}
	var tables []*algorithm
	for _, name := range names {
		a, ok := algorithmsByName[strings.ToLower(name)]
		if !ok {
			return nil, &UnknownAlgorithmError{Name: name}
		}
		if a.table != "" && !slices.Contains(tables, a) {
			tables = append(tables, a)
		}
	}
	return tables, nil
}

// readWords splits r into batches of at most ImportBatchWords words and returns how many
// over-long lines it skipped. Memory stays bounded whatever the input: a line is never
// held beyond MaxWordBytes.
func readWords(ctx context.Context, r io.Reader, out chan<- [][]byte) (skipped int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	batch := make([][]byte, 0, batchWords)
	arena := make([]byte, 0, batchWords*16)
	send := func() bool {
		select {
		case out <- batch:
		case <-ctx.Done():
			return false
		}
		batch = make([][]byte, 0, batchWords)
		arena = make([]byte, 0, batchWords*16)
		return true
	}
	for {
		line, err := br.ReadSlice('\n')
		tooLong := false
		for err == bufio.ErrBufferFull { // a line longer than the buffer: drop all of it
			tooLong = true
			_, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return skipped, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		switch {
		case tooLong || len(line) > MaxWordBytes:
			skipped++
		case len(line) > 0:
			start := len(arena)
			arena = append(arena, line...)
			batch = append(batch, arena[start:len(arena):len(arena)])
		}
		if len(batch) == batchWords && !send() {
			return skipped, ctx.Err()
		}
		if err == io.EOF {
			if len(batch) > 0 && !send() {
				return skipped, ctx.Err()
			}
			return skipped, nil
		}
	}
}

// indexedWord is a word with its keys: id is its sha256 prefix (moved on collision),
// keys[i] its prefix under tables[i].
type indexedWord struct {
	word []byte
	id   int64
	keys [4]int64
}

func hashWords(words [][]byte, tables []*algorithm) []indexedWord {
	out := make([]indexedWord, len(words))
	for i, w := range words {
		out[i] = indexedWord{word: w, id: wordID(w)}
		for t, a := range tables {
			out[i].keys[t] = prefixKey(a.sum(w))
		}
	}
	return out
}

// writeBatch stores one batch in one transaction. Rows are inserted in key order so that
// each B-tree is walked forwards instead of at random.
func (ix *Index) writeBatch(ctx context.Context, batch []indexedWord, tables []*algorithm) (Stats, error) {
	stats := Stats{Words: int64(len(batch))}
	slices.SortFunc(batch, func(a, b indexedWord) int {
		return cmp.Or(cmp.Compare(a.id, b.id), bytes.Compare(a.word, b.word))
	})
	batch = slices.CompactFunc(batch, func(a, b indexedWord) bool { return bytes.Equal(a.word, b.word) })

	tx, err := ix.writer.BeginTx(ctx, nil)
	if err != nil {
		return Stats{}, err
	}
	defer tx.Rollback()

	placed, err := insertWords(ctx, tx, batch)
	if err != nil {
		return Stats{}, err
	}
	// Words whose id was taken (already imported, or a different word with the same
	// sha256 prefix) are resolved one by one.
	kept := batch[:0]
	for i := range batch {
		w := &batch[i]
		if len(placed) > 0 && placed[0] == w.id {
			placed = placed[1:]
			stats.NewWords++
			kept = append(kept, *w)
			continue
		}
		isNew, ok, err := placeWord(ctx, tx, w)
		if err != nil {
			return Stats{}, err
		}
		if !ok {
			stats.Skipped++
			continue
		}
		if isNew {
			stats.NewWords++
		}
		kept = append(kept, *w)
	}
	stats.Entries = stats.NewWords
	if err := addCount(ctx, tx, "sha256", stats.NewWords); err != nil {
		return Stats{}, err
	}

	pairs := make([][2]int64, len(kept))
	for t, a := range tables {
		for i, w := range kept {
			pairs[i] = [2]int64{w.keys[t], w.id}
		}
		slices.SortFunc(pairs, func(x, y [2]int64) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
		added, err := insertEntries(ctx, tx, a.table, pairs)
		if err != nil {
			return Stats{}, err
		}
		if err := addCount(ctx, tx, a.name, added); err != nil {
			return Stats{}, err
		}
		stats.Entries += added
	}
	return stats, tx.Commit()
}

// insertWords inserts the batch (sorted by id) under the ids it proposes and returns,
// sorted, the ids that were free and are now taken by these words.
func insertWords(ctx context.Context, tx *sql.Tx, batch []indexedWord) ([]int64, error) {
	var placed []int64
	stmts := newChunkStatements(tx, "INSERT INTO words(id, word) VALUES ", " ON CONFLICT DO NOTHING RETURNING id")
	defer stmts.Close()
	args := make([]any, 0, 2*rowsPerInsert)
	for chunk := range slices.Chunk(batch, rowsPerInsert) {
		args = args[:0]
		for _, w := range chunk {
			args = append(args, w.id, w.word)
		}
		stmt, err := stmts.forRows(ctx, len(chunk))
		if err != nil {
			return nil, err
		}
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			placed = append(placed, id)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	slices.Sort(placed)
	return placed, nil
}

// placeWord finds w in its probe window or puts it in the first free slot there, updating
// w.id. ok is false when the window is full of other words (not seen in practice: it needs
// maxProbe+1 words sharing a 64-bit prefix).
func placeWord(ctx context.Context, tx *sql.Tx, w *indexedWord) (isNew, ok bool, err error) {
	for i := range maxProbe {
		id := probeID(w.id, i)
		var stored []byte
		err := tx.QueryRowContext(ctx, "SELECT word FROM words WHERE id = ?", id).Scan(&stored)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, "INSERT INTO words(id, word) VALUES (?, ?)", id, w.word); err != nil {
				return false, false, err
			}
			w.id = id
			return true, true, nil
		case err != nil:
			return false, false, err
		case bytes.Equal(stored, w.word):
			w.id = id
			return false, true, nil
		}
	}
	return false, false, nil
}

func insertEntries(ctx context.Context, tx *sql.Tx, table string, pairs [][2]int64) (int64, error) {
	var added int64
	stmts := newChunkStatements(tx, "INSERT OR IGNORE INTO "+table+"(prefix, word_id) VALUES ", "")
	defer stmts.Close()
	args := make([]any, 0, 2*rowsPerInsert)
	for chunk := range slices.Chunk(pairs, rowsPerInsert) {
		args = args[:0]
		for _, p := range chunk {
			args = append(args, p[0], p[1])
		}
		stmt, err := stmts.forRows(ctx, len(chunk))
		if err != nil {
			return 0, err
		}
		res, err := stmt.ExecContext(ctx, args...)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		added += n
	}
	return added, nil
}

func addCount(ctx context.Context, tx *sql.Tx, algorithm string, n int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO counts(algorithm, entries) VALUES (?, ?)
		ON CONFLICT(algorithm) DO UPDATE SET entries = entries + excluded.entries`, algorithm, n)
	return err
}

// chunkStatements prepares a multi-row INSERT once per transaction for full chunks of
// rowsPerInsert rows (re-parsing it per chunk cost 12% of an import) and once more for
// the last, shorter chunk.
type chunkStatements struct {
	tx             *sql.Tx
	prefix, suffix string
	full, last     *sql.Stmt
}

func newChunkStatements(tx *sql.Tx, prefix, suffix string) *chunkStatements {
	return &chunkStatements{tx: tx, prefix: prefix, suffix: suffix}
}

func (c *chunkStatements) forRows(ctx context.Context, n int) (*sql.Stmt, error) {
	slot := &c.last
	if n == rowsPerInsert {
		slot = &c.full
	}
	if *slot == nil {
		stmt, err := c.tx.PrepareContext(ctx, c.prefix+strings.TrimSuffix(strings.Repeat("(?,?),", n), ",")+c.suffix)
		if err != nil {
			return nil, err
		}
		*slot = stmt
	}
	return *slot, nil
}

func (c *chunkStatements) Close() {
	for _, stmt := range []*sql.Stmt{c.full, c.last} {
		if stmt != nil {
			stmt.Close()
		}
	}
}

// EnsureSeeded imports words for all Algorithms unless this exact list was already
// imported, which a meta row records, so that a restart costs one query.
func (ix *Index) EnsureSeeded(ctx context.Context, words []string) error {
	sum := sha256.New()
	for _, w := range words {
		fmt.Fprintf(sum, "%d:%s\n", len(w), w)
	}
	fmt.Fprintf(sum, "%v", Algorithms)
	fingerprint := hex.EncodeToString(sum.Sum(nil))

	var done string
	err := ix.writer.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'seed'").Scan(&done)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if done == fingerprint {
		return nil
	}
	if _, err := ix.Import(ctx, strings.NewReader(strings.Join(words, "\n")), Algorithms, nil); err != nil {
		return fmt.Errorf("hashindex: seed: %w", err)
	}
	_, err = ix.writer.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('seed', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fingerprint)
	return err
}
