// Package hashindex is a reverse lookup index from unsalted digests (md5, sha1, sha256,
// sha512, ntlm) to the words that produce them, stored in its own SQLite file.
//
// Keys are the first 8 bytes of a digest; every candidate word is rehashed and compared
// with the full digest before it is returned, so a prefix collision never gives a wrong answer.
package hashindex

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"secutil/store/internal/migrate"
	"secutil/store/internal/walmode"
)

// Limits on user input.
const (
	// MaxWordBytes is the longest wordlist line Import indexes; longer lines are skipped.
	MaxWordBytes = 256
	// MaxLookupBatch is the most digests LookupMany accepts in one call.
	MaxLookupBatch = 500
)

// ErrTooManyDigests is returned by LookupMany for more than MaxLookupBatch digests.
var ErrTooManyDigests = fmt.Errorf("hashindex: at most %d digests per lookup", MaxLookupBatch)

// InvalidDigestError reports a digest that is not hex of a supported length.
type InvalidDigestError struct{ Digest string }

func (e *InvalidDigestError) Error() string {
	// %.140q quotes at most 140 characters of what may be a long token.
	return fmt.Sprintf("not a hash this service can look up: %.140q (md5 or ntlm: 32 hex, sha1: 40, sha256: 64, sha512: 128)", e.Digest)
}

// UnknownAlgorithmError reports an algorithm name the index does not hold.
type UnknownAlgorithmError struct{ Name string }

func (e *UnknownAlgorithmError) Error() string {
	return fmt.Sprintf("unknown algorithm %q (allowed: %s)", e.Name, strings.Join(Algorithms, ", "))
}

// Hit is the answer for one digest. Algorithm and Plaintext are empty when Found is false.
type Hit struct {
	Hash      string
	Plaintext string
	Algorithm string
	Found     bool
}

// Index is a reverse hash lookup index. It is safe for concurrent use; lookups proceed
// while an import is running.
type Index struct {
	path   string
	dir    string  // the run files
	writer *sql.DB // one connection: SQLite allows one writer
	reader *sql.DB
	// lookups are prepared on reader.
	lookups lookupStatements

	commitMu sync.Mutex // serialises commits that change the runs with their install
	mu       sync.Mutex // guards current, open and the counts of holders in them
	current  *runSet
	open     map[string]*runFile // by file name
	merging  map[*runFile]bool   // inputs of the merges running

	sizes importSizes
}

