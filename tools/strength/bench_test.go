package strength_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"secutil/tools/strength"
)

// timingPasses is how many times BenchmarkStrength times each password.
const timingPasses = 7

// BenchmarkStrength estimates the reference corpus one password per op, so
// ns/op is the mean per password. It then times every password once per
// pass over the whole corpus, so that the tables are as cold as between the
// requests of a server, and reports the median and the 99th percentile over
// the passwords of each password's median time across timingPasses passes.
func BenchmarkStrength(b *testing.B) {
	rows := loadReference(b)
	strength.Estimate("warm up the embedded data")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		strength.Estimate(rows[i%len(rows)].password)
	}
	b.StopTimer()

	passes := make([][]time.Duration, timingPasses)
	for p := range passes {
		passes[p] = make([]time.Duration, len(rows))
		for k, row := range rows {
			start := time.Now()
			strength.Estimate(row.password)
			passes[p][k] = time.Since(start)
		}
	}
	perPassword := make([]time.Duration, len(rows))
	runs := make([]time.Duration, timingPasses)
	for k := range rows {
		for p := range passes {
			runs[p] = passes[p][k]
		}
		slices.Sort(runs)
		perPassword[k] = runs[timingPasses/2]
	}
	slices.Sort(perPassword)
	b.ReportMetric(float64(perPassword[len(rows)/2].Nanoseconds()), "p50-ns/pw")
	b.ReportMetric(float64(perPassword[len(rows)*99/100].Nanoseconds()), "p99-ns/pw")
}

func BenchmarkIsCommon(b *testing.B) {
	inputs := []string{"password", "PassWord", "x7#Kp!2q-unlikely", "dragon"}
	strength.IsCommon("warm up")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		strength.IsCommon(inputs[i%len(inputs)])
	}
}

// BenchmarkStrengthMaxLength bounds the cost of hostile input: passwords of
// MaxPasswordLength runes built to maximise matches.
func BenchmarkStrengthMaxLength(b *testing.B) {
	n := strength.MaxPasswordLength
	cases := []struct{ name, password, userInput string }{
		{"random", strings.Repeat("k8#Qz!2m@Lp0&v7R", n/16), ""},
		{"l33t", strings.Repeat("4@8({[<369!|170$5+7%2", n/21+1)[:n], ""},
		{"zeros+input", strings.Repeat("0", n), strings.Repeat("0", 19)},
		{"words", strings.Repeat("password", n/8), "password"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			strength.Estimate("warm up")
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				strength.Estimate(c.password, c.userInput)
			}
		})
	}
}
