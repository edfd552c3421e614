package breach

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// pageSize is the search's probe: one page, the unit in which the
	// kernel reads the file from disk.
	pageSize = 4096
	// bufSize is the pooled buffer, the largest single read: a whole range
	// answer of the real corpus (about 43 KB) with the likely error of the
	// guess of where it starts, and room to spare.
	bufSize = 128 << 10
	// scanWindow is where the search stops: the final read takes the
	// window along with the answer.
	scanWindow = 2 * pageSize
	// interpolationProbes is how many probes the search places by
	// interpolation before it falls back to bisection: a uniformly spread
	// file is done by then, a skewed one then costs a binary search more.
	interpolationProbes = 4
	// sortCheckLimit is the largest file checked for order when opened (a
	// hand-made list); an unsorted one is read whole on every lookup.
	sortCheckLimit = 4 << 20
	// maxLineLen bounds one line: 40 hex digits, ':', a count of up to 18
	// digits and CRLF fit with room to spare. Longer lines are malformed.
	maxLineLen = 80
	// maxCountDigits keeps counts inside int64.
	maxCountDigits = 18
)

var (
	// ErrMalformed reports a line that is not HASH:COUNT; the file is corrupt or of the wrong kind.
	ErrMalformed = errors.New("breach: malformed line in Pwned Passwords file")
	// ErrUnsorted reports lines out of hash order in a file too large to be
	// checked when opened: the file is corrupt.
	ErrUnsorted = fmt.Errorf("%w: lines out of hash order", ErrMalformed)
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// File is an opened Pwned Passwords download, searched in place. It is safe
// for concurrent use: every lookup reads with ReadAt into its own pooled buffer.
type File struct {
	f        *os.File
	r        io.ReaderAt // f, or a wrapper in tests
	size     int64
	modTime  time.Time
	kind     Kind
	unsorted bool // a small file out of hash order, scanned whole

	// mapped is the sorted file mapped into memory for batches (see
	// reader), or nil. Batches hold mapMu for reading; Close unmaps it
	// once they are done.
	mapped []byte
	mapMu  sync.RWMutex

	// samples, once the background sampling is done, holds the hash of a
	// line every sampleSpacing bytes or so: the search starts between
	// the two around its target instead of the ends of the file.
	samples     atomic.Pointer[[]sample]
	sampled     chan struct{} // closed when sampling ends, with a table or not
	startSample sync.Once
}

// OpenFile opens a Pwned Passwords file of the given kind and checks that
// its first line has that kind's HASH:COUNT shape. It reads no more than
// that of a large file, so it takes the same time whatever the size; a
// file of up to 4 MiB is read whole and, when its lines are out of order,
// is served by reading it whole on every lookup.
func OpenFile(path string, kind Kind) (*File, error) {
	if kind != KindSHA1 && kind != KindNTLM {
		return nil, fmt.Errorf("breach: unknown hash kind %d", int(kind))
	}
	osf, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("breach: %w", err)
	}
	st, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("breach: %w", err)
	}
	f := &File{f: osf, r: osf, size: st.Size(), modTime: st.ModTime(), kind: kind}
	s := f.scanFrom(0, &reader{f: f, buf: make([]byte, pageSize)})
	_, _, _, err = s.nextEntry()
	if err != nil && err != io.EOF && !errors.Is(err, ErrMalformed) {
		osf.Close()
		return nil, err // an I/O error, e.g. the path is a directory
	}
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("breach: %s is not a Pwned Passwords %s file: each line must be %d hex digits, ':' and a count (e.g. %s:42), sorted by hash",
			path, kind, kind.hexLen(), upperHex(make([]byte, kind.DigestLen())))
	}
	if f.size <= sortCheckLimit {
		if f.unsorted, err = f.outOfOrder(); err != nil {
			osf.Close()
			return nil, err
		}
	}
	readRandomly(osf)
	if !f.unsorted {
		f.mapped = mapFile(osf, f.size)
	}
	f.sampled = make(chan struct{})
	return f, nil
}

// outOfOrder reports whether two lines of the file are out of hash order.
// A malformed line ends the check: lookups that meet it report it.
func (f *File) outOfOrder() (bool, error) {
	var prevBuf [40]byte
	var prev []byte
	s := f.scanFrom(0, &reader{f: f, buf: make([]byte, bufSize)})
	for {
		_, hash, _, err := s.nextEntry()
		if err == io.EOF || errors.Is(err, ErrMalformed) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if prev != nil && compareHex(hash, prev) < 0 {
			return true, nil
		}
		prev = prevBuf[:copy(prevBuf[:], hash)]
		upperInPlace(prev) // compareHex wants its second hash upper-case
	}
}

