package cmd

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"secutil/tools/hashid"
)

const (
	ntPassword = "8846f7eaee8fb117ad06bdd830b7586c" // NT hash of "password"
	emptyLM    = "aad3b435b51404eeaad3b435b51404ee"
	realLM     = "e52cac67419a9a224a3b108f3fa6cb6d" // LM hash of "password"
)

// hashLines is a file of hashes with every whole-line format; the second
// element is what the text output shows on its line, C.CC standing for the
// best candidate's confidence (hashid's to tune).
var hashLines = [][2]string{
	{"5f4dcc3b5aa765d61d8327deb882cf99", "MD5                                   0  raw-md5           C.CC  5f4dcc3b5aa765d61d8327deb882cf99"},
	{emptyLM + ":" + ntPassword, "NTLM                               1000  nt                C.CC  " + ntPassword + " (lm:nt, empty LM)"},
	{realLM + ":" + ntPassword, "NTLM                               1000  nt                C.CC  " + ntPassword + " (lm:nt, LM hash present, hashcat -m 3000)"},
	{`CORP\alice:1104:` + emptyLM + ":" + ntPassword + "::: (status=Enabled)", "NTLM                               1000  nt                C.CC  " + ntPassword + ` (pwdump, user CORP\alice, empty LM)`},
	{"", ""}, // blank: skipped, counted
	{"alice:5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", "SHA-1                               100  raw-sha1          C.CC  5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8 (user:hash, user alice)"},
	{"root:$1$28772684$iEwNOgGugqO9.bIz5sk8k/:15000:0:99999:7:::", "md5crypt                            500  md5crypt          C.CC  $1$28772684$iEwNOgGugqO9.bIz5sk8k/ (shadow, user root)"},
	{"correct horse battery staple", "not a hash: text with spaces          -  -                    -  correct horse battery staple"},
}

