package hashindex

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
)

// An algorithm's index entries live in runs: immutable lists of (key, word) entries
// sorted by key, cut into chunks of about chunkEntries entries, one row per chunk.
// An import batch writes one new run per algorithm; runs of similar size are merged
// (see compact), so an algorithm has few runs and a lookup reads one chunk of each.
// Writing a chunk row per 248 entries instead of a B-tree row per entry is what makes
// a bulk import fast (docs/HASHINDEX.md).

// entry is one index entry: a digest prefix and the word it came from.
type entry struct {
	key int64
	ref wordRef
}

const (
	// entrySize is the stored size of an entry: key and ref, 8 bytes each, big-endian.
	entrySize = 16
	// chunkEntries entries plus the row's other columns fit in one 4 KiB page, so a
	// lookup reads a chunk without overflow pages.
	chunkEntries = 248
	// mergeFanout runs of one size tier are merged into one run of the next tier.
	mergeFanout = 4
	// chunksPerRead is how many chunks a merge reads per query.
	chunksPerRead = 32
)

// tierBase is the size in entries below which all runs share the lowest tier
// (smaller in tests, to merge across several tiers).
var tierBase int64 = 65_536

func appendEntry(b []byte, e entry) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(e.key))
	return binary.BigEndian.AppendUint64(b, uint64(e.ref))
}

func entryKey(chunk []byte, i int) int64 {
	return int64(binary.BigEndian.Uint64(chunk[i*entrySize:]))
}

func entryAt(chunk []byte, i int) entry {
	return entry{key: entryKey(chunk, i), ref: wordRef(binary.BigEndian.Uint64(chunk[i*entrySize+8:]))}
}

func compareEntries(a, b entry) int {
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.ref, b.ref))
}

// searchChunk appends to refs the words of the chunk's entries with this key.
func searchChunk(chunk []byte, key int64, refs []wordRef) []wordRef {
	n := len(chunk) / entrySize
	i := sort.Search(n, func(i int) bool { return entryKey(chunk, i) >= key })
	for ; i < n && entryKey(chunk, i) == key; i++ {
		refs = append(refs, entryAt(chunk, i).ref)
	}
	return refs
}

// findRefs returns the words filed under key in every run of the algorithm
// (runChunksSQL prepared).
func findRefs(ctx context.Context, stmt *sql.Stmt, a *algorithm, key int64) ([]wordRef, error) {
	rows, err := stmt.QueryContext(ctx, key, a.name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var refs []wordRef
	for rows.Next() {
		var chunk sql.RawBytes
		if err := rows.Scan(&chunk); err != nil {
			return nil, err
		}
		refs = searchChunk(chunk, key, refs)
	}
	return refs, rows.Err()
}

// runWriter writes a new run from entries given in (key, ref) order.
type runWriter struct {
	ctx     context.Context
	tx      *sql.Tx
	insert  *sql.Stmt
	id      int64
	entries int64
	chunk   []byte
}

func newRunWriter(ctx context.Context, tx *sql.Tx, a *algorithm) (*runWriter, error) {
	res, err := tx.ExecContext(ctx, "INSERT INTO runs(algorithm, entries) VALUES (?, 0)", a.name)
	if err != nil {
		return nil, err
	}
	w := &runWriter{ctx: ctx, tx: tx, chunk: make([]byte, 0, (chunkEntries+1)*entrySize)}
	if w.id, err = res.LastInsertId(); err != nil {
		return nil, err
	}
	w.insert, err = tx.PrepareContext(ctx, "INSERT INTO chunks(run_id, first_key, entries) VALUES (?, ?, ?)")
	return w, err
}

// add appends e to the run. A chunk is only cut between different keys, so all the
// entries of a key are in the one chunk a lookup reads.
func (w *runWriter) add(e entry) error {
	if n := len(w.chunk) / entrySize; n >= chunkEntries && entryKey(w.chunk, n-1) != e.key {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.chunk = appendEntry(w.chunk, e)
	w.entries++
	return nil
}

func (w *runWriter) flush() error {
	if len(w.chunk) == 0 {
		return nil
	}
	_, err := w.insert.ExecContext(w.ctx, w.id, entryKey(w.chunk, 0), w.chunk)
	w.chunk = w.chunk[:0]
	return err
}

// finish writes the last chunk and the run's size.
func (w *runWriter) finish() error {
	defer w.insert.Close()
	if err := w.flush(); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(w.ctx, "UPDATE runs SET entries = ? WHERE id = ?", w.entries, w.id)
	return err
}

// writeRun stores sorted entries as a new run of the algorithm.
func writeRun(ctx context.Context, tx *sql.Tx, a *algorithm, entries []entry) error {
	w, err := newRunWriter(ctx, tx, a)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := w.add(e); err != nil {
			w.insert.Close()
			return err
		}
	}
	return w.finish()
}

// runReader reads a run's entries in order, chunksPerRead chunks per query.
type runReader struct {
	ctx     context.Context
	tx      *sql.Tx
	id      int64
	after   int64 // first key of the last chunk read
	started bool
	chunks  [][]byte
	pos     int // next entry of chunks[0]
}

// next returns the run's next entry; ok is false at its end.
func (r *runReader) next() (e entry, ok bool, err error) {
	for len(r.chunks) == 0 || r.pos*entrySize >= len(r.chunks[0]) {
		if len(r.chunks) > 0 {
			r.chunks, r.pos = r.chunks[1:], 0
			continue
		}
		if err := r.load(); err != nil || len(r.chunks) == 0 {
			return entry{}, false, err
		}
	}
	e = entryAt(r.chunks[0], r.pos)
	r.pos++
	return e, true, nil
}

func (r *runReader) load() error {
	query := "SELECT first_key, entries FROM chunks WHERE run_id = ? AND first_key > ? ORDER BY first_key LIMIT ?"
	if !r.started {
		query = strings.Replace(query, ">", ">=", 1)
		r.after, r.started = math.MinInt64, true
	}
	rows, err := r.tx.QueryContext(r.ctx, query, r.id, r.after, chunksPerRead)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var chunk []byte
		if err := rows.Scan(&r.after, &chunk); err != nil {
			return err
		}
		r.chunks = append(r.chunks, chunk)
	}
	return rows.Err()
}

