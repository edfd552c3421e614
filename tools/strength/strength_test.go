package strength_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"secutil/tools/strength"
)

func patterns(r strength.Result) string {
	var ps []string
	for _, m := range r.Sequence {
		p := m.Pattern
		if m.L33t {
			p += "+l33t"
		}
		if m.Reversed {
			p += "+reversed"
		}
		if m.Graph != "" {
			p += "/" + m.Graph
		}
		if m.DictionaryName != "" {
			p += "/" + m.DictionaryName
		}
		ps = append(ps, p)
	}
	return strings.Join(ps, " ")
}

// Expected guesses and scores are those of npm zxcvbn 4.4.2 (ReferenceYear 2026).
func TestEstimatePatterns(t *testing.T) {
	tests := []struct {
		name, password string
		userInputs     []string
		patterns       string
		guesses        float64
		score          int
	}{
		{"top password", "password", nil, "dictionary/passwords", 3, 0},
		{"capitalised", "Password", nil, "dictionary/passwords", 5, 0},
		{"all caps", "PASSWORD", nil, "dictionary/passwords", 5, 0},
		{"surname", "reilly", nil, "dictionary/surnames", 780, 0},
		{"words", "thereisnoway", nil, "dictionary/english_wikipedia dictionary/english_wikipedia dictionary/passwords", 174790000, 3},
		{"mixed case words", "MiXeDcAsE", nil, "dictionary/english_wikipedia dictionary/us_tv_and_film", 90489700, 2},
		{"reversed", "drowssap", nil, "dictionary+reversed/passwords", 5, 0},
		{"reversed walk", "kjhgfdsa", nil, "dictionary+reversed/passwords", 615, 0},
		{"l33t", "p4ssw0rd", nil, "dictionary+l33t/passwords", 9, 0},
		{"l33t symbols", "P@$$w0rd", nil, "dictionary+l33t/passwords", 33, 0},
		{"l33t word", "n0ted", nil, "dictionary+l33t/english_wikipedia", 1333, 1},
		{"spatial row", "asdfghjkl;", nil, "spatial/qwerty", 3889.0000000000005, 1},
		{"spatial shifted", "!@#$%^&*", nil, "spatial/qwerty", 6049.000000000001, 1},
		{"spatial shifted caps", "QWERTYUIOP{}", nil, "spatial/qwerty", 9505.000000000002, 1},
		{"dvorak", "aoeuidhtns", nil, "spatial/dvorak", 3889.0000000000005, 1},
		{"keypad", "2025", nil, "spatial/keypad", 2154.333333333333, 1},
		{"sequence", "abcdefg", nil, "sequence", 29, 0},
		{"descending upper", "ZYXWV", nil, "sequence", 41, 0},
		{"odd digits", "13579", nil, "sequence", 21, 0},
		{"descending digits", "9876543", nil, "sequence", 57, 0},
		{"repeat char", "aaaaaaa", nil, "repeat", 85, 0},
		{"repeat unit", "abcabcabc", nil, "repeat", 40, 0},
		{"repeat word", "fishfishfish", nil, "repeat", 1054, 1},
		{"recent year", "1994", nil, "regex", 33, 0},
		{"old year", "1955", nil, "regex", 72, 0},
		{"date separated", "1987-06-23", nil, "date", 56941, 1},
		{"date dotted", "31.12.1999", nil, "date", 39421, 1},
		{"date compact", "23061987", nil, "date", 14236, 1},
		{"date year first", "19911231", nil, "date", 12776, 1},
		{"bruteforce", "x7#Kp!2q", nil, "bruteforce", 100000001, 2},
		{"mixed", "Tr0ub4dour&3", nil, "dictionary+l33t/us_tv_and_film bruteforce", 19058000, 2},
		{"passphrase", "correct horse battery staple", nil,
			"dictionary/us_tv_and_film bruteforce dictionary/english_wikipedia bruteforce dictionary/english_wikipedia", 213811968952000000000, 4},
		{"without user input", "zorglub1985", nil, "dictionary/passwords regex", 1078000, 2},
		{"user input", "zorglub1985", []string{"Zorglub"}, "dictionary/user_inputs regex", 15000, 1},
		{"user input word", "mypasswordisamazon", []string{"Amazon"}, "dictionary/passwords dictionary/english_wikipedia dictionary/user_inputs", 157885000, 3},
		{"empty", "", nil, "", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := strength.Estimate(tt.password, tt.userInputs...)
			if got, want := patterns(r), tt.patterns; got != want {
				t.Errorf("patterns: got %q, want %q", got, want)
			}
			if got, want := r.Guesses, tt.guesses; got != want {
				t.Errorf("guesses: got %v, want %v", got, want)
			}
			if got, want := r.Score, tt.score; got != want {
				t.Errorf("score: got %v, want %v", got, want)
			}
		})
	}
}

