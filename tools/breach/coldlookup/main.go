// Command coldlookup measures breach lookups the way a server with a file
// larger than memory meets them: it opens a Pwned Passwords file, makes
// random lookups of one kind and reports, per lookup, the read system
// calls and the bytes the kernel read from disk (from /proc/self/io, Linux
// only) and the wall-time percentiles. Drop the page cache first for a
// cold start (as root: sync; echo 3 > /proc/sys/vm/drop_caches); -drop
// drops it again once the file's background sampling is over, so that the
// lookups start cold too.
//
// -op batch makes one batch lookup (CountMany, as an audit does) of n
// digests instead, half of them lines of the file, and reports its time,
// its reads and the process's peak resident memory. The page cache is
// dropped after the digests are drawn; the sampling is not started.
//
//	go run ./tools/breach/coldlookup -file /tmp/pwned-sha1.txt -op range -n 2000 -drop
//	go run ./tools/breach/coldlookup -file /tmp/pwned-ntlm.txt -kind ntlm -op batch -n 100000 -drop
//go:build linux

package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"secutil/internal/procstatus"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

func main() {
	path := flag.String("file", "", "the Pwned Passwords file")
	kindName := flag.String("kind", "sha1", "the file's hash: sha1 or ntlm")
	op := flag.String("op", "range", "range (a 5-hex prefix's answer, as GET /range), count (one digest, as /data_breach and password_check) or batch (n digests in one CountMany, as an audit)")
	n := flag.Int("n", 2000, "lookups")
	seed := flag.Uint64("seed", 1, "random seed of the prefixes and digests")
	drop := flag.Bool("drop", false, "drop the page cache before the lookups (needs root)")
	workers := flag.Int("c", 1, "lookups at once")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the lookups to this file")
	flag.Parse()
	if *profile != "" {
		out, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "coldlookup:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	kind := breach.KindSHA1
	if *kindName == "ntlm" {
		kind = breach.KindNTLM
	}
	run := run
	if *op == "batch" {
		run = runBatch
	}
	if err := run(*path, kind, *op, max(*n, 1), *seed, *drop, max(*workers, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "coldlookup:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(path string, kind breach.Kind, op string, n int, seed uint64, drop bool, workers int) error {
	start := time.Now()
	f, err := breach.OpenFile(path, kind)
	if err != nil {
		return err
	}
	defer f.Close()
	opened := time.Since(start)
	<-f.Sampled()
	sampled := time.Since(start)
	if drop {
		if err := breachtest.DropPageCache(); err != nil {
			return err
		}
	}
	before, err := breachtest.ProcIO()
	if err != nil {
		return err
	}
	times := make([]time.Duration, n)
	errs := make(chan error, workers)
	began := time.Now()
	for w := range workers {
		lookup, err := lookups(f, op, seed+uint64(w))
		if err != nil {
			return err
		}
		go func() {
			for i := w; i < n; i += workers {
				t := time.Now()
				if err := lookup(); err != nil {
					errs <- err
					return
				}
				times[i] = time.Since(t)
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			return err
		}
	}
	elapsed := time.Since(began)
	after, err := breachtest.ProcIO()
	if err != nil {
		return err
	}
	slices.Sort(times)
	at := func(q float64) time.Duration { return times[int(q*float64(n-1))] }
	fmt.Printf("%s %s, %.1f GB, %d at once: open %s, sampled %s; %.0f lookups/s; per lookup %.2f read calls, %.1f KB from disk; p50 %s p99 %s max %s\n",
		kind, op, float64(f.Size())/1e9, workers, opened.Round(time.Microsecond), sampled.Round(time.Millisecond), float64(n)/elapsed.Seconds(),
		float64(after["syscr"]-before["syscr"])/float64(n),
		float64(after["read_bytes"]-before["read_bytes"])/float64(n)/1e3,
		at(0.5).Round(time.Microsecond), at(0.99).Round(time.Microsecond), times[n-1].Round(time.Microsecond))
	return nil
}

// runBatch times one CountMany of n digests, half of them in the file.
func runBatch(path string, kind breach.Kind, _ string, n int, seed uint64, drop bool, _ int) error {
	digests, err := breachtest.Batch(path, kind, n, n/2, seed)
	if err != nil {
		return err
	}
	if drop {
		if err := breachtest.DropPageCache(); err != nil {
			return err
		}
	}
	// Peak memory from here on: the digests are counted, their drawing is not.
	if err := procstatus.ResetPeak(); err != nil {
		return err
	}
	before, err := breachtest.ProcIO()
	if err != nil {
		return err
	}
	cpuBefore := cpuTime()
	start := time.Now()
	f, err := breach.OpenFile(path, kind)
	if err != nil {
		return err
	}
	defer f.Close()
	hits, err := f.CountMany(context.Background(), digests, nil)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpuBefore
	after, err := breachtest.ProcIO()
	if err != nil {
		return err
	}
	found := 0
	for _, h := range hits {
		if h.Found {
			found++
		}
	}
	fmt.Printf("%s batch of %d (%d found), %.1f GB: %s (CPU %s), %.0f digests/s; %d read calls, %.2f GB from disk; peak RSS %.0f MiB\n",
		kind, n, found, float64(f.Size())/1e9, elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(n)/elapsed.Seconds(),
		after["syscr"]-before["syscr"], float64(after["read_bytes"]-before["read_bytes"])/1e9, procstatus.MiB(procstatus.PeakResident))
	return nil
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// lookups returns a function making random lookups of the kind op, from its own random source.
func lookups(f *breach.File, op string, seed uint64) (func() error, error) {
	r := rand.New(rand.NewPCG(seed, 0))
	switch op {
	case "range":
		return func() error {
			_, err := f.AppendRange(nil, fmt.Sprintf("%05X", r.IntN(1<<20)), false)
			return err
		}, nil
	case "count":
		digest := make([]byte, f.Kind().DigestLen())
		return func() error {
			for i := range digest {
				digest[i] = byte(r.Uint32())
			}
			_, _, err := f.Count(digest)
			return err
		}, nil
	}
	return nil, fmt.Errorf("-op must be range or count, not %q", op)
}
