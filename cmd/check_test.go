package cmd

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/tools/passcheck"
)

// checkInput holds breached, common, strong, blank, not UTF-8 and too
// long lines.
var checkInput = strings.Join([]string{
	"password",                 // 1: common, breached 424242
	"Tr0ub4dor&3",              // 2: breached 31
	"",                         // 3: blank, skipped
	cmdtest.BreachedPassphrase, // 4: strong, breached 12
	"k8#Jq!vZ2m-weasel-ORBIT",  // 5: strong, not breached
	"caf\xe9",                  // 6: Latin-1, not UTF-8: refused
	strings.Repeat("x", 300),   // 7: too long: refused
	"secret ",                  // 8: its trailing space is part of it
}, "\n") + "\n"

// checkPasswords are the passwords of checkInput by line.
var checkPasswords = map[int]string{1: "password", 2: "Tr0ub4dor&3", 4: cmdtest.BreachedPassphrase, 5: "k8#Jq!vZ2m-weasel-ORBIT", 8: "secret "}

// TestCheckJSON: one object per line, the API's rating of the password
// (passcheck.Check) with the count of the breach file of -breach-file; the
// refused lines say why; no password is written.
func TestCheckJSON(t *testing.T) {
	t.Parallel()
	out, _, err := cli(t, "", checkInput, nil, "check", "-format", "json", "-breach-file", breachFixturePath)
	if err == nil || err.Error() != "2 of 7 lines are refused (too long, or not UTF-8)" {
		t.Errorf("error %v", err)
	}
	breached := map[int]int64{1: 424242, 2: 31, 4: 12, 5: 0, 8: 0}
	sc := bufio.NewScanner(strings.NewReader(out))
	for _, n := range []int{1, 2, 4, 5, 6, 7, 8} {
		if !sc.Scan() {
			t.Fatalf("no object for line %d", n)
		}
		var want any
		switch n {
		case 6:
			want = lineError{6, "not valid UTF-8: not rated"}
		case 7:
			want = lineError{7, "longer than 256 characters: not rated"}
		default:
			r, _ := passcheck.Check(checkPasswords[n])
			count := breached[n]
			r.Breached = &count
			want = checkedLine{Number: n, Result: r}
		}
		w, _ := json.Marshal(want)
		if sc.Text() != string(w) {
			t.Errorf("line %d:\n got %s\nwant %s", n, sc.Text(), w)
		}
	}
	for _, p := range checkPasswords {
		if strings.Contains(out, p) {
			t.Errorf("the output holds the password %q", p)
		}
	}
}

// TestCheckText: aligned columns, and without a breach file the counts
// are said to be not configured.
func TestCheckText(t *testing.T) {
	t.Parallel()
	out, errOut, _ := cli(t, "", "password\nk8#Jq!vZ2m-weasel-ORBIT\n\xff\n", nil, "check")
	want := "   LINE  SCORE  LABEL        ENTROPY  COMMON  BREACHED\n" +
		"      1      0  very weak      37.60  yes            -\n" +
		"      2      4  very strong   151.11  no             -\n" +
		"      3  error: not valid UTF-8: not rated\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(errOut, "breached counts not configured: give -breach-file") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestCheckShowPassword: the passwords are written only when asked.
func TestCheckShowPassword(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json", "csv"} {
		out, _, _ := cli(t, "", checkInput, nil, "check", "-format", format, "-show-password")
		for _, p := range checkPasswords {
			if !strings.Contains(out, strings.TrimSpace(p)) {
				t.Errorf("%s: the output lacks %q:\n%s", format, p, out)
			}
		}
	}
	out, _, _ := cli(t, "", "password\n", nil, "check", "-format", "csv", "-show-password")
	if records, _ := csv.NewReader(strings.NewReader(out)).ReadAll(); len(records) != 2 || records[1][6] != "password" {
		t.Errorf("csv %q", records)
	}
}

