package hashindex

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// An algorithm's index entries live in runs: immutable files of (key, word) entries sorted
// by key, each in the directory beside the SQLite file, which lists them (table runs). An
// import batch writes one new run per algorithm; runs of a size tier are merged into one
// new file (merge.go). A run file is
//
//	header   one page: magic, algorithm, entries, chunks, filter blocks
//	chunks   one page each: chunkEntries entries of [key: 6 bytes][word ref: 4 bytes]
//	filter   bloomBlocks(entries) blocks of 64 bytes (bloom.go)
//	fences   8 bytes per chunk: the key of its first entry
//
// Opening a run reads its fences into memory (8 bytes per 409 entries), so a probe finds
// the one chunk that can hold a key without reading the file and costs one page read.
const (
	pageSize     = 4096
	entrySize    = keyBits/8 + 4
	chunkEntries = pageSize / entrySize // 409
	runMagic     = "secutil hashindex run v1"
)

// entry is one index entry: a digest's key and the word it came from.
type entry struct {
	key uint64
	ref wordRef
}

func putEntry(b []byte, e entry) {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], e.key)
	copy(b, k[:keyBits/8])
	binary.BigEndian.PutUint32(b[keyBits/8:], uint32(e.ref))
}

func entryKey(page []byte, i int) uint64 {
	var k [8]byte
	copy(k[:], page[i*entrySize:i*entrySize+keyBits/8])
	return binary.BigEndian.Uint64(k[:])
}

func entryAt(page []byte, i int) entry {
	return entry{key: entryKey(page, i), ref: wordRef(binary.BigEndian.Uint32(page[i*entrySize+keyBits/8:]))}
}

// runLayout is where the parts of a run of n entries start.
type runLayout struct {
	entries, chunks, bloomBlocks int64
}

func layoutFor(n int64) runLayout {
	return runLayout{entries: n, chunks: (n + chunkEntries - 1) / chunkEntries, bloomBlocks: bloomBlocks(n)}
}

func (l runLayout) bloomOffset() int64 { return pageSize + l.chunks*pageSize }
func (l runLayout) fenceOffset() int64 { return l.bloomOffset() + l.bloomBlocks*bloomBlockBytes }
func (l runLayout) size() int64        { return l.fenceOffset() + l.chunks*8 }

// entriesIn is the number of entries of chunk c.
func (l runLayout) entriesIn(c int64) int {
	return int(min(chunkEntries, l.entries-c*chunkEntries))
}

// runWriter writes a new run file of a known number of entries, given in key order.
type runWriter struct {
	f      *os.File
	name   string
	layout runLayout
	a      *algorithm
	added  int64
	data   *bufio.Writer
	filter *bufio.Writer
	page   [pageSize]byte
	inPage int
	fences []uint64
	// The filter block being filled, and the number of blocks written before it.
	block      [bloomBlockBytes]byte
	blockIndex int64
	lastKey    uint64
}

// createRun starts a run file of n entries (n > 0) in dir, under a new random name.
func createRun(dir string, a *algorithm, n int64) (*runWriter, error) {
	var random [8]byte
	rand.Read(random[:])
	name := a.name + "-" + hex.EncodeToString(random[:]) + ".run"
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	l := layoutFor(n)
	// Buffers no larger than what they will hold: a small run (an import
	// of a few words, a merge of two small runs) would otherwise allocate
	// and clear 320 KiB for a few pages.
	return &runWriter{f: f, name: name, layout: l, a: a,
		data:   bufio.NewWriterSize(io.NewOffsetWriter(f, pageSize), int(min(256<<10, l.chunks*pageSize))),
		filter: bufio.NewWriterSize(io.NewOffsetWriter(f, l.bloomOffset()), int(min(64<<10, l.bloomBlocks*bloomBlockBytes))),
		fences: make([]uint64, 0, l.chunks)}, nil
}

