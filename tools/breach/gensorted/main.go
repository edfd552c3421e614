// Command gensorted writes a synthetic Pwned Passwords file of any size, for
// measuring breach lookups on files larger than memory: HASH:COUNT lines
// with CRLF ends, sorted by hash, upper-case, as the real download.
//
// The hashes are independent uniform draws, as SHA-1 and NTLM digests of
// distinct passwords are, and the counts have the real corpus' long tail
// (see breachtest.WriteUniform); at 10^9 lines a prefix holds about 955
// lines and the file is 44 GB, as the real SHA-1 download. The output is
// the same for the same -lines, -kind and -seed.
//
//	go run ./tools/breach/gensorted -lines 1000000000 -o /tmp/pwned-sha1.txt
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

func main() {
	lines := flag.Float64("lines", 1e6, "expected number of lines (the actual count is within a few standard deviations)")
	kind := flag.String("kind", "sha1", "hash kind: sha1 (40 hex digits) or ntlm (32)")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()

	kinds := map[string]breach.Kind{"sha1": breach.KindSHA1, "ntlm": breach.KindNTLM}
	k, ok := kinds[*kind]
	if !ok || *lines < 1 || *lines > 1e12 {
		fmt.Fprintln(os.Stderr, "gensorted: -kind must be sha1 or ntlm and -lines between 1 and 10^12")
		os.Exit(2)
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gensorted:", err)
			os.Exit(1)
		}
		w = f
	}
	start := time.Now()
	n, size, err := breachtest.WriteUniform(w, *lines, k, *seed)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensorted:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gensorted: %d lines, %d bytes (%.1f per line) in %s\n",
		n, size, float64(size)/float64(n), time.Since(start).Round(time.Millisecond))
}
