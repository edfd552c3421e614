//go:build !linux

package breachtest

import "time"

// threadCPU is not measured here: Report then leaves out the CPU columns.
func threadCPU() time.Duration { return 0 }