// add appends e, whose key must not be below the previous one's.
func (w *runWriter) add(e entry) error {
	if w.added == w.layout.entries || e.key < w.lastKey {
		return fmt.Errorf("hashindex: run %s: entry %d out of order or past the end", w.name, w.added)
	}
	w.lastKey = e.key
	if w.inPage == 0 {
		w.fences = append(w.fences, e.key)
	}
	putEntry(w.page[w.inPage*entrySize:], e)
	w.added++
	if w.inPage++; w.inPage == chunkEntries || w.added == w.layout.entries {
		clear(w.page[w.inPage*entrySize:])
		if _, err := w.data.Write(w.page[:]); err != nil {
			return err
		}
		w.inPage = 0
	}
	if b := bloomBlock(e.key, w.layout.bloomBlocks); b != w.blockIndex {
		if err := w.flushBlocksTo(b); err != nil {
			return err
		}
	}
	bloomSet(w.block[:], e.key)
	return nil
}

// flushBlocksTo writes the filter block being filled and empty blocks up to block b.
func (w *runWriter) flushBlocksTo(b int64) error {
	for ; w.blockIndex < b; w.blockIndex++ {
		if _, err := w.filter.Write(w.block[:]); err != nil {
			return err
		}
		clear(w.block[:])
	}
	return nil
}

// finish completes the file and makes it durable: it is then safe to list it in the
// runs table, and a crash before that commit leaves an orphan that the next import
// deletes. It returns the file opened for reading.
func (w *runWriter) finish(dir string) (*runFile, error) {
	if w.added != w.layout.entries {
		w.abort(dir)
		return nil, fmt.Errorf("hashindex: run %s: %d entries written, %d announced", w.name, w.added, w.layout.entries)
	}
	err := w.flushBlocksTo(w.layout.bloomBlocks)
	fences := make([]byte, 0, 8*len(w.fences))
	for _, k := range w.fences {
		fences = binary.BigEndian.AppendUint64(fences, k)
	}
	header := w.a.appendHeader(nil, w.layout)
	for _, step := range []func() error{
		func() error { return err },
		w.data.Flush,
		w.filter.Flush,
		func() error { _, err := w.f.WriteAt(fences, w.layout.fenceOffset()); return err },
		func() error { _, err := w.f.WriteAt(header, 0); return err },
		w.f.Sync,
	} {
		if err := step(); err != nil {
			w.abort(dir)
			return nil, err
		}
	}
	r := &runFile{name: w.name, a: w.a, layout: w.layout, f: w.f, fences: w.fences}
	if r.filter, r.unmap, err = mapFilter(w.f, w.layout); err != nil {
		w.abort(dir)
		return nil, err
	}
	return r, nil
}

// abort closes and deletes the unfinished file.
func (w *runWriter) abort(dir string) {
	w.f.Close()
	os.Remove(filepath.Join(dir, w.name))
}