// Kind is the hash the file is keyed by.
func (f *File) Kind() Kind { return f.kind }

// Size and ModTime describe the version of the file that was opened: an
// open file keeps being read even after a new download is renamed over it.
func (f *File) Size() int64        { return f.size }
func (f *File) ModTime() time.Time { return f.modTime }

// Sampled starts the background sampling (see sample) if no lookup has
// yet, and returns a channel closed when it has ended; lookups are faster
// from then on.
func (f *File) Sampled() <-chan struct{} {
	f.startSampling()
	return f.sampled
}

// startSampling starts the sampling once, at the first lookup rather than
// at open: its 65,536 reads would otherwise queue beside the rest of a
// server's start-up.
func (f *File) startSampling() { f.startSample.Do(func() { go f.sample() }) }

// Close closes the underlying file. A sampling under way stops at its next
// read of the closed file; Close waits for it, so a closed File leaves no
// goroutine behind. It waits for the batches under way to unmap the file.
func (f *File) Close() error {
	err := f.f.Close()
	f.startSample.Do(func() { close(f.sampled) }) // never started: none to wait for
	<-f.sampled
	f.mapMu.Lock()
	defer f.mapMu.Unlock()
	if f.mapped != nil {
		err = cmp.Or(err, unmapFile(f.mapped))
		f.mapped = nil
	}
	return err
}

