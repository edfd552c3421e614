package breach

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// Hit is the answer for one digest of a batch: whether the source holds it
// and how often it was seen (0 when the source has no counts, as Count).
type Hit struct {
	Count int64
	Found bool
}

// Progress, when not nil, is told after each part of a batch how many of
// its digests have been looked up (repeats included) out of total. Calls
// come from the batch's goroutines, one at a time.
type Progress func(done, total int)

const (
	// batchWorkers is how many parts of a batch are searched at once: a
	// disk serves reads in parallel (a virtual disk measured 20,000 random
	// 8 KiB reads a second one at a time, 40,000 at 16), and a part waits
	// on its reads.
	batchWorkers = 16
	// partsPerWorker is how many parts a batch is cut into per worker, so
	// that the workers finish together and progress is told often.
	partsPerWorker = 8
	// minPartBytes is the least of the file a part covers: each part
	// starts with a search, and may read up to a buffer past its last
	// digest, which on a small file would add up to more than the file.
	minPartBytes = 16 * bufSize
	// seqGap decides how a part reads: when its digests lie on average
	// less than seqGap bytes apart in the file, it reads the file on from
	// one to the next, in reads twice as long each time up to its buffer,
	// each taking many digests' lines; further apart, it searches for each
	// digest past its buffer from where it is, and reads a few pages around
	// where it expects it. On the disk above, a read costs about 32 µs and
	// 1.2 µs a KB more at 16 at once: reading on costs 1.2 µs a KB between
	// digests, a search about 32 µs and the 8 KB it reads, so reading on is
	// cheaper below about 34 KB between digests. A batch with a digest
	// every few KB of the file thus reads it front to back, a sparse one
	// about one short read a digest.
	seqGap = 32 << 10
	// farGap is the gap over which a part that reads on searches instead:
	// digests of a batch can crowd in a few places of the file.
	farGap = 4 * bufSize
	// bisectSpan is the stretch of buffered lines a part reads line by
	// line once bisecting the buffer has narrowed it that far.
	bisectSpan = 2 * maxLineLen
)

// CountMany looks up every digest and returns the answers in the order of
// digests, as Count would give them one by one. The distinct digests are
// looked up in sorted order, in parts searched in parallel, so that
// neighbouring digests share reads: each part searches for its first
// digest, then, if its digests are close in the file, reads on from one to
// the next, else searches for each next one inside the rest of the file
// (see seqGap). A batch dense in the file reads it front to back once; a
// sparse one costs about a read a digest. Lines between two digests that
// a part jumps over are not read, as a single lookup does not read them.
//
// Where the file is mapped (see reader), a dense part reads it in place
// when its pages are in memory, and reads them otherwise; a batch whose
// sampled pages are all in memory runs one worker a core, since none
// waits on the disk.
//
// Memory is about 60 bytes a digest and one 128 KiB buffer a part at
// once, whatever the file's size, plus up to a few 2 MiB folios of the
// mapping a worker (see reader.release). A file that shrank since it was
// opened fails the batch with ErrChanged. A digest of the wrong length fails the
// whole batch with ErrDigestLength, before any read. The batch does not
// start the background sampling (it needs no sample table), but uses the
// table when a lookup has built it. A small unsorted file (see OpenFile)
// is read once, whole.
func (f *File) CountMany(ctx context.Context, digests [][]byte, progress Progress) ([]Hit, error) {
	b, err := newBatch(digests, f.kind)
	if err != nil {
		return nil, err
	}
	if f.unsorted {
		err = f.scanBatch(ctx, b)
	} else {
		f.mapMu.RLock()
		defer f.mapMu.RUnlock()
		err = f.searchBatch(ctx, b, progress)
	}
	if err != nil {
		return nil, err
	}
	if progress != nil && f.unsorted {
		progress(len(digests), len(digests))
	}
	return b.hits, nil
}

// batch is a CountMany call: the digests, sorted, and the answers.
type batch struct {
	// order holds the indices of the digests sorted by digest; the repeats
	// of a digest are neighbours.
	order []int
	// starts[g] is where the g-th distinct digest begins in order;
	// starts[len(starts)-1] is len(order).
	starts []int
	// sorted holds the distinct digests in order, one after the other: a
	// batch reads them in that order, and reading the caller's digests
	// where they lie would miss the CPU's cache each time.
	sorted []byte
	size   int // of a digest
	hits   []Hit
}

