//go:build linux

package breach

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps the file read-only for batches (see reader), or returns nil
// when it cannot: an empty file, or no room for it in the address space (a
// 32-bit process), and the batches read it instead. A page evicted between
// reader's check and its use is read alone (MADV_RANDOM, as readRandomly
// advises the reads), and the page cache's large folios are mapped a page
// at a time (MADV_NOHUGEPAGE), not 2 MiB at once, which reader.release
// could not give back while a batch reads on in them.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	syscall.Madvise(data, syscall.MADV_RANDOM)
	syscall.Madvise(data, syscall.MADV_NOHUGEPAGE)
	return data
}

func unmapFile(data []byte) error { return syscall.Munmap(data) }

// resident reports whether every page of b, which starts on a page, is in
// memory; pages has a byte for each (len(b) at most 64 pages).
func resident(b, pages []byte) bool {
	n := (len(b) + pageSize - 1) / pageSize
	if n > len(pages) {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(pages))))
	if errno != 0 {
		return false
	}
	for _, p := range pages[:n] {
		if p&1 == 0 {
			return false
		}
	}
	return true
}

// adviseDontNeed takes the pages of b out of the process's page tables;
// the file's pages stay in the page cache.
func adviseDontNeed(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }

// holds reports whether the address lies in the mapping m.
func holds(m []byte, addr uintptr) bool {
	if len(m) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	return addr >= start && addr-start < uintptr(len(m))
}
