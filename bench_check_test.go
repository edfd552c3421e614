package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"secutil/cmd"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
	"secutil/tools/passcheck"
	"secutil/tools/strength"
)

// checkMix is n passwords of the mix TestListsBenchmark gives `secutil
// check` (benchPassword), so that the per-password figures below are those
// of the harness's file.
func checkMix(n int) []string {
	rng := rand.New(rand.NewPCG(36, 3))
	mix := make([]string, n)
	for i := range mix {
		mix[i] = benchPassword(rng)
	}
	return mix
}

// BenchmarkCheckMix rates the harness's mix one password per op, so ns/op
// is the time a password costs `secutil check` before its breach lookup:
// the whole of passcheck.Check and, beside it, its strength estimate alone.
// cpu-ns/op is the process's CPU time an op, which a shared machine
// inflates less than the wall time.
func BenchmarkCheckMix(b *testing.B) {
	mix := checkMix(1 << 16)
	for _, c := range []struct {
		name string
		rate func(string)
	}{
		{"passcheck.Check", func(p string) {
			if _, err := passcheck.Check(p); err != nil {
				b.Fatal(err)
			}
		}},
		{"strength.Estimate", func(p string) { strength.Estimate(p) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU(b, os.Getpid())
			i := 0
			for b.Loop() {
				c.rate(mix[i%len(mix)])
				i++
			}
			b.ReportMetric(float64((processCPU(b, os.Getpid())-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkCheckCommand runs `secutil check` in process on 65,536 passwords
// of the mix (one breach batch) against a generated 1,000,000-line SHA-1
// file, and reports the CPU time a line costs the whole command: reading,
// rating, the breach lookup and the text output.
func BenchmarkCheckCommand(b *testing.B) {
	dir := b.TempDir()
	passwords := filepath.Join(dir, "passwords.txt")
	var list bytes.Buffer
	mix := checkMix(1 << 16)
	for _, p := range mix {
		list.WriteString(p + "\n")
	}
	if err := os.WriteFile(passwords, list.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	sha1File := filepath.Join(dir, "pwned-sha1.txt")
	if err := writeInput(sha1File, func(w io.Writer) error {
		_, _, err := breachtest.WriteUniform(w, 1e6, breach.KindSHA1, 1)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	args := []string{"secutil", "check", "-breach-file", sha1File, passwords}
	var stderr bytes.Buffer
	b.ReportAllocs()
	cpu := processCPU(b, os.Getpid())
	for b.Loop() {
		stderr.Reset()
		err := cmd.Program{}.Run(context.Background(), args, func(string) string { return "" }, nil, io.Discard, &stderr)
		if err != nil {
			b.Fatalf("%v\n%s", err, stderr.String())
		}
	}
	b.ReportMetric(float64((processCPU(b, os.Getpid())-cpu).Nanoseconds())/float64(b.N*len(mix)), "cpu-ns/line")
}
