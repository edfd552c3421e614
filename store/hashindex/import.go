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
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ImportBatchWords is how many words one import transaction holds. A crash or
// cancellation loses at most the batch in flight; committed batches stay usable.
// A batch in memory costs about 180 bytes a word (words, keys, what is stored), and a
// few are in flight.
const ImportBatchWords = 250_000

// importSizes are the sizes an import works with. An Index holds its own, so that
// tests can make them smaller (several batches, merges across tiers, few recent batches)
// for one index while other tests run in parallel.
type importSizes struct {
	batchWords  int   // words per transaction: ImportBatchWords
	keptBatches int   // the bound of recentBatches: defaultKeptBatches
	tierBase    int64 // the lowest tier's bound in entries: defaultTierBase
}

var defaultImportSizes = importSizes{batchWords: ImportBatchWords, keptBatches: defaultKeptBatches, tierBase: defaultTierBase}

// Stats summarises an import. Words counts accepted lines (duplicates included),
// NewWords the words the index did not hold, Entries the (word, algorithm) pairs added,
// Skipped the lines dropped for being longer than MaxWordBytes, Bytes the input read
// (up to the end of the last committed batch, in a progress report).
type Stats struct {
	Words, NewWords, Entries, Skipped, Bytes int64
	Duration                                 time.Duration
}

// Progress is the running total Import reports after each committed batch.
type Progress = Stats

