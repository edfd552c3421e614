package breach

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// ErrChanged reports a file that shrank after it was opened: the bytes past
// its new end cannot be read. It was rewritten in place.
var ErrChanged = errors.New("breach: the file shrank while it was read (rewritten in place?)")

// folioSize is the largest span the kernel maps at one fault: the page
// cache holds a file in folios of up to 2 MiB, and a fault maps a whole
// folio's pages. A reader gives back the folios it has passed (see
// release): without that, a batch that reads the whole of a 4 GB file
// would count all of it in the process's resident memory.
const folioSize = 2 << 20

// reader gives a scanner the bytes of its file: read into buf, or, in a
// batch on a mapped file, the mapping itself when the bytes are in the
// page cache, which saves copying them: a batch whose digests lie a few KB
// apart reads the whole file, every batch, and on a 10 M-line file warm in
// memory the copy was most of the system time of `secutil check`. The
// bytes of a file that are not in memory are read, as without a mapping:
// a fault on the mapping would hold the goroutine's thread, where a read
// leaves the others to issue theirs, so that the disk serves many at
// once. The mapped bytes are only read (parseLine writes nothing).
type reader struct {
	f      *File
	buf    []byte
	mapped []byte   // the whole file, or nil: read into buf
	pages  [64]byte // mincore's answer for a span, a byte a page
	// The mapped bytes viewed since the last release lie between from
	// and to; viewed tells whether there are any.
	from, to int64
	viewed   bool
}

// maxRead is the longest span bytesAt returns.
func (r *reader) maxRead() int { return len(r.buf) }

// bytesAt returns the file's bytes from off to end, which must be at most
// the file's size and maxRead after off; they are valid until the next
// call, and are not to be written.
func (r *reader) bytesAt(off, end int64) ([]byte, error) {
	span := off &^ (pageSize - 1)
	if r.mapped == nil || !resident(r.mapped[span:end], r.pages[:]) {
		n, err := r.f.r.ReadAt(r.buf[:end-off], off)
		switch {
		case err != nil && err != io.EOF:
			return nil, fmt.Errorf("breach: %w", err)
		case n < int(end-off):
			return nil, ErrChanged // end is within the size the file had
		}
		return r.buf[:n], nil
	}
	if r.viewed && off&^(folioSize-1) > r.from&^(folioSize-1) {
		r.release(off) // a folio left behind
	}
	if !r.viewed {
		r.from, r.to, r.viewed = off, end, true
	}
	r.from, r.to = min(r.from, off), max(r.to, end)
	return r.mapped[off:end:end], nil
}

// release takes the folios of the mapped bytes viewed since the last
// release out of the process's page tables, up to the folio of keep (all
// of them when keep is past them): they stay in the page cache, and a
// later view maps them again. (A neighbouring part's reader may lose pages
// of a folio they share, and map them again.)
func (r *reader) release(keep int64) {
	if !r.viewed {
		return
	}
	from := r.from &^ (folioSize - 1)
	to := min(keep&^(folioSize-1), (r.to+folioSize-1)&^(folioSize-1), int64(len(r.mapped)))
	if to > from {
		adviseDontNeed(r.mapped[from:to])
	}
	r.viewed = false
}

// done releases every mapped page the reader viewed.
func (r *reader) done() {
	if r.mapped != nil {
		r.release(r.f.size + folioSize)
	}
}

// catchFault turns a fault reading the mapping of f into *err, as ErrChanged:
// a mapped file that shrinks raises SIGBUS on its lost pages. It must be
// deferred by the goroutine that reads the mapping, after
// debug.SetPanicOnFault(true). Any other panic goes on.
func (f *File) catchFault(err *error) {
	p := recover()
	if p == nil {
		return
	}
	if fault, ok := p.(interface{ Addr() uintptr }); ok && holds(f.mapped, fault.Addr()) {
		*err = ErrChanged
		return
	}
	panic(p)
}

// readsMapped runs fn, which reads the mapping, in the calling goroutine,
// and reports a fault in the mapping as ErrChanged.
func (f *File) readsMapped(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer f.catchFault(&err)
	err = fn()
	runtime.KeepAlive(f)
	return err
}