var migrations = []string{
	// 1: a B-tree row per index entry (too slow to import: about 1 µs a row).
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
	 CREATE TABLE counts(algorithm TEXT PRIMARY KEY, entries INTEGER NOT NULL) WITHOUT ROWID;
	 CREATE TABLE words(id INTEGER PRIMARY KEY, word BLOB NOT NULL);
	 CREATE TABLE md5(prefix INTEGER NOT NULL, word_id INTEGER NOT NULL, PRIMARY KEY(prefix, word_id)) WITHOUT ROWID;
	 CREATE TABLE sha1(prefix INTEGER NOT NULL, word_id INTEGER NOT NULL, PRIMARY KEY(prefix, word_id)) WITHOUT ROWID;
	 CREATE TABLE sha512(prefix INTEGER NOT NULL, word_id INTEGER NOT NULL, PRIMARY KEY(prefix, word_id)) WITHOUT ROWID;
	 CREATE TABLE ntlm(prefix INTEGER NOT NULL, word_id INTEGER NOT NULL, PRIMARY KEY(prefix, word_id)) WITHOUT ROWID;`,
	// 2: words in blocks and entries in sorted runs of chunks (runs.go, words.go). The
	// index is derived data: a version 1 file is emptied and seeded again.
	`DROP TABLE words; DROP TABLE md5; DROP TABLE sha1; DROP TABLE sha512; DROP TABLE ntlm;
	 DELETE FROM counts; DELETE FROM meta WHERE key = 'seed';
	 CREATE TABLE word_blocks(id INTEGER PRIMARY KEY, words BLOB NOT NULL);
	 CREATE TABLE runs(id INTEGER PRIMARY KEY, algorithm TEXT NOT NULL, entries INTEGER NOT NULL);
	 CREATE INDEX runs_by_algorithm ON runs(algorithm);
	 CREATE TABLE chunks(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, first_key INTEGER NOT NULL, entries BLOB NOT NULL);
	 CREATE UNIQUE INDEX chunks_by_key ON chunks(run_id, first_key);`,
	// 3: runs are files beside the database (runfile.go), listed in runs; the words stay.
	// The chunk rows are not converted: the index is emptied and seeded again.
	`DROP TABLE chunks; DROP TABLE runs;
	 DELETE FROM word_blocks; DELETE FROM counts; DELETE FROM meta WHERE key = 'seed';
	 CREATE TABLE runs(id INTEGER PRIMARY KEY AUTOINCREMENT, algorithm TEXT NOT NULL,
	                   entries INTEGER NOT NULL, file TEXT NOT NULL UNIQUE);`,
}

// Open opens or creates the index at path (a SQLite file, and its run files in the
// directory path + "-runs") and brings its schema up to date.
func Open(path string) (*Index, error) {
	// The writer's commits are synchronous (FULL): a merge deletes the files its commit
	// replaced, which must not come back in the table after a power loss. A commit is a
	// batch of 250,000 words or a merge, so the fsync costs little.
	const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	if err := walmode.Enable(context.Background(), path, path+pragmas, 10*time.Second); err != nil {
		return nil, fmt.Errorf("hashindex: open %s: %w", path, err)
	}
	writer, err := sql.Open("sqlite", path+pragmas+"&_pragma=synchronous(FULL)&_pragma=cache_size(-65536)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	ix := &Index{path: path, dir: path + "-runs", writer: writer, open: map[string]*runFile{}, merging: map[*runFile]bool{},
		current: &runSet{runs: make([][]*runFile, len(algorithmList)), holders: 1}, sizes: defaultImportSizes}
	if err := os.MkdirAll(ix.dir, 0o755); err != nil {
		writer.Close()
		return nil, err
	}
	if err := migrate.Apply(context.Background(), writer, migrations); err != nil {
		writer.Close()
		return nil, fmt.Errorf("hashindex: open %s: %w", path, err)
	}
	// Readers do not memory-map the file: an import's workers read the word block of
	// every stored word, and mapped pages would count in its memory (a lookup reads a few
	// hundred blocks, a pread each).
	ix.reader, err = sql.Open("sqlite", path+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, err
	}
	ix.reader.SetMaxOpenConns(4)
	if ix.lookups, err = prepareLookups(ix.reader); err != nil {
		ix.reader.Close()
		writer.Close()
		return nil, err
	}
	s, err := ix.reloadListed(context.Background())
	if err != nil {
		ix.Close()
		return nil, fmt.Errorf("hashindex: open %s: %w", path, err)
	}
	ix.release(s)
	return ix, nil
}

// Close closes the index. Lookups and imports must have returned.
func (ix *Index) Close() error {
	ix.mu.Lock()
	ix.releaseLocked(ix.current)
	ix.mu.Unlock()
	return errors.Join(ix.lookups.close(), ix.reader.Close(), ix.writer.Close())
}

// Size returns the number of index entries (one per word and algorithm) and the bytes the
// index occupies on disk: the SQLite file, its write-ahead log and the run files.
func (ix *Index) Size(ctx context.Context) (entries int64, bytes int64, err error) {
	if err := ix.reader.QueryRowContext(ctx, "SELECT COALESCE(SUM(entries), 0) FROM counts").Scan(&entries); err != nil {
		return 0, 0, err
	}
	bytes, err = ix.diskBytes()
	return entries, bytes, err
}

// diskBytes is the size of the SQLite file, its write-ahead log and the run files.
func (ix *Index) diskBytes() (int64, error) {
	var bytes int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(ix.path + suffix); err == nil {
			bytes += fi.Size()
		}
	}
	files, err := os.ReadDir(ix.dir)
	if err != nil {
		return 0, err
	}
	for _, f := range files {
		if fi, err := f.Info(); err == nil && strings.HasSuffix(f.Name(), ".run") {
			bytes += fi.Size()
		}
	}
	return bytes, nil
}

// Lookup reverses one hex digest. algorithms limits the candidates; nil means every
// algorithm whose digest length matches (32 hex digits: md5 and ntlm).
func (ix *Index) Lookup(ctx context.Context, hexDigest string, algorithms []string) (Hit, error) {
	q, err := parseQuery(hexDigest, algorithms)
	if err != nil {
		return Hit{}, err
	}
	hits, err := ix.lookup(ctx, []query{q})
	if err != nil {
		return Hit{}, err
	}
	return hits[0], nil
}

// LookupMany reverses up to MaxLookupBatch hex digests, trying every algorithm whose
// digest length matches. Results are in input order.
func (ix *Index) LookupMany(ctx context.Context, hexDigests []string) ([]Hit, error) {
	if len(hexDigests) > MaxLookupBatch {
		return nil, ErrTooManyDigests
	}
	queries := make([]query, len(hexDigests))
	for i, h := range hexDigests {
		q, err := parseQuery(h, nil)
		if err != nil {
			return nil, err
		}
		queries[i] = q
	}
	return ix.lookup(ctx, queries)
}

type query struct {
	input      string
	digest     []byte
	algorithms []*algorithm
}

func parseQuery(hexDigest string, names []string) (query, error) {
	digest, err := hex.DecodeString(strings.TrimSpace(hexDigest))
	if err != nil {
		return query{}, &InvalidDigestError{Digest: hexDigest}
	}
	q := query{input: hexDigest, digest: digest}
	if names == nil {
		names = Algorithms
	}
	for _, name := range names {
		a, ok := algorithmsByName[strings.ToLower(name)]
		if !ok {
			return query{}, &UnknownAlgorithmError{Name: name}
		}
		if a.size == len(digest) && !slices.Contains(q.algorithms, a) {
			q.algorithms = append(q.algorithms, a)
		}
	}
	if !HoldsDigestsOf(len(digest)) {
		return query{}, &InvalidDigestError{Digest: hexDigest}
	}
	return q, nil
}

// HoldsDigestsOf reports whether an indexed algorithm makes digests of
// size bytes (16, 20, 32 or 64): whether a digest of that size can be
// looked up at all.
func HoldsDigestsOf(size int) bool {
	return slices.ContainsFunc(algorithmList, func(a *algorithm) bool { return a.size == size })
}