func TestMatchDetails(t *testing.T) {
	tests := []struct {
		password string
		want     strength.Match // fields compared: those set below
	}{
		{"p4ssw0rd", strength.Match{Pattern: "dictionary", Token: "p4ssw0rd", I: 0, J: 7, MatchedWord: "password", Rank: 2, DictionaryName: "passwords", L33t: true, Sub: map[string]string{"4": "a", "0": "o"}}},
		{"drowssap", strength.Match{Pattern: "dictionary", Token: "drowssap", I: 0, J: 7, MatchedWord: "password", Rank: 2, DictionaryName: "passwords", Reversed: true}},
		{"zxcvfr", strength.Match{Pattern: "spatial", Token: "zxcvfr", I: 0, J: 5, Graph: "qwerty", Turns: 2}},
		{"hello!hello!", strength.Match{Pattern: "repeat", Token: "hello!hello!", I: 0, J: 11, BaseToken: "hello!", RepeatCount: 2}},
		{"13579", strength.Match{Pattern: "sequence", Token: "13579", I: 0, J: 4, SequenceName: "digits", Ascending: true}},
		{"1994", strength.Match{Pattern: "regex", Token: "1994", I: 0, J: 3, RegexName: "recent_year"}},
		{"31.12.1999", strength.Match{Pattern: "date", Token: "31.12.1999", I: 0, J: 9, Day: 31, Month: 12, Year: 1999, Separator: "."}},
		{"111504", strength.Match{Pattern: "date", Token: "111504", I: 0, J: 5, Day: 15, Month: 11, Year: 2004}},
	}
	for _, tt := range tests {
		r := strength.Estimate(tt.password)
		if len(r.Sequence) != 1 {
			t.Fatalf("%q: got sequence %v, want one match", tt.password, patterns(r))
		}
		got := r.Sequence[0]
		got.Guesses, got.GuessesLog10, got.BaseGuesses = 0, 0, 0
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.password, got, tt.want)
		}
	}
}

func TestFeedback(t *testing.T) {
	const addWord = "Add another word or two. Uncommon words are better."
	tests := []struct {
		password, warning string
		suggestions       []string
	}{
		{"password", "This is a top-10 common password", []string{addWord}},
		{"zxcvbnm", "This is a top-100 common password", []string{addWord}},
		{"xyzzy", "This is a very common password", []string{addWord}},
		{"Password", "This is a top-10 common password", []string{addWord, "Capitalization doesn't help very much"}},
		{"PASSWORD", "This is a top-10 common password", []string{addWord, "All-uppercase is almost as easy to guess as all-lowercase"}},
		{"p4ssw0rd", "This is similar to a commonly used password", []string{addWord, "Predictable substitutions like '@' instead of 'a' don't help very much"}},
		{"nogard", "This is similar to a commonly used password", []string{addWord, "Reversed words aren't much harder to guess"}},
		{"reilly", "Names and surnames by themselves are easy to guess", []string{addWord}},
		{"asdfghjkl;", "Straight rows of keys are easy to guess", []string{addWord, "Use a longer keyboard pattern with more turns"}},
		{"2025", "Short keyboard patterns are easy to guess", []string{addWord, "Use a longer keyboard pattern with more turns"}},
		{"zzzzzzzzzz", `Repeats like "aaa" are easy to guess`, []string{addWord, "Avoid repeated words and characters"}},
		{"abcabcabc", `Repeats like "abcabcabc" are only slightly harder to guess than "abc"`, []string{addWord, "Avoid repeated words and characters"}},
		{"abcdefg", "Sequences like abc or 6543 are easy to guess", []string{addWord, "Avoid sequences"}},
		{"2009", "Recent years are easy to guess", []string{addWord, "Avoid recent years", "Avoid years that are associated with you"}},
		{"31.12.1999", "Dates are often easy to guess", []string{addWord, "Avoid dates and years that are associated with you"}},
		{"RxG7uQ", "", []string{addWord}},
		{"", "", []string{"Use a few words, avoid common phrases", "No need for symbols, digits, or uppercase letters"}},
		{"correct horse battery staple", "", []string{}},
	}
	for _, tt := range tests {
		r := strength.Estimate(tt.password)
		if got, want := r.Warning, tt.warning; got != want {
			t.Errorf("%q warning: got %q, want %q", tt.password, got, want)
		}
		if got, want := r.Suggestions, tt.suggestions; !reflect.DeepEqual(got, want) {
			t.Errorf("%q suggestions: got %q, want %q", tt.password, got, want)
		}
	}
}

