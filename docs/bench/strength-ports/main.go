// Command strength-ports times secutil's tools/strength against the Go
// ports of zxcvbn on the reference corpus, in the same run and by the same
// method, and prints a Markdown table. It is its own module so that the
// ports stay out of secutil's go.mod; see docs/bench/strength.md.
//
//	cd docs/bench/strength-ports && go run . -passes 7
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	ccojocar "github.com/ccojocar/zxcvbn-go"
	nbutton23 "github.com/nbutton23/zxcvbn-go"
	trustelem "github.com/trustelem/zxcvbn"

	"secutil/tools/strength"
)

// implementation scores a password: zxcvbn's 0..4 score and, when the
// implementation counts guesses as zxcvbn 4.4.2 does, their log10 (NaN
// otherwise: the zxcvbn-go ports follow the older entropy model).
type implementation struct {
	name  string
	score func(password string) (score int, guessesLog10 float64)
}

var implementations = []implementation{
	{"secutil tools/strength", func(pw string) (int, float64) {
		r := strength.Estimate(pw)
		return r.Score, r.GuessesLog10
	}},
	{"github.com/trustelem/zxcvbn v1.0.1", func(pw string) (int, float64) {
		r := trustelem.PasswordStrength(pw, nil)
		return r.Score, math.Log10(r.Guesses)
	}},
	{"github.com/ccojocar/zxcvbn-go v1.0.4", func(pw string) (int, float64) {
		return ccojocar.PasswordStrength(pw, nil).Score, math.NaN()
	}},
	{"github.com/nbutton23/zxcvbn-go (2021-02-17)", func(pw string) (int, float64) {
		return nbutton23.PasswordStrength(pw, nil).Score, math.NaN()
	}},
}

type reference struct {
	password     string
	score        int
	guessesLog10 float64
}

func main() {
	corpus := flag.String("corpus", "../../../tools/strength/testdata/reference_scores.tsv", "password \\t zxcvbn score \\t zxcvbn log10 guesses, one a line")
	passes := flag.Int("passes", 7, "passes over the corpus; each password's time is its median over the passes")
	flag.Parse()
	refs, err := readCorpus(*corpus)
	if err != nil {
		log.Fatal(err)
	}

	// times[impl][pass][password]. The implementations take turns within
	// each pass, so they share the machine's load; each pass visits the
	// whole corpus, so tables are as cold as between a server's requests.
	times := make([][][]time.Duration, len(implementations))
	for x, impl := range implementations {
		impl.score("warm up") // decode embedded tables outside the timing
		times[x] = make([][]time.Duration, *passes)
	}
	for p := range *passes {
		for x, impl := range implementations {
			t := make([]time.Duration, len(refs))
			for k, ref := range refs {
				start := time.Now()
				impl.score(ref.password)
				t[k] = time.Since(start)
			}
			times[x][p] = t
		}
	}

	fmt.Printf("%d passwords, %d passes, %s\n\n", len(refs), *passes, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| Implementation | median per password | p99 per password | mean | same score as zxcvbn 4.4.2 | same guesses (Δlog10 < 1e-5) |")
	fmt.Println("|---|---|---|---|---|---|")
	for x, impl := range implementations {
		median, p99, mean := summarise(times[x])
		sameScore, sameGuesses := 0, 0
		for _, ref := range refs {
			score, log10 := impl.score(ref.password)
			if score == ref.score {
				sameScore++
			}
			if math.Abs(log10-ref.guessesLog10) < 1e-5 {
				sameGuesses++
			}
		}
		guesses := "n/a (entropy model)"
		if x < 2 {
			guesses = fmt.Sprintf("%.3f", float64(sameGuesses)/float64(len(refs)))
		}
		fmt.Printf("| %s | %.1f µs | %.1f µs | %.1f µs | %.3f | %s |\n", impl.name,
			micros(median), micros(p99), micros(mean), float64(sameScore)/float64(len(refs)), guesses)
	}
}

// summarise returns, over the passwords, the median and 99th percentile of
// each password's median time across passes, and the mean of all times.
func summarise(passes [][]time.Duration) (median, p99, mean time.Duration) {
	n := len(passes[0])
	perPassword := make([]time.Duration, n)
	var total time.Duration
	runs := make([]time.Duration, len(passes))
	for k := range n {
		for p := range passes {
			runs[p] = passes[p][k]
			total += runs[p]
		}
		slices.Sort(runs)
		perPassword[k] = runs[len(runs)/2]
	}
	slices.Sort(perPassword)
	return perPassword[n/2], perPassword[n*99/100], total / time.Duration(n*len(passes))
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func readCorpus(name string) ([]reference, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var refs []reference
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", name, sc.Text())
		}
		score, err1 := strconv.Atoi(fields[1])
		log10, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad line %q", name, sc.Text())
		}
		refs = append(refs, reference{fields[0], score, log10})
	}
	return refs, sc.Err()
}
