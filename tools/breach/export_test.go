package breach

import (
	"io"
	"sync/atomic"
)

// readCounter counts the ReadAt calls made on a File and the bytes they ask for.
type readCounter struct {
	r            io.ReaderAt
	reads, bytes atomic.Int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// CountReads makes f count its reads from now on and returns a function
// that reports the reads and bytes so far; its batches read the file
// instead of its mapping (ReadWithoutMapping), so that they are counted
// too. It must be called before f is used concurrently.
func CountReads(f *File) func() (reads, bytes int64) {
	ReadWithoutMapping(f)
	c := &readCounter{r: f.r}
	f.r = c
	return func() (int64, int64) { return c.reads.Load(), c.bytes.Load() }
}

// WaitSampled waits until f's background sampling is over and reports
// whether it left a sample table for the search.
func WaitSampled(f *File) bool {
	<-f.Sampled()
	return f.samples.Load() != nil
}

// DropSamples waits for f's sampling and throws its table away, so that
// the search starts from the ends of the file, as before the table is built.
func DropSamples(f *File) {
	<-f.Sampled()
	f.samples.Store(nil)
}

// ReadWithoutMapping unmaps f, so that its batches read the file as they
// do where it cannot be mapped. It must be called before f is used
// concurrently.
func ReadWithoutMapping(f *File) {
	if f.mapped != nil {
		unmapFile(f.mapped)
		f.mapped = nil
	}
}

// Mapped reports whether f's batches read its mapping.
func Mapped(f *File) bool { return f.mapped != nil }
