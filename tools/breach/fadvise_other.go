//go:build !(linux && (amd64 || arm64))

package breach

import "os"

// readRandomly is advice the kernel takes only on Linux (see fadvise_linux.go).
func readRandomly(*os.File) {}
