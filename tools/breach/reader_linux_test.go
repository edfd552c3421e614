package breach

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// mappedResident is the resident size of the mapping that starts at data,
// from /proc/self/smaps.
func mappedResident(t *testing.T, data []byte) int64 {
	t.Helper()
	smaps, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer smaps.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(data))))
	in := false
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = strings.HasPrefix(line, start)
			continue
		}
		var kB int64
		if in && strings.HasPrefix(line, "Rss:") {
			fmt.Sscanf(strings.TrimPrefix(line, "Rss:"), "%d", &kB)
			return kB << 10
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// openMapped opens a file of size bytes of SHA-1 lines, mapped, and its
// path; it skips the test where the file is not mapped.
func openMapped(t *testing.T, size int) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mapped.txt")
	line := []byte(strings.Repeat("0", 40) + ":1\n")
	if err := os.WriteFile(path, bytes.Repeat(line, size/len(line)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path, KindSHA1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if f.mapped == nil {
		t.Skip("the file is not mapped here")
	}
	return f, path
}

// TestReaderReleasesMapping: a reader that views a mapped file front to
// back, as a dense batch does, keeps about two folios of it in the
// process's resident memory, not the file, and none once done.
func TestReaderReleasesMapping(t *testing.T) {
	t.Parallel()
	const size = 12 << 20 // about three times the limit below
	f, _ := openMapped(t, size)
	r := &reader{f: f, buf: make([]byte, bufSize), mapped: f.mapped}
	var peak int64
	var sum byte
	for off := int64(0); off < f.size; off += bufSize {
		data, err := r.bytesAt(off, min(off+bufSize, f.size))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(data); i += pageSize {
			sum += data[i] // fault every page in
		}
		if off%(4*bufSize) == 0 { // reading smaps costs more than the view
			peak = max(peak, mappedResident(t, f.mapped))
		}
	}
	if limit := int64(2*folioSize + bufSize); peak > limit || sum == 0 {
		t.Errorf("%d MiB file viewed: peak resident %d KiB of the mapping, want at most %d KiB", size>>20, peak>>10, limit>>10)
	}
	r.done()
	if left := mappedResident(t, f.mapped); left > 0 {
		t.Errorf("done: %d KiB of the mapping still resident", left>>10)
	}
}

var sink byte

// TestReadsMappedCatchesFault: reading a page of the mapping that the file
// lost since (SIGBUS) is the error ErrChanged, not a crash.
func TestReadsMappedCatchesFault(t *testing.T) {
	t.Parallel()
	f, path := openMapped(t, 4*bufSize)
	if err := os.Truncate(path, pageSize); err != nil {
		t.Fatal(err)
	}
	err := f.readsMapped(func() error {
		sink = f.mapped[len(f.mapped)-1]
		return nil
	})
	if err != ErrChanged {
		t.Errorf("reading a lost page: %v, want ErrChanged", err)
	}
}
