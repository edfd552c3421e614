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

// TestAgreesWithZxcvbn holds the README's promise: on every password of the
// reference corpus, the score and the guesses (to 1e-5 in log10) are those
// npm zxcvbn 4.4.2 gives.
func TestAgreesWithZxcvbn(t *testing.T) {
	rows := loadReference(t)
	if got, want := len(rows), 2000; got != want {
		t.Fatalf("reference corpus has %d passwords, want the README's %d", got, want)
	}
	for _, row := range rows {
		got := strength.Estimate(row.password)
		if got.Score != row.score || math.Abs(got.GuessesLog10-row.guessesLog10) >= 1e-5 {
			t.Errorf("%q: score %d, guesses log10 %.6f; zxcvbn gives %d, %.6f",
				row.password, got.Score, got.GuessesLog10, row.score, row.guessesLog10)
		}
	}
}

// TestScoreIsEstimates: Score, the bulk checks' shortcut, gives the score
// Estimate gives, on every password of the reference corpus.
func TestScoreIsEstimates(t *testing.T) {
	t.Parallel()
	for _, row := range loadReference(t) {
		if got, want := strength.Score(row.password), strength.Estimate(row.password).Score; got != want {
			t.Errorf("%q: Score %d, Estimate's %d", row.password, got, want)
		}
	}
}

// TestScoreOfCommonPasswords: Score keeps the score of a common password
// (see commonScores); asked again, it still answers what Estimate does,
// for every one of a sample spread over the list.
func TestScoreOfCommonPasswords(t *testing.T) {
	t.Parallel()
	common := strength.CommonPasswords()
	for k := 0; k < len(common); k += 13 {
		p := common[k]
		want := strength.Estimate(p).Score
		for try := range 2 {
			if got := strength.Score(p); got != want {
				t.Fatalf("Score(%q), call %d: %d, Estimate says %d", p, try+1, got, want)
			}
		}
	}
}

// TestScoreAndCommon: the bulk checks' shortcut answers what Score and
// IsCommon answer, on the reference corpus and on common passwords as
// typed, capitalised and upper-cased.
func TestScoreAndCommon(t *testing.T) {
	t.Parallel()
	passwords := []string{"", "correct horse battery staple"}
	for _, row := range loadReference(t) {
		passwords = append(passwords, row.password)
	}
	common := strength.CommonPasswords()
	for k := 0; k < len(common); k += 97 {
		passwords = append(passwords, common[k], strings.ToUpper(common[k][:1])+common[k][1:], strings.ToUpper(common[k]))
	}
	for _, p := range passwords {
		score, common := strength.ScoreAndCommon(p)
		if want, wantCommon := strength.Score(p), strength.IsCommon(p); score != want || common != wantCommon {
			t.Errorf("ScoreAndCommon(%q) = %d, %t; Score and IsCommon say %d, %t", p, score, common, want, wantCommon)
		}
	}
}
