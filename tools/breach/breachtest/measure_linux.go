package breachtest

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// DropPageCache writes dirty pages back and empties the page cache, so that
// the reads after it go to the disk. It needs root.
func DropPageCache() error {
	syscall.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0)
}

// ProcIO reads this process's I/O counters: syscr counts read system
// calls, read_bytes the bytes fetched from the disk (not the page cache).
func ProcIO() (map[string]int64, error) {
	file, err := os.Open("/proc/self/io")
	if err != nil {
		return nil, err
	}
	defer file.Close()
	counters := map[string]int64{}
	s := bufio.NewScanner(file)
	for s.Scan() {
		name, value, _ := strings.Cut(s.Text(), ": ")
		counters[name], _ = strconv.ParseInt(value, 10, 64)
	}
	return counters, s.Err()
}

// LoadAverage is the first three fields of /proc/loadavg: the machine's
// load over 1, 5 and 15 minutes, for reports of timings on a shared machine.
func LoadAverage() string {
	data, _ := os.ReadFile("/proc/loadavg")
	fields := strings.Fields(string(data))
	return strings.Join(fields[:min(3, len(fields))], " ")
}