func hashFile(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, l := range hashLines {
		b.WriteString(l[0] + "\r\n")
	}
	path := filepath.Join(t.TempDir(), "hashes.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestIdentifyText: one aligned line per input line, with its number, the
// best candidate, hashcat mode, John format, confidence and the hash with
// how the line was read; the line without a hash fails the exit status.
func TestIdentifyText(t *testing.T) {
	t.Parallel()
	out, _, err := cli(t, "", "", nil, "identify", hashFile(t))
	if err == nil || err.Error() != "1 of 7 lines hold no hash identified" {
		t.Errorf("error %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if want := "   LINE  BEST CANDIDATE                  HASHCAT  JOHN              CONF  HASH"; lines[0] != want {
		t.Errorf("header\n%q, want\n%q", lines[0], want)
	}
	k := 1
	for n, l := range hashLines {
		if l[0] == "" {
			continue
		}
		want := string(appendLineNumber(nil, n+1)) + "  " + l[1]
		if line := hashid.IdentifyLine(l[0]); identified(line) {
			want = strings.Replace(want, "C.CC", strconv.FormatFloat(line.Candidates[0].Confidence, 'f', 2, 64), 1)
		}
		if lines[k] != want {
			t.Errorf("line %d:\n got %q\nwant %q", n+1, lines[k], want)
		}
		k++
	}
	if len(lines) != k {
		t.Errorf("%d lines, want %d", len(lines), k)
	}
}

// TestIdentifyJSON: one object per line, /hash_identifier's answer for the
// line (hashid.IdentifyLine) with the line's number.
func TestIdentifyJSON(t *testing.T) {
	t.Parallel()
	out, _, _ := cli(t, "", "", nil, "identify", "-format", "json", hashFile(t))
	sc := bufio.NewScanner(strings.NewReader(out))
	for n, l := range hashLines {
		if l[0] == "" {
			continue
		}
		if !sc.Scan() {
			t.Fatalf("no object for line %d", n+1)
		}
		var got map[string]any
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got["line"] != float64(n+1) {
			t.Errorf("line %d: numbered %v", n+1, got["line"])
		}
		delete(got, "line")
		want, _ := json.Marshal(hashid.IdentifyLine(l[0]))
		gotJSON, _ := json.Marshal(got)
		var wantMap map[string]any
		json.Unmarshal(want, &wantMap)
		wantJSON, _ := json.Marshal(wantMap)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("line %d:\n got %s\nwant %s", n+1, gotJSON, wantJSON)
		}
	}
	if sc.Scan() {
		t.Errorf("an extra line: %s", sc.Text())
	}
}

func TestIdentifyCSV(t *testing.T) {
	t.Parallel()
	out, _, _ := cli(t, "", "", nil, "identify", "-format", "csv", hashFile(t))
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(records[0], ",") != strings.Join(identifyCSVHeader, ",") || len(records) != 8 {
		t.Fatalf("%d records, header %q", len(records), records[0])
	}
	pwdump := records[4]
	if pwdump[0] != "4" || pwdump[1] != "pwdump" || pwdump[2] != `CORP\alice` || pwdump[5] != "1000" || pwdump[8] != "empty LM" ||
		pwdump[9] != "hashcat -m 1000 hash.txt wordlist.txt" {
		t.Errorf("pwdump line: %q", pwdump)
	}
}

// TestIdentifyInput: standard input with - or without an argument, and
// the usage errors.
func TestIdentifyInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"identify"}, {"identify", "-"}} {
		out, _, err := cli(t, "", ntPassword+"\n", nil, args...)
		if err != nil || !strings.Contains(out, "      1  MD5 ") {
			t.Errorf("%q: %v\n%s", args, err, out)
		}
	}
	for _, args := range [][]string{{"identify", "a", "b"}, {"identify", "-format", "xml"}} {
		if _, _, err := cli(t, "", "", nil, args...); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	if _, _, err := cli(t, "", "", nil, "identify", filepath.Join(t.TempDir(), "missing")); err == nil || errors.Is(err, ErrUsage) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestIdentifyLongLine: a line longer than hashid reads is reported on its
// line, and the next is identified.
func TestIdentifyLongLine(t *testing.T) {
	t.Parallel()
	out, _, err := cli(t, "", strings.Repeat("a", hashid.MaxInputBytes+1)+"\n"+ntPassword+"\n", nil, "identify", "-format", "json")
	if err == nil {
		t.Error("no error for a line too long")
	}
	lines := strings.Split(out, "\n")
	if lines[0] != `{"line":1,"error":"line longer than 1 MiB: not read"}` || !strings.HasPrefix(lines[1], `{"line":2,"layout":"hash"`) {
		t.Errorf("output %.300q", out)
	}
}

// TestIdentifyInterrupted: an interrupt writes every line read before it,
// then says where it stopped.
func TestIdentifyInterrupted(t *testing.T) {
	t.Parallel()
	r, ctx := newInterruptingReader(t, strings.Repeat(ntPassword+"\n", 3000))
	var out strings.Builder
	err := run(ctx, []string{"secutil", "identify", "-format", "csv"}, env(nil), r, &out, &strings.Builder{})
	if err == nil || err.Error() != "interrupted: the lines up to line 2048 are written" {
		t.Errorf("error %v", err)
	}
	records, _ := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if len(records) != 2049 || records[2048][0] != strconv.Itoa(2048) {
		t.Errorf("%d records", len(records))
	}
}

// TestIdentifyEveryLine identifies a file of many chunks with every core:
// each line's answer is the one IdentifyLine gives, in input order.
func TestIdentifyEveryLine(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	var want []string
	for n := range 5000 {
		l := hashLines[n%len(hashLines)][0]
		in.WriteString(l + "\n")
		if l != "" {
			want = append(want, strconv.Itoa(n+1)+","+hashid.IdentifyLine(l).Estimate)
		}
	}
	var out strings.Builder
	run(context.Background(), []string{"secutil", "identify", "-format", "csv"}, env(nil), strings.NewReader(in.String()), &out, &strings.Builder{})
	records, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != len(want)+1 {
		t.Fatalf("%d records, want %d", len(records), len(want)+1)
	}
	for i, w := range want {
		if got := records[i+1][0] + "," + records[i+1][4]; got != w {
			t.Fatalf("record %d: %q, want %q", i+1, got, w)
		}
	}
}

// TestAppendConfidence: a confidence is written as strconv writes it with
// two decimals, every hundredth from 0 to 1 and values between.
func TestAppendConfidence(t *testing.T) {
	t.Parallel()
	values := []float64{0.125, 0.005, 1.0 / 3, -0.01, 1.5, 1e-9}
	for k := range 101 {
		values = append(values, float64(k)/100, math.Round(100*(float64(k)/100+1e-4))/100)
	}
	for _, c := range values {
		if got, want := string(appendConfidence(nil, c)), strconv.FormatFloat(c, 'f', 2, 64); got != want {
			t.Errorf("%v: %q, want %q", c, got, want)
		}
	}
}

// TestIdentifyTextOfBest: the text and CSV of a line, rendered from
// IdentifyBest, are those rendered from the whole answer.
func TestIdentifyTextOfBest(t *testing.T) {
	t.Parallel()
	var full, best hashid.LineIdentifier
	for n, l := range hashLines {
		whole, top := full.Identify(l[0]), best.IdentifyBest(l[0])
		if got, want := string(appendIdentifyText(nil, n, top)), string(appendIdentifyText(nil, n, whole)); got != want {
			t.Errorf("text of %q:\n%s\nwant\n%s", l[0], got, want)
		}
		if got, want := identifyCSVRow(n, top), identifyCSVRow(n, whole); !slices.Equal(got, want) {
			t.Errorf("CSV of %q: %q, want %q", l[0], got, want)
		}
	}
}
