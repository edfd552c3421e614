package breach

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

const (
	// blockSize is the read size of the final linear scan and the pooled buffer size;
	// the binary search stops once the candidate window is this small.
	blockSize = 4096
	// maxLineLen bounds one line: 40 hex digits, ':', a count of up to 18
	// digits and CRLF fit with room to spare. Longer lines are malformed.
	maxLineLen = 80
	// maxCountDigits keeps counts inside int64.
	maxCountDigits = 18
)

// ErrMalformed reports a line that is not HASH:COUNT; the file is corrupt or of the wrong kind.
var ErrMalformed = errors.New("breach: malformed line in Pwned Passwords file")

var blockPool = sync.Pool{New: func() any { b := make([]byte, blockSize); return &b }}

// File is an opened Pwned Passwords download, searched in place. It is safe
// for concurrent use: every lookup reads with ReadAt into its own pooled block.
type File struct {
	f       *os.File
	size    int64
	modTime time.Time
	kind    Kind
}

// OpenFile opens a Pwned Passwords file of the given kind and checks that
// its first line has that kind's HASH:COUNT shape.
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
	f := &File{f: osf, size: st.Size(), modTime: st.ModTime(), kind: kind}
	s := f.scanFrom(0, make([]byte, blockSize))
	line, err := s.next()
	if err == nil {
		_, _, err = f.parseLine(line)
	}
	if err != nil && err != io.EOF && !errors.Is(err, ErrMalformed) {
		osf.Close()
		return nil, err // an I/O error, e.g. the path is a directory
	}
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("breach: %s is not a Pwned Passwords %s file: each line must be %d hex digits, ':' and a count (e.g. %s:42), sorted by hash",
			path, kind, kind.hexLen(), upperHex(make([]byte, kind.DigestLen())))
	}
	return f, nil
}

// Kind is the hash the file is keyed by.
func (f *File) Kind() Kind { return f.kind }

// Size and ModTime describe the version of the file that was opened: an
// open file keeps being read even after a new download is renamed over it.
func (f *File) Size() int64        { return f.size }
func (f *File) ModTime() time.Time { return f.modTime }

// Close closes the underlying file.
func (f *File) Close() error { return f.f.Close() }

// Count looks the digest up; count is the number of times it was seen in breaches.
func (f *File) Count(digest []byte) (count int64, found bool, err error) {
	if len(digest) != f.kind.DigestLen() {
		return 0, false, ErrDigestLength
	}
	var targetBuf [40]byte
	target := targetBuf[:hex.Encode(targetBuf[:], digest)]
	toUpperHex(target)

	bp := blockPool.Get().(*[]byte)
	defer blockPool.Put(bp)
	start, err := f.seek(target, *bp)
	if err != nil {
		return 0, false, err
	}
	s := f.scanFrom(start, *bp)
	for {
		line, err := s.next()
		if err == io.EOF {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		hash, n, err := f.parseLine(line)
		if err != nil {
			return 0, false, err
		}
		switch c := compareHex(hash, target); {
		case c == 0:
			return n, true, nil
		case c > 0:
			return 0, false, nil
		}
	}
}

// Range returns every entry whose hash starts with the 5-hex prefix
// (case-insensitive), in file order, with the remaining digits upper-cased.
// More than MaxRangeEntries matches yield ErrRangeTooLarge.
func (f *File) Range(prefix string) ([]RangeEntry, error) {
	entries := []RangeEntry{}
	err := f.eachInRange(prefix, func(suffix []byte, count int64) {
		entries = append(entries, RangeEntry{Suffix: string(suffix), Count: count})
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// eachInRange calls fn with the upper-cased suffix and the count of every
// line whose hash starts with the 5-hex prefix, in file order. suffix is
// valid only during the call. More than MaxRangeEntries matches stop the
// scan with ErrRangeTooLarge.
func (f *File) eachInRange(prefix string, fn func(suffix []byte, count int64)) error {
	p, err := normalizePrefix(prefix)
	if err != nil {
		return err
	}
	var targetBuf [PrefixLen]byte
	target := targetBuf[:copy(targetBuf[:], p)]
	bp := blockPool.Get().(*[]byte)
	defer blockPool.Put(bp)
	start, err := f.seek(target, *bp)
	if err != nil {
		return err
	}
	matched := 0
	s := f.scanFrom(start, *bp)
	for {
		line, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		hash, n, err := f.parseLine(line)
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
			suffix := hash[PrefixLen:] // in the scanner's block, which nothing else reads
			toUpperHex(suffix)
			fn(suffix, n)
		}
	}
}

// seek binary-searches byte offsets for a line start at most one block
// before the first line whose hash is >= target (compared on len(target)
// digits). Invariants: every line starting before lo is < target; the first
// line starting at or after hi is >= target (or there is none).
func (f *File) seek(target, buf []byte) (int64, error) {
	lo, hi := int64(0), f.size
	for hi-lo > blockSize {
		mid := lo + (hi-lo)/2
		start, next, hash, err := f.probe(mid, buf)
		if err != nil {
			return 0, err
		}
		if start < hi && compareHex(hash, target) < 0 {
			lo = next
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// probe resyncs to the first line starting at or after off (off > 0) and
// returns its start, the start of the line after it and its hash. At the end
// of the file start == f.size and hash is nil.
func (f *File) probe(off int64, buf []byte) (start, next int64, hash []byte, err error) {
	buf = buf[:2*maxLineLen]
	n, err := f.f.ReadAt(buf, off-1)
	if err != nil && err != io.EOF {
		return 0, 0, nil, fmt.Errorf("breach: %w", err)
	}
	buf = buf[:n]
	atEOF := off-1+int64(n) == f.size
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		if atEOF {
			return f.size, f.size, nil, nil
		}
		return 0, 0, nil, ErrMalformed
	}
	rest := buf[i+1:]
	start = off + int64(i)
	if len(rest) == 0 && atEOF {
		return f.size, f.size, nil, nil
	}
	j := bytes.IndexByte(rest, '\n')
	switch {
	case j >= 0:
		next = start + int64(j) + 1
		rest = rest[:j]
	case atEOF:
		next = f.size
	default:
		return 0, 0, nil, ErrMalformed
	}
	hash, _, err = f.parseLine(bytes.TrimSuffix(rest, []byte{'\r'}))
	return start, next, hash, err
}

// parseLine splits "HASH:COUNT" (line end already removed) and validates both parts.
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

// lineScanner reads lines forward from an offset, one block per ReadAt.
type lineScanner struct {
	f    *File
	buf  []byte
	data []byte // unread bytes, starting at file offset off
	off  int64
}

func (f *File) scanFrom(off int64, buf []byte) *lineScanner {
	return &lineScanner{f: f, buf: buf, off: off}
}

// next returns the next line without its LF or CRLF end, or io.EOF.
func (s *lineScanner) next() ([]byte, error) {
	i := bytes.IndexByte(s.data, '\n')
	if i < 0 && s.off+int64(len(s.data)) < s.f.size {
		n, err := s.f.f.ReadAt(s.buf, s.off)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("breach: %w", err)
		}
		s.data = s.buf[:n]
		i = bytes.IndexByte(s.data, '\n')
		if i < 0 && s.off+int64(n) < s.f.size {
			return nil, ErrMalformed // a line longer than a block
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

// toUpperHex upper-cases hex digits in place, without a branch per byte.
func toUpperHex(b []byte) {
	for i, c := range b {
		b[i] = upperDigit[c]
	}
}
