package hashid

import "testing"

// FixtureExamples are the example strings of every hashcat mode and real
// tool (fixture_test.go), for the tests of package hashid_test.
func FixtureExamples(t testing.TB) []string {
	var out []string
	for _, ex := range hashcatExamples(t) {
		out = append(out, ex.example)
	}
	for _, ex := range realTools(t) {
		out = append(out, ex.example)
	}
	return out
}
