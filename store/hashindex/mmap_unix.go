//go:build unix

package hashindex

import (
	"os"
	"syscall"
)

// mapFilter maps a run's Bloom filter read-only: the filters of a large index are larger
// than the memory a server should hold, and a question reads one 64-byte block of them
// (from the page cache).
func mapFilter(f *os.File, l runLayout) (bloomFilter, func() error, error) {
	data, err := syscall.Mmap(int(f.Fd()), l.bloomOffset(), int(l.bloomBlocks*bloomBlockBytes), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// lockFile takes an exclusive lock on f without waiting; busy is true when another
// holds it.
func lockFile(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return true, nil
	}
	return false, err
}