type runInfo struct {
	id, entries int64
}

// tier groups runs by size: each tier holds runs mergeFanout times larger than the one below.
func tier(entries int64) int {
	t := 0
	for n := entries; n >= tierBase*mergeFanout; n /= mergeFanout {
		t++
	}
	return t
}

// compact merges the algorithm's runs while some size tier holds mergeFanout of them, so
// an algorithm with N entries has O(log N) runs and each entry is rewritten O(log N) times.
func compact(ctx context.Context, tx *sql.Tx, a *algorithm) error {
	for {
		runs, err := listRuns(ctx, tx, a)
		if err != nil {
			return err
		}
		byTier := map[int][]runInfo{}
		for _, r := range runs {
			byTier[tier(r.entries)] = append(byTier[tier(r.entries)], r)
		}
		full := -1
		for t, rs := range byTier {
			if len(rs) >= mergeFanout && (full < 0 || t < full) {
				full = t
			}
		}
		if full < 0 {
			return nil
		}
		if err := mergeRuns(ctx, tx, a, byTier[full]); err != nil {
			return err
		}
	}
}

func listRuns(ctx context.Context, tx *sql.Tx, a *algorithm) ([]runInfo, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, entries FROM runs WHERE algorithm = ? ORDER BY id", a.name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []runInfo
	for rows.Next() {
		var r runInfo
		if err := rows.Scan(&r.id, &r.entries); err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// mergeRuns replaces runs by one run holding all their entries, in order.
func mergeRuns(ctx context.Context, tx *sql.Tx, a *algorithm, runs []runInfo) error {
	readers := make([]*runReader, len(runs))
	heads := make([]entry, 0, len(runs))
	for i, r := range runs {
		readers[i] = &runReader{ctx: ctx, tx: tx, id: r.id}
	}
	live := readers[:0:0]
	for _, r := range readers {
		e, ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			live, heads = append(live, r), append(heads, e)
		}
	}
	w, err := newRunWriter(ctx, tx, a)
	if err != nil {
		return err
	}
	defer w.insert.Close()
	for len(live) > 0 {
		i := 0
		for j := 1; j < len(heads); j++ {
			if compareEntries(heads[j], heads[i]) < 0 {
				i = j
			}
		}
		if err := w.add(heads[i]); err != nil {
			return err
		}
		e, ok, err := live[i].next()
		switch {
		case err != nil:
			return err
		case ok:
			heads[i] = e
		default:
			live, heads = slices.Delete(live, i, i+1), slices.Delete(heads, i, i+1)
		}
	}
	if err := w.finish(); err != nil {
		return err
	}
	for _, r := range runs {
		if _, err := tx.ExecContext(ctx, "DELETE FROM chunks WHERE run_id = ?", r.id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE id = ?", r.id); err != nil {
			return err
		}
	}
	return nil
}

// runCursor finds keys in one run, asked in ascending order, re-reading a chunk only when
// the key leaves the range [lo, hi) of the chunk it holds: for a sorted batch of keys it
// reads each chunk at most once.
type runCursor struct {
	ctx    context.Context
	tx     *sql.Tx
	id     int64
	loaded bool
	lo, hi int64
	last   bool // the chunk is the run's last: its range has no upper bound
	chunk  []byte
}

const seekChunkSQL = `SELECT first_key, entries,
	(SELECT MIN(first_key) FROM chunks WHERE run_id = ?1 AND first_key > c.first_key)
	FROM chunks c WHERE run_id = ?1 AND first_key <= ?2 ORDER BY first_key DESC LIMIT 1`

func (c *runCursor) find(key int64, refs []wordRef) ([]wordRef, error) {
	if !c.loaded || key < c.lo || (!c.last && key >= c.hi) {
		if err := c.seek(key); err != nil {
			return refs, err
		}
	}
	return searchChunk(c.chunk, key, refs), nil
}

func (c *runCursor) seek(key int64) error {
	var next sql.NullInt64
	err := c.tx.QueryRowContext(c.ctx, seekChunkSQL, c.id, key).Scan(&c.lo, &c.chunk, &next)
	if errors.Is(err, sql.ErrNoRows) {
		// The key is before the run's first chunk.
		c.lo, c.chunk = math.MinInt64, nil
		err = c.tx.QueryRowContext(c.ctx, "SELECT MIN(first_key) FROM chunks WHERE run_id = ?", c.id).Scan(&next)
	}
	if err != nil {
		return err
	}
	c.loaded, c.hi, c.last = true, next.Int64, !next.Valid
	return nil
}
