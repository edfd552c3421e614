// Package testpar lets a package whose tests mostly wait run more of them
// at once than `go test` would.
package testpar

import (
	"flag"
	"runtime"
	"strconv"
)

// Raise sets -test.parallel to n when the command line did not set it
// and n is above its default, GOMAXPROCS. Call it from TestMain, before
// m.Run, in a package whose tests spend their time waiting (for timers,
// child processes, a browser or PostgreSQL) rather than computing: one
// test a core leaves the cores idle while they wait, and `go test ./...`
// runs only as many packages at once as there are cores.
func Raise(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && n > runtime.GOMAXPROCS(0) {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