// Count looks the digest up; count is the number of times it was seen in breaches.
func (f *File) Count(digest []byte) (count int64, found bool, err error) {
	if len(digest) != f.kind.DigestLen() {
		return 0, false, ErrDigestLength
	}
	var targetBuf [40]byte
	target := appendUpperHex(targetBuf[:0], digest)

	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	s, err := f.seek(target, &reader{f: f, buf: *bp}, maxLineLen)
	if err != nil {
		return 0, false, err
	}
	for {
		_, hash, n, err := s.nextEntry()
		if err == io.EOF {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		switch c := compareHex(hash, target); {
		case c == 0:
			return n, true, nil
		case c > 0 && !f.unsorted:
			return 0, false, nil
		}
	}
}

// Range returns every entry whose hash starts with the 5-hex prefix
// (case-insensitive), in hash order, with the remaining digits upper-cased.
// More than MaxRangeEntries matches yield ErrRangeTooLarge.
func (f *File) Range(prefix string) ([]RangeEntry, error) {
	entries := []RangeEntry{}
	suffixLen := f.kind.hexLen() - PrefixLen
	err := f.eachInRange(prefix, func(entry []byte, count int64) {
		entries = append(entries, RangeEntry{Suffix: string(entry[:suffixLen]), Count: count})
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// eachInRange calls fn with the entry and the count of every line whose
// hash starts with the 5-hex prefix, in hash order: the entry is the line
// after the prefix, without its end, "SUFFIX:COUNT" with the suffix
// upper-cased and the count's digits as the file has them, so that a range
// answer copies it instead of formatting it again. entry is valid only
// during the call. More than MaxRangeEntries matches stop the scan with
// ErrRangeTooLarge.
func (f *File) eachInRange(prefix string, fn func(entry []byte, count int64)) error {
	p, err := normalizePrefix(prefix)
	if err != nil {
		return err
	}
	if f.unsorted {
		return f.eachInRangeUnsorted(p, fn)
	}
	var targetBuf [PrefixLen]byte
	target := targetBuf[:copy(targetBuf[:], p)]
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	// A range of a uniformly spread file holds about 1/2^20 of it; with
	// the margin the search adds for its own error, a thirty-second more
	// and two lines cover the range's usual spread, so that one read mostly
	// takes the whole answer and the line after it.
	perPrefix := int(f.size >> (4 * PrefixLen))
	s, err := f.seek(target, &reader{f: f, buf: *bp}, perPrefix+perPrefix/32+2*maxLineLen)
	if err != nil {
		return err
	}
	matched := 0
	for {
		line, hash, n, err := s.nextEntry()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch c := compareHex(hash, target); {
		case c > 0:
			return nil
		case c == 0:
			if matched == MaxRangeEntries {
				return ErrRangeTooLarge
			}
			matched++
			upperInPlace(hash) // the line is in the search's own buffer
			fn(line[PrefixLen:], n)
		}
	}
}

// eachInRangeUnsorted is eachInRange on a small unsorted file: it reads the
// whole file and sorts the matches.
func (f *File) eachInRangeUnsorted(prefix string, fn func(entry []byte, count int64)) error {
	type match struct {
		entry string
		count int64
	}
	var matches []match
	target := []byte(prefix)
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	s := f.scanFrom(0, &reader{f: f, buf: *bp})
	for {
		line, hash, n, err := s.nextEntry()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if compareHex(hash, target) == 0 {
			if len(matches) == MaxRangeEntries {
				return ErrRangeTooLarge
			}
			upperInPlace(hash)
			matches = append(matches, match{string(line[PrefixLen:]), n})
		}
	}
	// The suffixes have one length and end at the ':': entries sort as their suffixes.
	slices.SortFunc(matches, func(a, b match) int { return strings.Compare(a.entry, b.entry) })
	for _, m := range matches {
		fn([]byte(m.entry), m.count)
	}
	return nil
}

// window is the search's candidate span of the file: every line starting
// before lo is below the target; the first line starting at or after hi is
// not, or there is none. loKey and hiKey are the positions in the hash
// space (see hashKey) of the line that ends or starts at lo, below the
// target, and of the line starting at hi, 0 and 2^64 at the ends of the
// file: the interpolation draws a line between (lo, loKey) and (hi, hiKey).
type window struct {
	lo, hi       int64
	loKey, hiKey float64
}

// seek finds where the lines >= target (compared on len(target) digits)
// begin and returns a scanner from a line start at most scanWindow before
// it, whose first read reaches answerLen bytes past it. Hashes are uniformly
// spread, so the place of a hash in the file is about its place in the
// hash space: each probe reads where the line between the window's ends
// puts the target (a page, or the answer with the guess's likely error:
// see guess), and the window closes around it. The window starts between
// two samples (see sample), or at the ends of the file until they are
// read; on a uniformly spread file of any size, one read mostly both finds
// and takes the answer once the samples are read. On a skewed file the
// guesses miss, and after interpolationProbes of them the search bisects.
// A small unsorted file is scanned from its start.
func (f *File) seek(target []byte, r *reader, answerLen int) (lineScanner, error) {
	if f.unsorted {
		return f.scanFrom(0, r), nil
	}
	f.startSampling()
	return f.seekIn(f.searchWindow(hashKey(target)), target, r, answerLen)
}

// searchWindow is where a search for key starts: the whole file, or the
// span between the two samples around key once the sample table is built.
func (f *File) searchWindow(key uint64) window {
	w := window{lo: 0, hi: f.size, loKey: 0, hiKey: 0x1p64}
	if samples := f.samples.Load(); samples != nil {
		w = between(*samples, key, w)
	}
	return w
}

// seekIn is seek inside the window w of a sorted file, which must hold the
// first line >= target.
func (f *File) seekIn(w window, target []byte, r *reader, answerLen int) (lineScanner, error) {
	t := float64(hashKey(target))
	var page []byte // the last probe's bytes, from file offset at
	var at int64
	for probes := 0; w.hi-w.lo > scanWindow; probes++ {
		from, to := w.lo+(w.hi-w.lo)/2, int64(0) // bisection: one page
		if probes < interpolationProbes && w.hiKey > w.loKey {
			from, to = f.guess(w, t, answerLen)
		}
		// Whole pages, starting inside the window so that a line starts
		// in them before hi.
		at = min(max(from&^(pageSize-1), w.lo), w.hi-pageSize)
		end := min(max((to+pageSize-1)&^(pageSize-1), at+pageSize), at+int64(r.maxRead()), f.size)
		var err error
		if page, err = r.bytesAt(at, end); err != nil {
			return lineScanner{}, err
		}
		found, err := f.narrow(&w, target, at, page)
		if err != nil {
			return lineScanner{}, err
		}
		if found {
			break
		}
	}
	s := f.scanFrom(w.lo, r)
	s.wantEnd, s.minKey = w.hi+int64(answerLen), w.loKey
	if at <= w.lo && w.lo < at+int64(len(page)) {
		s.data = page[w.lo-at:] // the answer starts in the page read last
	}
	return s, nil
}

// avgLineLen is about the average length of a line of a real Pwned
// Passwords file of the kind: digits, ':', a count of one or two digits, CRLF.
func (k Kind) avgLineLen() float64 { return float64(k.hexLen() + 5) }

// probeSpread is how many standard deviations of the guess's error a wide
// probe reads on either side of it.
const probeSpread = 1.5

// guess places a probe for the key t in the window w by interpolation and
// returns the span to read, [from, to): the page of the guess, or, when
// the guess is close enough that its likely error and the answer after it
// fit in one read, probeSpread standard deviations either side of the
// guess and answerLen more, so that one read takes the whole answer. (If n
// hashes lie uniformly in the window, the number below the target has a
// standard deviation of sqrt(n·p·(1-p)) for p the target's fraction of
// the window's keys.)
func (f *File) guess(w window, t float64, answerLen int) (from, to int64) {
	p := min(max((t-w.loKey)/(w.hiKey-w.loKey), 0), 1)
	width := float64(w.hi - w.lo)
	at := w.lo + int64(p*width)
	lineLen := f.kind.avgLineLen()
	sigma := lineLen * math.Sqrt(max(width/lineLen*p*(1-p), 1))
	margin := int64(probeSpread * sigma)
	if 2*margin+int64(answerLen) > bufSize-2*pageSize {
		return at, 0
	}
	return at - margin, at + margin + int64(answerLen)
}

// sample is a line of the file: where it starts and its hash's key.
type sample struct {
	off int64
	key uint64
}

const (
	// maxSamples bounds the sample table: 1 MiB, whatever the file's size.
	maxSamples = 1 << 16
	// sampleSpacing is the distance between samples of a file too small
	// to need maxSamples.
	sampleSpacing = 64 << 10
)

// sample reads the first line of a page every size/maxSamples bytes (or
// every sampleSpacing bytes, if more) and publishes the table, once whole,
// for seek. On a 44 GB file the samples are 700 KB apart, about 15,000
// lines, where the global guess is off by up to 15,000 lines: starting
// between two samples saves the search its first probe. It runs from the
// first lookup (65,536 page reads: seconds on a cold disk) and stops
// without a table at an error, or at lines out of order, which the search
// then finds itself. A small unsorted file is not sampled.
func (f *File) sample() {
	defer close(f.sampled)
	if f.unsorted {
		return
	}
	n := min(maxSamples, f.size/sampleSpacing)
	table := make([]sample, 0, n)
	page := make([]byte, pageSize)
	for i := range n {
		at := (f.size * i / n) &^ (pageSize - 1)
		m, err := f.f.ReadAt(page[:min(pageSize, f.size-at)], at)
		if err != nil && err != io.EOF {
			return // the file was closed, or cannot be read
		}
		start := 0
		if at > 0 {
			start = bytes.IndexByte(page[:m], '\n') + 1
		}
		end := bytes.IndexByte(page[start:m], '\n')
		if start == 0 && at > 0 || end < 0 {
			return
		}
		hash, _, err := f.parseLine(bytes.TrimSuffix(page[start:start+end], []byte{'\r'}))
		if err != nil {
			return
		}
		s := sample{off: at + int64(start), key: hashKey(hash)}
		if len(table) > 0 && s.key < table[len(table)-1].key {
			return
		}
		table = append(table, s)
	}
	f.samples.Store(&table)
}

// between narrows the whole-file window w to the samples around key: the
// last with a smaller key, the first with a greater one. (A sample whose
// key equals the target's says nothing of the digits after the 16th.)
func between(samples []sample, key uint64, w window) window {
	i, _ := slices.BinarySearchFunc(samples, key, func(s sample, key uint64) int { return cmp.Compare(s.key, key) })
	if i > 0 {
		w.lo, w.loKey = samples[i-1].off, float64(samples[i-1].key)
	}
	for i < len(samples) && samples[i].key == key {
		i++
	}
	if i < len(samples) {
		w.hi, w.hiKey = samples[i].off, float64(samples[i].key)
	}
	return w
}

// narrow closes the window w around the target with the lines of page, the
// file's bytes from offset at (a line start when at is w.lo): the lines
// starting in it that end in it, or at the end of the file. It reports
// whether it found the first line >= target, at w.lo = w.hi then.
func (f *File) narrow(w *window, target []byte, at int64, page []byte) (found bool, err error) {
	i := 0
	if at != w.lo {
		i = bytes.IndexByte(page, '\n') + 1 // past the line running into the page
		if i == 0 {
			i = len(page)
		}
	}
	atEOF := at+int64(len(page)) == f.size
	complete := false // a line of page has been read
	for i < len(page) {
		j := bytes.IndexByte(page[i:], '\n')
		if j < 0 && !atEOF {
			break // runs past the page
		}
		line := page[i:]
		if j >= 0 {
			line = page[i : i+j]
		}
		hash, _, err := f.parseLine(bytes.TrimSuffix(line, []byte{'\r'}))
		if err != nil {
			return false, err
		}
		complete = true
		key := float64(hashKey(hash))
		if key < w.loKey || key > w.hiKey {
			return false, ErrUnsorted
		}
		start := at + int64(i)
		if compareHex(hash, target) >= 0 {
			w.hi, w.hiKey = start, key
			return start == w.lo, nil
		}
		w.lo, w.loKey = min(start+int64(len(line))+1, f.size), key
		if j < 0 {
			break
		}
		i += j + 1
	}
	switch {
	case complete:
		return w.lo == w.hi, nil
	case atEOF:
		// No line starts after at: the first line at or after at+1 is none.
		w.hi, w.hiKey = at+1, 0x1p64
		return false, nil
	default:
		return false, ErrMalformed // a page without a line end
	}
}

// hashKey is the place of a hash in the hash space: its first 16 hex digits
// as a number, a shorter hash padded with zeros.
func hashKey(hash []byte) uint64 {
	var k uint64
	for i := range 16 {
		k <<= 4
		if i < len(hash) {
			k |= uint64(hexValue[hash[i]])
		}
	}
	return k
}

// parseLine splits "HASH:COUNT" (line end already removed) and validates both
// parts. It writes nothing: a batch parses the mapped file itself. The hash
// is as the file has it, in either case (see compareHex).
func (f *File) parseLine(line []byte) (hash []byte, count int64, err error) {
	h := f.kind.hexLen()
	if len(line) < h+2 || line[h] != ':' || len(line)-h-1 > maxCountDigits {
		return nil, 0, ErrMalformed
	}
	for _, c := range line[:h] {
		if !isHex(c) {
			return nil, 0, ErrMalformed
		}
	}
	for _, c := range line[h+1:] {
		if c < '0' || c > '9' {
			return nil, 0, ErrMalformed
		}
		count = count*10 + int64(c-'0')
	}
	return line[:h], count, nil
}

// lineScanner reads lines forward from an offset. Its first read reaches
// wantEnd, where the caller expects its lines to end; past it, it reads a
// page, then twice as much each time up to its buffer. Every read ends on
// a page boundary (or the end of the file), as the kernel reads the disk.
type lineScanner struct {
	f       *File
	r       *reader
	data    []byte // unread bytes, starting at file offset off
	off     int64
	wantEnd int64
	step    int
	// minKey is at most the key of any line from off on (see skipBelow).
	minKey float64
}

func (f *File) scanFrom(off int64, r *reader) lineScanner {
	return lineScanner{f: f, r: r, off: off, step: pageSize}
}

// nextEntry is next and parseLine: the next line, its hash and count, or
// io.EOF.
func (s *lineScanner) nextEntry() (line, hash []byte, count int64, err error) {
	if line, err = s.next(); err != nil {
		return nil, nil, 0, err
	}
	hash, count, err = s.f.parseLine(line)
	return line, hash, count, err
}

// next returns the next line without its LF or CRLF end, or io.EOF.
func (s *lineScanner) next() ([]byte, error) {
	i := bytes.IndexByte(s.data, '\n')
	if i < 0 && s.off+int64(len(s.data)) < s.f.size {
		end := s.wantEnd
		if end <= s.off {
			end = s.off + int64(s.step)
			s.step = min(2*s.step, s.r.maxRead())
		}
		end = max(end, s.off+maxLineLen) // at least a whole line
		end = min((end+pageSize-1)&^(pageSize-1), (s.off+int64(s.r.maxRead()))&^(pageSize-1), s.f.size)
		var err error
		if s.data, err = s.r.bytesAt(s.off, end); err != nil {
			return nil, err
		}
		i = bytes.IndexByte(s.data, '\n')
		if i < 0 && s.off+int64(len(s.data)) < s.f.size {
			return nil, ErrMalformed // a line longer than a read
		}
	}
	if len(s.data) == 0 {
		return nil, io.EOF
	}
	var line []byte
	if i < 0 {
		line, s.data = s.data, nil
	} else {
		line, s.data = s.data[:i], s.data[i+1:]
	}
	s.off += int64(len(line))
	if i >= 0 {
		s.off++
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), nil
}

// compareHex compares the first len(target) digits of hash, case-folded,
// with the upper-case target.
func compareHex(hash, target []byte) int {
	for i, t := range target {
		c := hash[i]
		if 'a' <= c && c <= 'f' {
			c -= 'a' - 'A'
		}
		if c != t {
			if c < t {
				return -1
			}
			return 1
		}
	}
	return 0
}