func TestResultFields(t *testing.T) {
	r := strength.Estimate("Tr0ub4dour&3")
	if got, want := r.Length, 12; got != want {
		t.Errorf("length: got %v, want %v", got, want)
	}
	if got, want := r.CharsetSize, 26+26+10+33; got != want {
		t.Errorf("charset: got %v, want %v", got, want)
	}
	if got, want := r.Entropy, 78.84; got != want {
		t.Errorf("entropy: got %v, want %v", got, want)
	}
	if got, want := r.Label, "fair"; got != want {
		t.Errorf("label: got %v, want %v", got, want)
	}
	if got, want := r.CrackTime, "32 minutes"; got != want { // 19058000 / 1e4 s
		t.Errorf("crack time: got %v, want %v", got, want)
	}
	if got, want := r.GuessesLog10, math.Log10(19058000); math.Abs(got-want) > 1e-12 {
		t.Errorf("log10: got %v, want %v", got, want)
	}
}

func TestOverlongPasswordIsBounded(t *testing.T) {
	long := strings.Repeat("a", strength.MaxPasswordLength) + "xyz"
	r := strength.Estimate(long)
	if got, want := r.Length, strength.MaxPasswordLength+3; got != want {
		t.Fatalf("length: got %v, want %v", got, want)
	}
	prefix := strength.Estimate(strings.Repeat("a", strength.MaxPasswordLength))
	if got, want := r.Guesses, prefix.Guesses*1000; got != want {
		t.Errorf("guesses: got %v, want %v", got, want)
	}
}

func TestUserInputsAreBounded(t *testing.T) {
	inputs := make([]string, strength.MaxUserInputs, strength.MaxUserInputs+1)
	for k := range inputs {
		inputs[k] = "filler"
	}
	inputs = append(inputs, "zorglub") // beyond the limit: ignored
	if got, want := strength.Estimate("zorglub1985", inputs...).Guesses, strength.Estimate("zorglub1985").Guesses; got != want {
		t.Errorf("guesses: got %v, want %v", got, want)
	}
	inputs[0] = "zorglub"
	if got, want := strength.Estimate("zorglub1985", inputs...).Guesses, 15000.0; got != want {
		t.Errorf("guesses with first input: got %v, want %v", got, want)
	}
}

func TestLabel(t *testing.T) {
	for score, want := range []string{"very weak", "weak", "fair", "strong", "very strong"} {
		if got := strength.Label(score); got != want {
			t.Errorf("Label(%d): got %q, want %q", score, got, want)
		}
	}
	if got := strength.Label(5); got != "" {
		t.Errorf("Label(5): got %q, want empty", got)
	}
}

func TestEntropy(t *testing.T) {
	tests := []struct {
		password string
		entropy  float64
		charset  int
	}{
		{"", 0, 0},
		{"abc", 14.1, 26},
		{"ABC", 14.1, 26},
		{"1234", 13.29, 10},
		{"!!", 10.09, 33},
		{" ", 5.04, 33},
		{"aB", 11.4, 52},
		{"aB3", 17.86, 62},
		{"aB3$", 26.28, 95},
		{"é", 6.64, 100},
		{"пароль1", 47.47, 110},
	}
	for _, tt := range tests {
		entropy, charset := strength.Entropy(tt.password)
		if entropy != tt.entropy || charset != tt.charset {
			t.Errorf("Entropy(%q): got %v, %v; want %v, %v", tt.password, entropy, charset, tt.entropy, tt.charset)
		}
	}
}

