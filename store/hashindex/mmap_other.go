//go:build !unix

package hashindex

import "os"

// mapFilter reads a run's Bloom filter into memory where memory mapping is not available.
func mapFilter(f *os.File, l runLayout) (bloomFilter, func() error, error) {
	data := make([]byte, l.bloomBlocks*bloomBlockBytes)
	if _, err := f.ReadAt(data, l.bloomOffset()); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// lockFile does not lock where flock is not available: run one import at a time.
func lockFile(*os.File) (busy bool, err error) { return false, nil }

// lockRuns does not lock where flock is not available: a reload that meets a run file
// deleted under it reads the runs table again (reloadListed).
func lockRuns(string, bool) (unlock func(), err error) { return func() {}, nil }