// Import adds one word per line of r (a trailing \r is stripped, empty lines are ignored,
// lines longer than MaxWordBytes are skipped, a line $HEX[...] stands for the bytes its
// hex digits give, as in hashcat) to the index for the given algorithms (nil means
// Algorithms; sha256 is always added). Input compressed with gzip or bzip2 is read
// decompressed, whatever its name; input that is not a wordlist (binary data, another
// compression, UTF-16) is refused with a *NotWordlistError before anything is added (see
// openWordlist). Importing the same words again adds nothing; importing them with more
// algorithms adds only the missing entries. progress, if not nil, is called after every
// committed batch. On error or cancellation the batches committed so far remain in the
// index. A complete import is recorded in the index (see Summary) under r's name when r
// has a Name method (an *os.File has), else as "the input".
func (ix *Index) Import(ctx context.Context, r io.Reader, algorithms []string, progress func(Progress)) (Stats, error) {
	start := time.Now()
	indexed, err := indexedAlgorithms(algorithms)
	if err != nil {
		return Stats{}, err
	}
	in, err := openWordlist(r)
	if err != nil {
		return Stats{}, err
	}
	unlock, err := ix.lockImports(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	if err := ix.prepareImport(ctx); err != nil {
		return Stats{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Merges run beside the batches, on one goroutine per core, so that while the writer
	// waits for them (or a large merge runs) every core has work.
	mergers := runtime.GOMAXPROCS(0)
	wakeMergers, finishMerges := make(chan struct{}, mergers), make(chan struct{})
	mergeErrs := make(chan error, mergers)
	for range mergers {
		go func() {
			err := ix.runMerges(ctx, wakeMergers, finishMerges)
			if err != nil {
				cancel()
			}
			mergeErrs <- err
		}()
	}

	var skipped int64 // written by the reader, read after readerDone
	var readErr error
	lines := make(chan wordBatch, 1)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(lines)
		skipped, readErr = readWords(ctx, in, lines, ix.sizes.batchWords)
	}()
	// Hashing, sorting and finding the words already stored take longer than writing, so
	// one goroutine per core does them while the writer below commits the previous batch.
	hashed := make(chan *hashedBatch, 1)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			for words := range lines {
				select {
				case hashed <- ix.hashBatch(ctx, words, indexed):
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() { workers.Wait(); close(hashed) }()

	// Batches commit in input order, so an interrupted import leaves a prefix of the list.
	var stats Stats
	recent := recentBatches{kept: ix.sizes.keptBatches}
	pending := map[int]*hashedBatch{}
	next := 0
	for batch := range hashed {
		pending[batch.seq] = batch
		for pending[next] != nil {
			batch := pending[next]
			delete(pending, next)
			next++
			if err == nil {
				err = ix.waitForMerges(ctx)
			}
			if err == nil {
				var added Stats
				added, err = ix.writeBatch(ctx, batch, indexed, &recent)
				stats.Words += added.Words
				stats.NewWords += added.NewWords
				stats.Entries += added.Entries
				stats.Bytes = batch.bytes
			}
			if err != nil {
				cancel() // stop the reader and workers; keep draining so they can exit
				continue
			}
			for range mergers {
				select {
				case wakeMergers <- struct{}{}:
				default:
				}
			}
			if progress != nil {
				stats.Duration = time.Since(start)
				progress(stats)
			}
		}
	}
	<-readerDone // r must not be read after Import returns
	close(finishMerges)
	if err == nil {
		err = readErr
	}
	for range mergers {
		if merr := <-mergeErrs; err == nil && !errors.Is(merr, context.Canceled) {
			err = merr
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	stats.Skipped += skipped
	stats.Duration = time.Since(start)
	if err == nil {
		err = ix.recordList(ctx, in.name, stats, indexed)
	}
	if err == nil {
		// Fold the write-ahead log back into the file so it does not keep the size of
		// the largest batch; busy readers only make this a partial checkpoint.
		_, err = ix.writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	stats.Duration = time.Since(start)
	return stats, err
}

// lockImports waits for the import lock, a file lock in the runs directory: one import at a
// time writes and merges runs (two in one process or in two processes would merge the
// same runs). It returns the unlock function.
func (ix *Index) lockImports(ctx context.Context) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(ix.dir, "import.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		busy, err := lockFile(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if !busy {
			return func() { f.Close() }, nil // closing the file releases the lock
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// prepareImport, holding the import lock, deletes the files an interrupted import left
// and makes sure the in-memory runs are those of the table.
func (ix *Index) prepareImport(ctx context.Context) error {
	tx, err := ix.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := ix.removeOrphans(ctx, tx); err != nil {
		return err
	}
	s, err := ix.reload(ctx, tx)
	if err != nil {
		return err
	}
	ix.release(s)
	return tx.Commit()
}

// waitForMerges holds the next batch while some algorithm has more than maxLowRuns runs in
// the lowest tier, so that lookups never read too many runs.
func (ix *Index) waitForMerges(ctx context.Context) error {
	for {
		s := ix.acquire()
		behind := mergesBehind(s, ix.sizes.tierBase)
		ix.release(s)
		if !behind {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// indexedAlgorithms resolves algorithm names (nil means Algorithms) to the algorithms an
// import indexes, in algorithmList order and always including sha256.
func indexedAlgorithms(names []string) ([]*algorithm, error) {
	if names == nil {
		names = Algorithms
	}
	set := sha256Algorithm.bit
	for _, name := range names {
		a, ok := algorithmsByName[strings.ToLower(name)]
		if !ok {
			return nil, &UnknownAlgorithmError{Name: name}
		}
		set |= a.bit
	}
	var indexed []*algorithm
	for _, a := range algorithmList {
		if set&a.bit != 0 {
			indexed = append(indexed, a)
		}
	}
	return indexed, nil
}

// wordBatch is the seq-th batch of lines of an import; bytes is the input read up to
// its end.
type wordBatch struct {
	seq   int
	lines [][]byte
	bytes int64
}

// readWords splits the input into batches of at most batchWords words and returns how
// many lines it skipped (longer than MaxWordBytes, as read or as $HEX[...] decodes them).
// Memory stays bounded whatever the input: a line is never held beyond the input's
// buffer. An input that tells its length (a strings.Reader, as a seed is) gets buffers of
// its size: a few words need no megabytes.
func readWords(ctx context.Context, in *wordlistInput, out chan<- wordBatch, batchWords int) (skipped int64, err error) {
	br := in.words
	var batch wordBatch
	var arena []byte
	// newBuffers makes a batch's buffers when it takes its first word, line: room for
	// batchWords words of 16 bytes on average (the arena grows past that), or for no
	// more than the rest of a known input, line included.
	newBuffers := func(line []byte) {
		words, arenaBytes := batchWords, batchWords*16
		if left, known := in.left(); known {
			left += len(line) + 2
			words, arenaBytes = min(words, left/2+1), min(arenaBytes, left)
		}
		batch.lines, arena = make([][]byte, 0, words), make([]byte, 0, arenaBytes)
	}
	send := func() bool {
		if in.consumed != nil {
			batch.bytes = in.consumed()
		}
		select {
		case out <- batch:
		case <-ctx.Done():
			return false
		}
		batch = wordBatch{seq: batch.seq + 1, bytes: batch.bytes} // buffers come with its first word
		return true
	}
	for {
		line, err := br.ReadSlice('\n')
		batch.bytes += int64(len(line))
		tooLong := false
		for err == bufio.ErrBufferFull { // a line longer than the buffer: drop all of it
			tooLong = true
			line, err = br.ReadSlice('\n')
			batch.bytes += int64(len(line))
		}
		if err != nil && err != io.EOF {
			return skipped, fmt.Errorf("hashindex: %s: %w", in.name, err)
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		switch {
		case tooLong:
			skipped++
		case len(line) > 0:
			if batch.lines == nil {
				newBuffers(line)
			}
			start := len(arena)
			var hexForm bool
			if arena, hexForm = decodeHexForm(arena, line); !hexForm {
				arena = append(arena, line...)
			}
			switch n := len(arena) - start; {
			case n > MaxWordBytes:
				arena = arena[:start]
				skipped++
			case n > 0: // $HEX[] is an empty word, ignored as an empty line
				batch.lines = append(batch.lines, arena[start:len(arena):len(arena)])
			}
		}
		if len(batch.lines) == batchWords && !send() {
			return skipped, ctx.Err()
		}
		if err == io.EOF {
			if len(batch.lines) > 0 && !send() {
				return skipped, ctx.Err()
			}
			return skipped, nil
		}
	}
}

// hashedBatch is a batch of distinct words sorted by (sha256 key, word), what the index
// stored of them at generation snapshot, and each indexed algorithm's keys, sorted, for
// the words that lacked the algorithm then.
type hashedBatch struct {
	seq      int
	lines    int // accepted lines, duplicates included
	bytes    int64
	words    []hashedWord
	stored   []storedWord
	snapshot int64
	keys     [][]keyedWord // keys[t] belong to the t-th indexed algorithm
	err      error
}

type hashedWord struct {
	word []byte
	id   uint64 // the sha256 key, by which an import finds a word already stored
}

// compareWords orders words by sha256 key, then (rarely needed) by their bytes.
func compareWords(a, b hashedWord) int {
	if a.id != b.id {
		return cmp.Compare(a.id, b.id)
	}
	return bytes.Compare(a.word, b.word)
}

type keyedWord struct {
	key  uint64
	word int32 // index in hashedBatch.words
}

// hashBatch prepares a batch for the writer, on a worker goroutine: it finds the words the
// index already stores (against the current runs) and hashes the others, and the stored
// ones under the algorithms they lack. Re-importing a list thus costs a sha256 a word.
func (ix *Index) hashBatch(ctx context.Context, batch wordBatch, indexed []*algorithm) *hashedBatch {
	words := make([]hashedWord, len(batch.lines))
	for i, w := range batch.lines {
		words[i] = hashedWord{word: w, id: wordID(w)}
	}
	sortByKey(words, func(w hashedWord) uint64 { return w.id }, compareWords)
	words = slices.CompactFunc(words, func(a, b hashedWord) bool { return bytes.Equal(a.word, b.word) })
	b := &hashedBatch{seq: batch.seq, lines: len(batch.lines), bytes: batch.bytes, words: words, keys: make([][]keyedWord, len(indexed))}
	set := ix.acquire()
	b.snapshot = set.generation
	b.stored, b.err = findStored(ctx, ix.lookups.block, set.runs[sha256Algorithm.index()], words)
	ix.release(set)
	if b.err != nil {
		return b
	}
	// Word by word, so each word is fetched from memory once for all its algorithms (the
	// words are in sha256 order, scattered over the batch's memory).
	keyers := make([]func([]byte) uint64, len(indexed))
	for t, a := range indexed {
		keyers[t] = a.newKeyer()
		b.keys[t] = make([]keyedWord, 0, len(words))
	}
	for i, w := range words {
		for t, a := range indexed {
			if s := b.stored[i]; s.found && s.set&a.bit != 0 {
				continue
			}
			k := w.id
			if a != sha256Algorithm {
				k = keyers[t](w.word)
			}
			b.keys[t] = append(b.keys[t], keyedWord{key: k, word: int32(i)})
		}
	}
	for t, a := range indexed {
		if a != sha256Algorithm { // the words are in sha256 order already
			sortByKey(b.keys[t], func(k keyedWord) uint64 { return k.key }, func(x, y keyedWord) int { return cmp.Compare(x.key, y.key) })
		}
	}
	return b
}

// recentBatches are the last batches the writer committed: a worker found the stored words
// of a batch at its snapshot, and the writer completes that with the words the batches
// committed since then stored or changed.
type recentBatches struct {
	kept    int // how many batches it keeps
	batches []recentBatch
	since   int64 // the generation of the newest batch dropped
}

// recentBatch is what a committed batch stored: its new and changed words, sorted by
// sha256 key, with their sets after the commit, and the generation it made.
type recentBatch struct {
	generation int64
	words      []recentWord
}

type recentWord struct {
	id   uint64
	word []byte
	ref  wordRef
	set  algorithmSet
}

// defaultKeptBatches bounds recentBatches (a batch of them holds about 10 MB): a batch
// whose snapshot is older than a dropped batch (its worker stalled: snapshots lag by the
// two or three batches in the pipeline) is checked by the writer against every run instead.
const defaultKeptBatches = 4

// catchUp updates stored with the words of the batches committed after snapshot. It
// returns false when they are not all kept.
func (r *recentBatches) catchUp(words []hashedWord, stored []storedWord, snapshot int64) bool {
	if snapshot < r.since {
		return false
	}
	for _, rb := range r.batches {
		if rb.generation <= snapshot {
			continue
		}
		// Both lists are sorted by (id, word).
		i, j := 0, 0
		for i < len(words) && j < len(rb.words) {
			switch c := compareWords(words[i], hashedWord{id: rb.words[j].id, word: rb.words[j].word}); {
			case c < 0:
				i++
			case c > 0:
				j++
			default:
				stored[i] = storedWord{found: true, ref: rb.words[j].ref, set: rb.words[j].set}
				i++
				j++
			}
		}
	}
	return true
}

func (r *recentBatches) add(b recentBatch) {
	r.batches = append(r.batches, b)
	if len(r.batches) > r.kept {
		r.since = r.batches[0].generation
		r.batches = slices.Delete(r.batches, 0, 1)
	}
}

// writeBatch stores one batch in one transaction: the words the index lacks, a new run
// file per algorithm for what is missing (written and synced before the commit lists it).
func (ix *Index) writeBatch(ctx context.Context, b *hashedBatch, indexed []*algorithm, recent *recentBatches) (stats Stats, err error) {
	if b.err != nil {
		return Stats{}, b.err
	}
	stats = Stats{Words: int64(b.lines)}
	set := ix.acquire()
	defer ix.release(set)
	tx, err := ix.writer.BeginTx(ctx, nil)
	if err != nil {
		return Stats{}, err
	}
	defer tx.Rollback()

	readBlock, err := tx.PrepareContext(ctx, readBlockSQL)
	if err != nil {
		return Stats{}, err
	}
	defer readBlock.Close()
	stored := b.stored
	if !recent.catchUp(b.words, stored, b.snapshot) {
		if stored, err = findStored(ctx, readBlock, set.runs[sha256Algorithm.index()], b.words); err != nil {
			return Stats{}, err
		}
	}
	var want algorithmSet
	for _, a := range indexed {
		want |= a.bit
	}
	placed, err := placeWords(ctx, tx, readBlock, b.words, stored, want)
	if err != nil {
		return Stats{}, err
	}
	stats.NewWords = placed.newWords

	var added []*runFile
	defer func() {
		if err != nil { // not committed: the files are orphans
			for _, r := range added {
				r.close()
				os.Remove(filepath.Join(ix.dir, r.name))
			}
		}
	}()
	generation := set.generation
	entries := make([]entry, 0, len(b.words))
	for t, a := range indexed {
		entries = entries[:0]
		for _, k := range b.keys[t] {
			if placed.missing[k.word]&a.bit != 0 {
				entries = append(entries, entry{key: k.key, ref: placed.refs[k.word]})
			}
		}
		if len(entries) == 0 {
			continue
		}
		r, err := writeRun(ix.dir, a, entries)
		if err != nil {
			return Stats{}, err
		}
		added = append(added, r)
		if r.id, err = insertRun(ctx, tx, r); err != nil {
			return Stats{}, err
		}
		generation = r.id
		if err := addCount(ctx, tx, a.name, int64(len(entries))); err != nil {
			return Stats{}, err
		}
		stats.Entries += int64(len(entries))
	}
	if len(added) == 0 {
		return stats, tx.Commit()
	}
	if err := ix.commitRuns(tx, generation, added, nil); err != nil {
		return Stats{}, err
	}
	var changed []recentWord
	for i, w := range b.words {
		if placed.missing[i] != 0 {
			set := placed.missing[i]
			if stored[i].found {
				set |= stored[i].set
			}
			changed = append(changed, recentWord{id: w.id, word: w.word, ref: placed.refs[i], set: set})
		}
	}
	recent.add(recentBatch{generation: generation, words: changed})
	return stats, nil
}

func insertRun(ctx context.Context, tx *sql.Tx, r *runFile) (int64, error) {
	res, err := tx.ExecContext(ctx, "INSERT INTO runs(algorithm, entries, file) VALUES (?, ?, ?)", r.a.name, r.layout.entries, r.name)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// storedWord is where a batch word is already stored, if found, and in which block.
type storedWord struct {
	found bool
	ref   wordRef
	set   algorithmSet
}

// candidate is a stored word whose sha256 key is that of words[word].
type candidate struct {
	word int
	ref  wordRef
}

// findStored finds which of the words (sorted by sha256 key) the index stores, through
// the sha256 runs: each run's Bloom filter turns most new words away, and the others cost a
// chunk read. A key shared with a different word is told apart by comparing the words.
func findStored(ctx context.Context, readBlockStmt *sql.Stmt, runs []*runFile, words []hashedWord) ([]storedWord, error) {
	var candidates []candidate
	var refs []wordRef
	for _, r := range runs {
		p := newProber(r)
		for i, w := range words {
			var err error
			if refs, err = p.find(w.id, refs[:0]); err != nil {
				return nil, err
			}
			for _, ref := range refs {
				candidates = append(candidates, candidate{word: i, ref: ref})
			}
		}
	}
	// In block order, so each block is read once.
	slices.SortFunc(candidates, func(a, b candidate) int { return cmp.Compare(a.ref, b.ref) })
	stored := make([]storedWord, len(words))
	var block []byte
	var offsets []int
	blockID := int64(-1)
	for _, c := range candidates {
		if c.ref.block() != blockID {
			var err error
			if block, err = readBlock(ctx, readBlockStmt, c.ref.block()); err != nil {
				return nil, err
			}
			if offsets, err = recordOffsets(block, offsets); err != nil {
				return nil, err
			}
			blockID = c.ref.block()
		}
		if c.ref.slot() >= len(offsets) {
			return nil, fmt.Errorf("%w: word block %d has no slot %d", errDamaged, blockID, c.ref.slot())
		}
		setOffset := offsets[c.ref.slot()]
		if word, _, _ := recordAt(block, setOffset); bytes.Equal(word, words[c.word].word) {
			stored[c.word] = storedWord{found: true, ref: c.ref, set: algorithmSet(block[setOffset])}
		}
	}
	return stored, nil
}

// placement is where each batch word is stored and which algorithms it still lacks.
type placement struct {
	refs     []wordRef
	missing  []algorithmSet
	newWords int64
}

// placeWords stores the words not yet stored in new blocks, and records on the stored
// ones the algorithms this import adds to them.
func placeWords(ctx context.Context, tx *sql.Tx, readBlockStmt *sql.Stmt, words []hashedWord, stored []storedWord, want algorithmSet) (placement, error) {
	p := placement{refs: make([]wordRef, len(words)), missing: make([]algorithmSet, len(words))}
	var next int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) + 1 FROM word_blocks").Scan(&next); err != nil {
		return p, err
	}
	insert, err := tx.PrepareContext(ctx, "INSERT INTO word_blocks(id, words) VALUES (?, ?)")
	if err != nil {
		return p, err
	}
	defer insert.Close()
	if next+int64(len(words))/blockWords+1 >= maxBlocks {
		return p, errors.New("hashindex: the index is full (4.29 billion words)")
	}
	var block []byte
	slot := 0
	flush := func() error {
		if slot == 0 {
			return nil
		}
		_, err := insert.ExecContext(ctx, next, block)
		next, block, slot = next+1, block[:0], 0
		return err
	}
	var gaining []wordRef // stored words that gain algorithms
	for i, w := range words {
		if s := stored[i]; s.found {
			p.refs[i], p.missing[i] = s.ref, want&^s.set
			if p.missing[i] != 0 {
				gaining = append(gaining, s.ref)
			}
			continue
		}
		p.newWords++
		p.refs[i], p.missing[i] = makeRef(next, slot), want
		block = appendWordRecord(block, want, w.word)
		if slot++; slot == blockWords {
			if err := flush(); err != nil {
				return p, err
			}
		}
	}
	if err := flush(); err != nil {
		return p, err
	}
	return p, addToWordSets(ctx, tx, readBlockStmt, gaining, want)
}

// addToWordSets adds the algorithms to the stored sets of the words at refs.
func addToWordSets(ctx context.Context, tx *sql.Tx, readBlockStmt *sql.Stmt, refs []wordRef, set algorithmSet) error {
	slices.Sort(refs)
	for len(refs) > 0 {
		id := refs[0].block()
		block, err := readBlock(ctx, readBlockStmt, id)
		if err != nil {
			return err
		}
		for len(refs) > 0 && refs[0].block() == id {
			setOffset, _, err := wordAt(block, refs[0])
			if err != nil {
				return err
			}
			block[setOffset] |= byte(set)
			refs = refs[1:]
		}
		if _, err := tx.ExecContext(ctx, "UPDATE word_blocks SET words = ? WHERE id = ?", block, id); err != nil {
			return err
		}
	}
	return nil
}

func addCount(ctx context.Context, tx *sql.Tx, algorithm string, n int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO counts(algorithm, entries) VALUES (?, ?)
		ON CONFLICT(algorithm) DO UPDATE SET entries = entries + excluded.entries`, algorithm, n)
	return err
}

// EnsureSeeded imports words for all Algorithms unless this exact list was already
// imported, which a meta row records, so that a restart costs one query.
func (ix *Index) EnsureSeeded(ctx context.Context, words []string) error {
	fingerprint := seedFingerprint(words)

	var done string
	err := ix.writer.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'seed'").Scan(&done)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if done == fingerprint {
		return nil
	}
	list := namedReader{strings.NewReader(strings.Join(words, "\n")), SeedListName}
	if _, err := ix.Import(ctx, list, Algorithms, nil); err != nil {
		return fmt.Errorf("hashindex: seed: %w", err)
	}
	_, err = ix.writer.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('seed', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fingerprint)
	return err
}

// SeedListName is the name under which Summary lists the seed list.
const SeedListName = "embedded common-password list"

// namedReader gives a reader (and its Len) the name Import records.
type namedReader struct {
	*strings.Reader
	name string
}

func (r namedReader) Name() string { return r.name }

// seedFingerprint identifies a seed list and the algorithms it was imported
// for: the SHA-256 of "len:word\n" for each word, then the algorithms as %v
// prints them. Every start computes it, so the lines are appended by hand:
// fmt.Fprintf for the 30,000 words of the embedded list took 5–7 ms, this
// under 1 ms, for the same bytes (an index seeded before keeps its row).
func seedFingerprint(words []string) string {
	sum := sha256.New()
	var line []byte
	for _, w := range words {
		line = strconv.AppendInt(line[:0], int64(len(w)), 10)
		line = append(line, ':')
		line = append(line, w...)
		sum.Write(append(line, '\n'))
	}
	fmt.Fprintf(sum, "%v", Algorithms)
	return hex.EncodeToString(sum.Sum(nil))
}