func TestBruteForceTime(t *testing.T) {
	tests := []struct{ password, want string }{
		{"", "less than a second"},
		{"abcdefgh", "10 seconds"},            // 26^8/2/1e10 = 10.4 s
		{"abcdefghij", "2 hours"},             // 26^10/2/1e10 = 7059 s
		{"Abcdefgh1!", "93 years"},            // 95^10/2/1e10 ≈ 3.0e9 s
		{"Abcdefgh1!Abcdefgh1!", "centuries"}, // 95^20
	}
	for _, tt := range tests {
		if got := strength.BruteForceTime(tt.password); got != tt.want {
			t.Errorf("BruteForceTime(%q): got %q, want %q", tt.password, got, tt.want)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	tests := []struct {
		seconds float64
		want    string
	}{
		{math.NaN(), "less than a second"},
		{-1, "less than a second"},
		{0.99, "less than a second"},
		{1, "1 second"},
		{1.4, "1 second"},
		{59, "59 seconds"},
		{59.6, "60 seconds"},
		{60, "1 minute"},
		{3599, "60 minutes"},
		{3600 * 3, "3 hours"},
		{86400, "1 day"},
		{86400 * 31, "1 month"},
		{86400 * 31 * 12, "1 year"},
		{86400 * 31 * 12 * 99, "99 years"},
		{86400 * 31 * 12 * 100, "centuries"},
		{math.Inf(1), "centuries"},
	}
	for _, tt := range tests {
		if got := strength.HumanDuration(tt.seconds); got != tt.want {
			t.Errorf("HumanDuration(%v): got %q, want %q", tt.seconds, got, tt.want)
		}
	}
}

func TestIsCommon(t *testing.T) {
	tests := []struct {
		password string
		want     bool
	}{
		{"password", true},
		{"PassWord", true},
		{"QWERTY", true},
		{"123456", true},
		{"", false},
		{"password ", false},
		{"x7#Kp!2q-unlikely", false},
	}
	for _, tt := range tests {
		if got := strength.IsCommon(tt.password); got != tt.want {
			t.Errorf("IsCommon(%q): got %v, want %v", tt.password, got, tt.want)
		}
	}
}

func TestCommonPasswords(t *testing.T) {
	list := strength.CommonPasswords()
	if got, want := len(list), 30000; got != want {
		t.Fatalf("len: got %v, want %v", got, want)
	}
	if got, want := list[0], "123456"; got != want {
		t.Errorf("first: got %q, want %q", got, want)
	}
	list[0] = "changed"
	if got := strength.CommonPasswords()[0]; got != "123456" {
		t.Errorf("CommonPasswords shares its slice: got %q", got)
	}
}

func FuzzEstimate(f *testing.F) {
	for _, s := range []string{"", "password", "P@$$w0rd1991", "13/05/1987", "aaaaabcabc", "qwerty!@#", "αβγδ", "\xff\xfe", "1\n1\n1", strings.Repeat("ab", 200)} {
		f.Add(s, "user")
	}
	f.Fuzz(func(t *testing.T, password, userInput string) {
		r := strength.Estimate(password, userInput)
		if r.Score < 0 || r.Score > 4 {
			t.Fatalf("score %d out of range", r.Score)
		}
		if !(r.Guesses >= 1) {
			t.Fatalf("guesses %v < 1", r.Guesses)
		}
		if got, want := r.Length, utf8.RuneCountInString(password); got != want {
			t.Fatalf("length: got %v, want %v", got, want)
		}
		if r.Suggestions == nil {
			t.Fatal("nil suggestions")
		}
		if r.Label != strength.Label(r.Score) {
			t.Fatalf("label %q for score %d", r.Label, r.Score)
		}
		// The sequence tiles the analysed runes, each match spelling its token.
		runes := []rune(password)
		next := 0
		for _, m := range r.Sequence {
			if m.I != next || m.J < m.I || m.J >= len(runes) || m.Token != string(runes[m.I:m.J+1]) || !(m.Guesses >= 1) {
				t.Fatalf("match %+v does not continue the sequence at %d", m, next)
			}
			next = m.J + 1
		}
		if want := min(len(runes), strength.MaxPasswordLength); next != want {
			t.Fatalf("sequence covers %d runes, want %d", next, want)
		}
	})
}
