//go:build linux && (amd64 || arm64)

package breach

import (
	"os"
	"syscall"
)

// fadviseRandom is POSIX_FADV_RANDOM from <fcntl.h>.
const fadviseRandom = 1

// readRandomly tells the kernel that the file is read at random places, so
// it reads from disk the pages a lookup asks for and no read-ahead after
// them: a lookup reads a few pages and one answer, and read-ahead would
// multiply the disk traffic of a file larger than memory. It is advice: an
// error changes nothing else.
func readRandomly(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			syscall.Syscall6(syscall.SYS_FADVISE64, fd, 0, 0, fadviseRandom, 0, 0)
		})
	}
}