func (a *algorithm) appendHeader(b []byte, l runLayout) []byte {
	b = append(b, runMagic...)
	b = append(b, byte(a.bit))
	for _, n := range []int64{l.entries, l.chunks, l.bloomBlocks} {
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return b
}

// runFile is an open run file.
type runFile struct {
	id     int64 // in the runs table
	name   string
	a      *algorithm
	layout runLayout
	f      *os.File
	fences []uint64
	filter bloomFilter
	unmap  func() error
	sets   int // run sets holding the file (guarded by Index.mu); closed at 0
}

// readRun reads the run file f, opened, of a runs row (its fences, and maps its filter),
// and checks it is the complete file the row describes. It closes f on error.
func readRun(f *os.File, id int64, name string, a *algorithm, entries int64) (*runFile, error) {
	r := &runFile{id: id, name: name, a: a, layout: layoutFor(entries), f: f}
	want := a.appendHeader(nil, r.layout)
	header := make([]byte, len(want))
	fences := make([]byte, r.layout.chunks*8)
	fi, err := f.Stat()
	if err == nil && fi.Size() != r.layout.size() {
		err = fmt.Errorf("%w: run file %s has %d bytes, want %d", errDamaged, name, fi.Size(), r.layout.size())
	}
	if err == nil {
		_, err = f.ReadAt(header, 0)
	}
	if err == nil && string(header) != string(want) {
		err = fmt.Errorf("%w: run file %s has a bad header", errDamaged, name)
	}
	if err == nil {
		_, err = f.ReadAt(fences, r.layout.fenceOffset())
	}
	if err == nil {
		r.filter, r.unmap, err = mapFilter(f, r.layout)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	r.fences = make([]uint64, r.layout.chunks)
	for i := range r.fences {
		r.fences[i] = binary.BigEndian.Uint64(fences[i*8:])
	}
	return r, nil
}

func (r *runFile) close() error {
	return errors.Join(r.unmap(), r.f.Close())
}

// prober finds keys in one run, reading each chunk once for keys asked in order.
type prober struct {
	r      *runFile
	loaded int64 // chunk in page, or -1
	page   [pageSize]byte
}

func newProber(r *runFile) *prober { return &prober{r: r, loaded: -1} }

// reset points p at another run, keeping its page buffer.
func (p *prober) reset(r *runFile) { p.r, p.loaded = r, -1 }

// find appends the refs filed under key.
func (p *prober) find(key uint64, refs []wordRef) ([]wordRef, error) {
	r := p.r
	if !r.filter.mayContain(key) || key < r.fences[0] {
		return refs, nil
	}
	// The last chunk starting below key: an earlier chunk can end with entries of key only
	// when key's entries fill a chunk boundary, so it also starts below key.
	c := int64(max(sort.Search(len(r.fences), func(i int) bool { return r.fences[i] >= key })-1, 0))
	for ; c < r.layout.chunks; c++ {
		if p.loaded != c {
			if _, err := r.f.ReadAt(p.page[:], pageSize+c*pageSize); err != nil {
				return refs, fmt.Errorf("hashindex: run %s: %w", r.name, err)
			}
			p.loaded = c
		}
		n := r.layout.entriesIn(c)
		i := sort.Search(n, func(i int) bool { return entryKey(p.page[:], i) >= key })
		for ; i < n && entryKey(p.page[:], i) == key; i++ {
			refs = append(refs, entryAt(p.page[:], i).ref)
		}
		if i < n || c+1 == r.layout.chunks || r.fences[c+1] != key {
			break
		}
	}
	return refs, nil
}

// runReader reads a run's entries in order, for a merge.
type runReader struct {
	r      *runFile
	in     *bufio.Reader
	chunk  int64
	page   [pageSize]byte
	pos, n int
}

func newRunReader(r *runFile) *runReader {
	size := r.layout.chunks * pageSize
	return &runReader{r: r, in: bufio.NewReaderSize(io.NewSectionReader(r.f, pageSize, size), int(min(256<<10, size)))}
}

// next returns the next entry; ok is false at the end of the run.
func (rr *runReader) next() (e entry, ok bool, err error) {
	if rr.pos == rr.n {
		if rr.chunk == rr.r.layout.chunks {
			return entry{}, false, nil
		}
		if _, err := io.ReadFull(rr.in, rr.page[:]); err != nil {
			return entry{}, false, fmt.Errorf("hashindex: run %s: %w", rr.r.name, err)
		}
		rr.pos, rr.n = 0, rr.r.layout.entriesIn(rr.chunk)
		rr.chunk++
	}
	e = entryAt(rr.page[:], rr.pos)
	rr.pos++
	return e, true, nil
}

// writeRun writes entries (sorted by key) as a new run file.
func writeRun(dir string, a *algorithm, entries []entry) (*runFile, error) {
	w, err := createRun(dir, a, int64(len(entries)))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := w.add(e); err != nil {
			w.abort(dir)
			return nil, err
		}
	}
	return w.finish(dir)
}