func newBatch(digests [][]byte, kind Kind) (*batch, error) {
	// Sorted by their first 8 bytes, then whole: comparing a uint64 key is
	// several times faster than bytes.Compare through the index.
	type keyed struct {
		key uint64
		i   int
	}
	keys := make([]keyed, len(digests))
	for i, d := range digests {
		if len(d) != kind.DigestLen() {
			return nil, ErrDigestLength
		}
		keys[i] = keyed{binary.BigEndian.Uint64(d), i}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Or(bytes.Compare(digests[a.i], digests[b.i]), cmp.Compare(a.i, b.i))
	})
	b := &batch{order: make([]int, len(digests)), size: kind.DigestLen(), hits: make([]Hit, len(digests)),
		sorted: make([]byte, 0, len(digests)*kind.DigestLen())}
	for j, k := range keys {
		b.order[j] = k.i
		if d := digests[k.i]; j == 0 || !bytes.Equal(d, b.sorted[len(b.sorted)-b.size:]) {
			b.starts = append(b.starts, j)
			b.sorted = append(b.sorted, d...)
		}
	}
	b.starts = append(b.starts, len(digests))
	return b, nil
}

// distinct is the number of distinct digests.
func (b *batch) distinct() int { return len(b.starts) - 1 }

// digest is the g-th distinct digest in sorted order.
func (b *batch) digest(g int) []byte { return b.sorted[g*b.size : (g+1)*b.size] }

// set answers every repeat of the g-th distinct digest.
func (b *batch) set(g int, h Hit) {
	for _, i := range b.order[b.starts[g]:b.starts[g+1]] {
		b.hits[i] = h
	}
}

