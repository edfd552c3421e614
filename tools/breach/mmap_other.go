//go:build !linux

package breach

import "os"

// mapFile maps files on Linux only (see mmap_linux.go); elsewhere batches
// read the file.
func mapFile(*os.File, int64) []byte { return nil }

func unmapFile([]byte) error        { return nil }
func resident(b, pages []byte) bool { return false }
func adviseDontNeed([]byte)         {}
func holds([]byte, uintptr) bool    { return false }
