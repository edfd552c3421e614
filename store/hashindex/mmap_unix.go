//go:build unix

package hashindex

import (
	"os"
	"path/filepath"
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

// lockRuns waits for the runs lock of the run directory dir, shared or exclusive, and
// returns the function that releases it. A reload holds it shared from reading the runs
// table to opening the files it lists, and whoever deletes listed or once-listed run files
// (a merge, removeOrphans) holds it exclusive: so no process opens a file between its
// being unlisted and deleted, and any number of processes can open an index while another
// merges. Each call opens the lock file anew: flock locks belong to an open file, so the
// lock works between goroutines as between processes.
func lockRuns(dir string, exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, runsLockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for err = syscall.Flock(int(f.Fd()), how); err == syscall.EINTR; err = syscall.Flock(int(f.Fd()), how) {
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
