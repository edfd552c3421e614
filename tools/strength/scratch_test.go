package strength

import (
	"strings"
	"testing"
)

// TestScratchPoolKeepsTypicalScratch checks the pool policy: the memory of
// a typical password's analysis is kept for reuse, that of a hostile
// maximal one is let go.
func TestScratchPoolKeepsTypicalScratch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		password string
		kept     bool
	}{
		{"P@ssw0rd1987", true},
		{"correct horse battery staple", true},
		{strings.Repeat("k8#Qz!2m@Lp0&v7R", 4), true},
		{strings.Repeat("4@8({[<369!|170$5+7%2", MaxPasswordLength/21+1)[:MaxPasswordLength], true}, // about 120 KB
		{strings.Repeat("a", MaxPasswordLength), false},                                             // about 500 KB
	}
	for _, tt := range tests {
		s := new(scratch)
		a := s.analysis([]rune(tt.password), nil)
		a.mostGuessableSequence(a.omnimatch())
		if got := s.bytes() <= maxPooledBytes; got != tt.kept {
			t.Errorf("%.30q: scratch of %d bytes kept %v, want %v", tt.password, s.bytes(), got, tt.kept)
		}
	}
}
