package strength_test

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"secutil/tools/strength"
)

type referenceRow struct {
	password     string
	score        int
	guessesLog10 float64
}

// loadReference reads testdata/reference_scores.tsv, written by
// testdata/gen_reference.js with npm zxcvbn 4.4.2.
func loadReference(tb testing.TB) []referenceRow {
	tb.Helper()
	f, err := os.Open("testdata/reference_scores.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows []referenceRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			tb.Fatalf("bad line %q", sc.Text())
		}
		score, err1 := strconv.Atoi(fields[1])
		log10, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil {
			tb.Fatalf("bad line %q", sc.Text())
		}
		rows = append(rows, referenceRow{fields[0], score, log10})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}

func TestAgreesWithZxcvbn(t *testing.T) {
	rows := loadReference(t)
	if len(rows) < 1000 {
		t.Fatalf("reference corpus has %d passwords, want >= 1000", len(rows))
	}
	exact, withinOne, sameGuesses := 0, 0, 0
	for _, row := range rows {
		got := strength.Estimate(row.password)
		d := got.Score - row.score
		if d == 0 {
			exact++
		}
		if d >= -1 && d <= 1 {
			withinOne++
		}
		if math.Abs(got.GuessesLog10-row.guessesLog10) < 1e-5 {
			sameGuesses++
		} else {
			t.Logf("differs: %q score %d want %d, log10 %.6f want %.6f", row.password, got.Score, row.score, got.GuessesLog10, row.guessesLog10)
		}
	}
	n := float64(len(rows))
	t.Logf("%d passwords: exact score %.2f%%, within one %.2f%%, same guesses %.2f%%",
		len(rows), 100*float64(exact)/n, 100*float64(withinOne)/n, 100*float64(sameGuesses)/n)
	if float64(exact)/n < 0.85 {
		t.Errorf("exact score agreement %d/%d, want >= 85%%", exact, len(rows))
	}
	if float64(withinOne)/n < 0.98 {
		t.Errorf("within-one agreement %d/%d, want >= 98%%", withinOne, len(rows))
	}
}