// searchBatch answers a batch on a sorted file: the distinct digests are
// cut into parts of neighbours, which batchWorkers goroutines search.
func (f *File) searchBatch(ctx context.Context, b *batch, progress Progress) error {
	distinct := b.distinct()
	if distinct == 0 {
		return nil
	}
	parts := int(min(int64(batchWorkers*partsPerWorker), max(1, f.size/minPartBytes)))
	partLen := (distinct + parts - 1) / parts
	parts = (distinct + partLen - 1) / partLen
	workers := batchWorkers
	if f.warm(b) {
		// Nothing to wait for: one worker a core. More would each keep
		// the folio they read in mapped, for nothing (see reader.release).
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		mu       sync.Mutex // guards firstErr, done and the progress calls
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	for range min(workers, parts) {
		wg.Go(func() {
			bp := bufPool.Get().(*[]byte)
			defer bufPool.Put(bp)
			r := &reader{f: f, buf: *bp} // searchPart chooses whether to read the mapping
			for {
				p := int(next.Add(1) - 1)
				if p >= parts {
					return
				}
				from, to := p*partLen, min((p+1)*partLen, distinct)
				err := f.readsMapped(func() error {
					defer r.done()
					return f.searchPart(ctx, b, from, to, r)
				})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				done += b.starts[to] - b.starts[from]
				if err == nil && progress != nil {
					progress(done, len(b.order))
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// warmProbes is how many places of the file warm looks at.
const warmProbes = 64

// warm reports whether the batch will likely find the file's pages in
// memory, read through the mapping: the pages where up to warmProbes of
// its digests, spread over it, are expected are all in the page cache.
func (f *File) warm(b *batch) bool {
	if f.mapped == nil {
		return false
	}
	var pages [1]byte
	distinct := b.distinct()
	for k := range min(warmProbes, distinct) {
		key := binary.BigEndian.Uint64(b.digest(k * distinct / min(warmProbes, distinct)))
		at := int64(float64(key)/0x1p64*float64(f.size)) &^ (pageSize - 1)
		if !resident(f.mapped[at:min(at+pageSize, f.size)], pages[:]) {
			return false
		}
	}
	return true
}

// searchPart answers the distinct digests [from, to) of b, in order.
func (f *File) searchPart(ctx context.Context, b *batch, from, to int, r *reader) error {
	c := cursor{f: f, r: r}
	if to-from > 1 {
		// From where the part's first digest is expected in the file to
		// where its last one is (a digest's first 8 bytes are its key).
		first, last := binary.BigEndian.Uint64(b.digest(from)), binary.BigEndian.Uint64(b.digest(to-1))
		span := float64(last-first) / 0x1p64 * float64(f.size)
		c.dense = span/float64(to-from-1) < seqGap
	}
	// A dense part reads through the mapping (see reader); a sparse one
	// reads a few pages a digest, where asking the kernel whether they
	// are in memory and mapping them cost about what reading them does.
	r.mapped = nil
	if c.dense {
		r.mapped = f.mapped
	}
	for g := from; g < to; g++ {
		if (g-from)%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		h, err := c.count(b.digest(g))
		if err != nil {
			return err
		}
		b.set(g, h)
	}
	return nil
}

// cursor looks up increasing digests in a sorted file, each from where the
// last one was found.
type cursor struct {
	f       *File
	r       *reader
	s       lineScanner
	started bool
	// dense is set for a part whose digests are close enough to read the
	// file on from one to the next (seqGap); readOn is then the length of
	// the next read.
	dense  bool
	readOn int
	// prevKey is the key of the last digest looked up: every line from
	// s.off on is above that digest, so its key is at least prevKey.
	prevKey uint64
	// pending is the line above the last digest, read but not yet
	// compared with the next: its hash and count.
	pending      [40]byte
	pendingLen   int
	pendingCount int64
}

// count looks up digest, which must be above every digest looked up before.
func (c *cursor) count(digest []byte) (Hit, error) {
	var targetBuf [40]byte
	target := appendUpperHex(targetBuf[:0], digest)
	key := hashKey(target)
	if c.pendingLen > 0 {
		switch order := compareHex(c.pending[:c.pendingLen], target); {
		case order == 0:
			c.pendingLen = 0
			return Hit{Count: c.pendingCount, Found: true}, nil
		case order > 0:
			c.prevKey = key
			return Hit{}, nil
		}
		c.pendingLen = 0
	}
	if err := c.place(target, key); err != nil {
		return Hit{}, err
	}
	c.prevKey = key
	for {
		if err := c.s.skipBelow(target); err != nil {
			return Hit{}, err
		}
		_, hash, n, err := c.s.nextEntry()
		if err == io.EOF {
			return Hit{}, nil
		}
		if err != nil {
			return Hit{}, err
		}
		c.s.minKey = float64(hashKey(hash)) // the lines after it are above it
		switch order := compareHex(hash, target); {
		case order == 0:
			return Hit{Count: n, Found: true}, nil
		case order > 0:
			c.pendingLen, c.pendingCount = copy(c.pending[:], hash), n
			return Hit{}, nil
		}
	}
}

// place readies the scanner for target, whose key is key: the first
// digest of a part is searched for in the whole file (or between the
// samples around it); a next one that is expected in what the part has
// read, or, for a dense part, less than farGap past it, is read on to;
// any other is searched for in the rest of the file, from where the
// scanner is.
func (c *cursor) place(target []byte, key uint64) error {
	w := c.f.searchWindow(key)
	if c.started {
		if c.s.off > w.lo {
			w.lo, w.loKey = c.s.off, float64(c.prevKey)
		}
		if w.hiKey <= w.loKey {
			return nil // nothing to interpolate with: read on
		}
		from, to := c.f.guess(w, float64(key), maxLineLen)
		gap := from - (c.s.off + int64(len(c.s.data)))
		if to > 0 && (gap <= 0 || c.dense && gap <= farGap) {
			c.s.wantEnd = max(to, c.s.off+int64(c.readOn))
			if c.dense {
				c.readOn = min(2*c.readOn, c.r.maxRead())
			}
			return nil
		}
	}
	s, err := c.f.seekIn(w, target, c.r, maxLineLen)
	if err != nil {
		return err
	}
	c.s, c.started, c.readOn = s, true, pageSize
	return nil
}

// skipBelow moves the scanner past buffered lines below target, so that
// next reads at most about bisectSpan bytes of lines below target before
// the first line at or above it (or the end of the buffer). Its probes are
// lines it parses in the buffer: as hashes are spread evenly over the
// file, the first interpolationProbes of them go where target is expected
// between the lines known on either side (past the last one, at the
// file's average density), then the search bisects. A probe mostly costs
// a fetch from memory, and a batch's next digest is mostly a few KB on:
// guessing takes a few probes where galloping took a dozen. The lines it
// jumps over are not parsed.
func (s *lineScanner) skipBelow(target []byte) error {
	data := s.data
	end := bytes.LastIndexByte(data, '\n') + 1 // the complete lines
	if s.off+int64(len(data)) == s.f.size {
		end = len(data) // the last line of the file needs no end
	}
	// Lines starting before lo are below target, at or above loKey; the
	// line at hi is not below it, and has the key hiKey (+Inf: hi is end).
	lo, hi := 0, end
	loKey, hiKey := s.minKey, math.Inf(1)
	t := float64(hashKey(target))
	perKey := float64(s.f.size) / 0x1p64 // the file's bytes per unit of key
	for probes := 0; hi-lo > bisectSpan; probes++ {
		at := lo + (hi-lo)/2
		if probes < interpolationProbes && t >= loKey {
			guess := (t - loKey) * perKey
			if !math.IsInf(hiKey, 1) && hiKey > loKey {
				guess = (t - loKey) / (hiKey - loKey) * float64(hi-lo)
			}
			// The probe is the line after at: aim a line early. A
			// probe must leave a line start before hi.
			at = lo + int(min(max(guess-maxLineLen, 0), float64(hi-lo-bisectSpan)))
		}
		start, lineEnd, key, below, err := s.probeLine(data[:end], at, target)
		if err != nil || start < 0 || start >= hi {
			return err
		}
		if below {
			lo, loKey = lineEnd, key
		} else {
			hi, hiKey = start, key
		}
	}
	s.data, s.off, s.minKey = data[lo:], s.off+int64(lo), loKey
	return nil
}

// probeLine parses the first line of data starting after at, and reports
// where it starts, where the next one starts (or len(data)), its key and
// whether its hash is below target. start is -1 when no line starts after
// at.
func (s *lineScanner) probeLine(data []byte, at int, target []byte) (start, next int, key float64, below bool, err error) {
	nl := bytes.IndexByte(data[at:], '\n')
	if nl < 0 || at+nl+1 >= len(data) {
		return -1, 0, 0, false, nil
	}
	start, next = at+nl+1, len(data)
	lineEnd := len(data)
	if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
		lineEnd, next = start+i, start+i+1
	}
	hash, _, err := s.f.parseLine(bytes.TrimSuffix(data[start:lineEnd], []byte{'\r'}))
	if err != nil {
		return 0, 0, 0, false, err
	}
	return start, next, float64(hashKey(hash)), compareHex(hash, target) < 0, nil
}

// scanBatch answers a batch on a small unsorted file by reading it once:
// each line is looked up among the sorted digests; the first line of a
// digest answers, as Count's scan does.
func (f *File) scanBatch(ctx context.Context, b *batch) error {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	s := f.scanFrom(0, &reader{f: f, buf: *bp})
	answered := make([]bool, b.distinct())
	digest := make([]byte, f.kind.DigestLen())
	for lines := 0; ; lines++ {
		if lines%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		_, hash, n, err := s.nextEntry()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for i := range digest {
			digest[i] = hexValue[hash[2*i]]<<4 | hexValue[hash[2*i+1]]
		}
		g, found := sort.Find(b.distinct(), func(g int) int { return bytes.Compare(digest, b.digest(g)) })
		if found && !answered[g] {
			answered[g] = true
			b.set(g, Hit{Count: n, Found: true})
		}
	}
}

// BadDigestError reports the entry of a list of hex digests that is not
// one: its place in the list and what was wrong (ErrBadSHA1 or ErrBadNTLM).
type BadDigestError struct {
	Index int
	Err   error
}

func (e *BadDigestError) Error() string { return fmt.Sprintf("entry %d: %v", e.Index, e.Err) }
func (e *BadDigestError) Unwrap() error { return e.Err }

// ParseDigests decodes hex digests of the kind (either case), as the
// sha1 and ntlm fields of ParseQuery, for CountMany. The first entry that
// is not one fails the list with a *BadDigestError.
func ParseDigests(hexes []string, kind Kind) ([][]byte, error) {
	bad := ErrBadSHA1
	if kind == KindNTLM {
		bad = ErrBadNTLM
	}
	// One backing array for all: two allocations for the list.
	all := make([]byte, len(hexes)*kind.DigestLen())
	digests := make([][]byte, len(hexes))
	for i, h := range hexes {
		d := all[i*kind.DigestLen() : (i+1)*kind.DigestLen() : (i+1)*kind.DigestLen()]
		if len(h) != kind.hexLen() {
			return nil, &BadDigestError{Index: i, Err: bad}
		}
		for j := range d {
			hi, lo := h[2*j], h[2*j+1]
			if !isHex(hi) || !isHex(lo) {
				return nil, &BadDigestError{Index: i, Err: bad}
			}
			d[j] = hexValue[hi]<<4 | hexValue[lo]
		}
		digests[i] = d
	}
	return digests, nil
}