// TestCheckMinScore: a password below -min-score fails the exit status and
// is marked on its line; the bound is 0 to 4.
func TestCheckMinScore(t *testing.T) {
	t.Parallel()
	strong := "k8#Jq!vZ2m-weasel-ORBIT\n"
	if _, _, err := cli(t, "", strong, nil, "check", "-min-score", "3"); err != nil {
		t.Errorf("a strong password: %v", err)
	}
	out, _, err := cli(t, "", strong+"password\n", nil, "check", "-min-score", "3")
	if err == nil || err.Error() != "1 of 2 lines score below -min-score 3 or are refused (too long, or not UTF-8)" {
		t.Errorf("a weak password: %v", err)
	}
	if !strings.Contains(out, "(below -min-score 3)") {
		t.Errorf("output %q", out)
	}
	for _, bad := range []string{"-1", "5", "x"} {
		if _, _, err := cli(t, "", strong, nil, "check", "-min-score", bad); !errors.Is(err, ErrUsage) {
			t.Errorf("-min-score %s: %v", bad, err)
		}
	}
}

// TestCheckBreachFileFromEnvironment: SECUTIL_BREACH_FILE, serve's
// variable, names the breach file; a file that is none fails before any
// line.
func TestCheckBreachFileFromEnvironment(t *testing.T) {
	t.Parallel()
	out, errOut, err := cli(t, "", "password\n", map[string]string{"SECUTIL_BREACH_FILE": breachFixturePath}, "check", "-format", "csv")
	if err != nil || !strings.Contains(out, "\n1,0,very weak,37.60,true,424242,\n") || errOut != "" {
		t.Errorf("%v\n%s%s", err, out, errOut)
	}
	if _, _, err := cli(t, "", "password\n", nil, "check", "-breach-file", wordlistPath); err == nil || !strings.Contains(err.Error(), "-breach-file") {
		t.Errorf("a wordlist as breach file: %v", err)
	}
}

// TestCheckManyPasswords rates passwords over several chunks with every
// core, refused lines among them: each line's rating in input order.
func TestCheckManyPasswords(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	lines := 10_000
	for i := 1; i <= lines; i++ {
		if i%1000 == 0 {
			in.WriteString("\xff\n")
		} else {
			fmt.Fprintf(&in, "pass%d\n", i%50)
		}
	}
	var out strings.Builder
	err := run(context.Background(), []string{"secutil", "check", "-format", "json", "-show-password"}, env(nil), strings.NewReader(in.String()), &out, &strings.Builder{})
	if err == nil || err.Error() != "10 of 10000 lines are refused (too long, or not UTF-8)" {
		t.Errorf("error %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	line := 0
	for sc.Scan() {
		line++
		var got checkedLine
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if line%1000 == 0 {
			if want := fmt.Sprintf(`{"line":%d,"error":"not valid UTF-8: not rated"}`, line); sc.Text() != want {
				t.Fatalf("line %d: %s, want %s", line, sc.Text(), want)
			}
			continue
		}
		want, _ := passcheck.Check(got.Password)
		if got.Number != line || got.Password != fmt.Sprintf("pass%d", line%50) || got.Result != want {
			t.Fatalf("line %d: %s", line, sc.Text())
		}
	}
	if line != lines {
		t.Errorf("%d lines, want %d", line, lines)
	}
}

// TestCheckRepeatedPasswords: a password met again in the chunk, refused
// ones too, gets the same answer as where it was first met, breach count
// included.
func TestCheckRepeatedPasswords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	in := strings.Join([]string{"password", "Tr0ub4dor&3", "caf\xe9", long, "password", "caf\xe9", long, "Tr0ub4dor&3"}, "\n") + "\n"
	out, _, err := cli(t, "", in, nil, "check", "-format", "json", "-breach-file", breachFixturePath)
	if err == nil || err.Error() != "4 of 8 lines are refused (too long, or not UTF-8)" {
		t.Errorf("error %v", err)
	}
	objects := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(objects) != 8 {
		t.Fatalf("%d objects, want 8:\n%s", len(objects), out)
	}
	for k, first := range []int{0, 1, 2, 3, 0, 2, 3, 1} {
		want := strings.Replace(objects[first], fmt.Sprintf(`"line":%d,`, first+1), fmt.Sprintf(`"line":%d,`, k+1), 1)
		if objects[k] != want {
			t.Errorf("line %d: %s, want %s", k+1, objects[k], want)
		}
	}
	if !strings.Contains(objects[4], `"breached":424242`) {
		t.Errorf("line 5: %s, want the breach count of line 1", objects[4])
	}
}
