// Package procstatus reads the memory a process holds from Linux's
// /proc/<pid>/status, for the tests and measurements that bound it.
package procstatus

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The fields of the status file that Bytes reads.
const (
	Resident     = "VmRSS" // the resident set now
	PeakResident = "VmHWM" // the largest resident set since the start or ResetPeak
)

// Self is the pid that names the calling process.
const Self = 0

// ErrNoProc is Bytes's error on a system without /proc.
var ErrNoProc = errors.New("procstatus: this system has no /proc")

// Bytes is the field of process pid's status (Self for this process), in
// bytes.
func Bytes(pid int, field string) (int64, error) {
	path := "/proc/self/status"
	if pid != Self {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	status, err := os.ReadFile(path)
	if err != nil {
		if _, statErr := os.Stat("/proc/self"); statErr != nil {
			return 0, ErrNoProc
		}
		return 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("procstatus: %s in %s: %w", field, path, err)
			}
			return kib << 10, nil
		}
	}
	return 0, fmt.Errorf("procstatus: no %s in %s", field, path)
}

// MiB is this process's field in MiB, for a report beside a measurement;
// 0 when it cannot be read.
func MiB(field string) float64 {
	b, _ := Bytes(Self, field)
	return float64(b) / (1 << 20)
}

// PeakRSS is process pid's peak resident set in bytes, for a test: it
// skips tb on a system without /proc and fails it on any other error.
func PeakRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	b, err := Bytes(pid, PeakResident)
	if errors.Is(err, ErrNoProc) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// ResetPeak starts this process's PeakResident again from its resident
// set of now.
func ResetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5\n"), 0)
}
