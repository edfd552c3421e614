package cmd

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secutil/tools/audit"
)

// auditDump has every finding of the audit at least once; the comment
// after each line says what the command must report.
var auditDump = strings.Join([]string{
	"[*] Dumping Domain Credentials (domain\\uid:rid:lmhash:nthash)",
	`CORP\Administrator:500:` + emptyLM + ":" + hexNT("Summer2024!") + "::: (status=Enabled)", // 2: breached 12, found in the index
	`CORP\Guest:501:` + emptyLM + ":" + hexNT("") + "::: (status=Disabled)",                   // 3: empty password, breached 3
	`CORP\alice:1104:` + realLM + ":" + hexNT("password") + ":::",                             // 4: LM, common, breached, shared
	`CORP\bob:1105:` + emptyLM + ":" + hexNT("password") + ":::",                              // 5: common, breached, shared
	`CORP\carol:1106:` + emptyLM + ":" + hexNT("Carol") + ":::",                               // 6: same as the user name
	`CORP\WS01$:1107:` + emptyLM + ":" + hexNT("ws01") + ":::",                                // 7: default computer password
	"this line is no credential",                                                              // 8: refused
	"frank:" + hexSHA1("password"),                                                            // 9: SHA-1: breached from -breach-file, common
	"root:$1$28772684$iEwNOgGugqO9.bIz5sk8k/:15000:0:99999:7:::",                              // 10: weak md5crypt
	"daemon:*:19000:0:99999:7:::",                                                             // 11: locked
	"grace:" + hexSHA1("Summer2024!"),                                                         // 12: SHA-1 found in the index
}, "\n") + "\n"

// auditFiles writes the dump, an NTLM breach file and an index holding
// "Summer2024!", and returns their paths.
func auditFiles(t *testing.T) (dumpPath, ntlm, index string) {
	t.Helper()
	dir := t.TempDir()
	dumpPath = filepath.Join(dir, "ntds.txt")
	ntlm = filepath.Join(dir, "pwned-ntlm.txt")
	lines := []string{
		strings.ToUpper(hexNT("password")) + ":9545824",
		strings.ToUpper(hexNT("Summer2024!")) + ":12",
		strings.ToUpper(hexNT("")) + ":3",
	}
	slices.Sort(lines)
	for path, text := range map[string]string{dumpPath: auditDump, ntlm: strings.Join(lines, "\r\n") + "\r\n"} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	index = filepath.Join(dir, "s-hashes.db")
	mustCLI(t, "", "Summer2024!\n", "import-wordlist", "-hash-db", index, "-")
	return dumpPath, ntlm, index
}

// TestAuditJSON: one object per account (and per refused line) in the
// order of the dump, then the summary; the counts come from the breach
// files of -breach-file-ntlm and -breach-file, the plaintexts from the
// index and the embedded common-password list.
func TestAuditJSON(t *testing.T) {
	t.Parallel()
	dumpPath, ntlm, index := auditFiles(t)
	out, errOut, err := cli(t, "", "", nil, "audit", "-format", "json", "-breach-file-ntlm", ntlm, "-breach-file", breachFixturePath, "-hash-db", index, dumpPath)
	if err == nil || err.Error() != "1 line of the dump refused: no pwdump, secretsdump, user:hash or shadow line" {
		t.Errorf("error %v", err)
	}
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}
	type account struct {
		Line                    int     `json:"line"`
		Account                 string  `json:"account"`
		Error                   string  `json:"error"`
		EmptyPassword           bool    `json:"empty_password"`
		LMPresent               bool    `json:"lm_present"`
		Breached                *int64  `json:"breached"`
		FoundIn                 *string `json:"found_in"`
		Plaintext               string  `json:"plaintext"`
		SameAsUsername          bool    `json:"same_as_username"`
		DefaultComputerPassword bool    `json:"default_computer_password"`
		SharedWith              int     `json:"shared_with"`
		WeakScheme              *string `json:"weak_scheme"`
		Locked                  bool    `json:"locked"`
		Summary                 *audit.Summary
	}
	var got []account
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var a account
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	found := func(a account) string {
		if a.FoundIn == nil {
			return "-"
		}
		return *a.FoundIn
	}
	breached := func(a account) string {
		if a.Breached == nil {
			return "null"
		}
		return fmt.Sprint(*a.Breached)
	}
	want := []string{
		`2 CORP\Administrator breached 12 found index`,
		`3 CORP\Guest breached 3 found - empty`,
		`4 CORP\alice breached 9545824 found common lm shared 1`,
		`5 CORP\bob breached 9545824 found common shared 1`,
		`6 CORP\carol breached 0 found - =user`,
		`7 CORP\WS01$ breached 0 found - default`,
		`8 error not a pwdump, user:hash or shadow line`,
		`9 frank breached 424242 found common`,
		`10 root breached null found - weak md5crypt`,
		`11 daemon breached null found - locked`,
		`12 grace breached 0 found index`,
		`0 summary`,
	}
	var lines []string
	for _, a := range got {
		var s string
		switch {
		case a.Summary != nil:
			s = "0 summary"
		case a.Error != "":
			s = fmt.Sprintf("%d error %s", a.Line, a.Error)
		default:
			s = fmt.Sprintf("%d %s breached %s found %s", a.Line, a.Account, breached(a), found(a))
			for _, f := range []struct {
				on   bool
				name string
			}{{a.EmptyPassword, "empty"}, {a.LMPresent, "lm"}, {a.SameAsUsername, "=user"}, {a.DefaultComputerPassword, "default"},
				{a.SharedWith > 0, fmt.Sprintf("shared %d", a.SharedWith)}, {a.WeakScheme != nil, "weak md5crypt"}, {a.Locked, "locked"}} {
				if f.on {
					s += " " + f.name
				}
			}
		}
		if a.Plaintext != "" {
			t.Errorf("line %d: a plaintext without -show-plaintext", a.Line)
		}
		lines = append(lines, s)
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if s := got[len(got)-1].Summary; s == nil || s.Accounts != 10 || s.RefusedLines != 1 || *s.Breached != 5 || s.FoundIn != (audit.FoundCounts{Index: 2, Common: 3}) {
		t.Errorf("summary %+v", s)
	}
}

// TestAuditText: the summary first, as Test-PasswordQuality prints it,
// then the table; the refused line is named on standard error; no
// plaintext unless -show-plaintext.
func TestAuditText(t *testing.T) {
	t.Parallel()
	dumpPath, ntlm, index := auditFiles(t)
	out, errOut, _ := cli(t, "", "", map[string]string{"SECUTIL_BREACH_FILE_NTLM": ntlm, "SECUTIL_HASH_DB": index}, "audit", dumpPath)
	if !strings.HasPrefix(out, "Password audit of 10 accounts (1 line refused)\n\n  Empty password                              1\n") {
		t.Errorf("text starts\n%.200s", out)
	}
	summary, table, ok := strings.Cut(out, "\nLINE  ACCOUNT ")
	if !ok || !strings.Contains(summary, "  Breached                                    4\n") ||
		!strings.Contains(summary, "  Found in the reverse-lookup index           2\n") || !strings.Contains(summary, `  2 accounts: CORP\alice, CORP\bob`) ||
		strings.Count(table, "\n") != 11 {
		t.Errorf("summary then table:\n%s", out)
	}
	if errOut != "secutil audit: line 8: not a pwdump, user:hash or shadow line\n" {
		t.Errorf("stderr %q", errOut)
	}
	for _, secret := range []string{"Summer2024!", "PLAINTEXT"} {
		if strings.Contains(out, secret) {
			t.Errorf("the text holds %q", secret)
		}
	}
	shown, _, _ := cli(t, "", "", map[string]string{"SECUTIL_BREACH_FILE_NTLM": ntlm, "SECUTIL_HASH_DB": index}, "audit", "-show-plaintext", dumpPath)
	if !strings.Contains(shown, "Summer2024!") || !strings.Contains(shown, "PLAINTEXT") {
		t.Errorf("-show-plaintext shows no plaintext:\n%s", shown)
	}
}

// TestAuditCSV: the report's CSV, the plaintext a last column with
// -show-plaintext only; without a breach file or an index, the counts are
// empty and stderr says what is missing.
func TestAuditCSV(t *testing.T) {
	t.Parallel()
	dumpPath, _, _ := auditFiles(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	out, errOut, _ := cli(t, "", "", nil, "audit", "-format", "csv", "-hash-db", missing, dumpPath)
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 11 || records[0][7] != "breached" || records[1][7] != "" || records[3][8] != "common" || slices.Contains(records[0], "plaintext") {
		t.Errorf("csv %q", records)
	}
	for _, want := range []string{"no breach counts for NT hashes: give -breach-file-ntlm", "no reverse hash lookup index at " + missing} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("audit created an index")
	}
	out, _, _ = cli(t, "", "", nil, "audit", "-format", "csv", "-show-plaintext", "-hash-db", missing, dumpPath)
	if records, _ := csv.NewReader(strings.NewReader(out)).ReadAll(); records[0][len(records[0])-1] != "plaintext" || records[3][len(records[3])-1] != "password" {
		t.Errorf("csv with plaintexts %q", records)
	}
}

// TestAuditHex32: -hex32 md5 reads user:32-hex lines as MD5.
func TestAuditHex32(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none.db")
	for _, c := range []struct{ hex32, alg string }{{"ntlm", "ntlm"}, {"md5", "md5"}} {
		out, _, err := cli(t, "", "eve:"+hexMD5("password")+"\n", nil, "audit", "-format", "csv", "-hex32", c.hex32, "-hash-db", missing, "-")
		records, _ := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(records) != 2 || records[1][3] != c.alg {
			t.Errorf("-hex32 %s: %v %q", c.hex32, err, records)
		}
	}
	if _, _, err := cli(t, "", "", nil, "audit", "-hex32", "sha1", "-"); !errors.Is(err, ErrUsage) {
		t.Errorf("-hex32 sha1: %v", err)
	}
}

// TestAuditInterrupted: an interrupt while the dump is read audits the
// accounts read before it, and says so.
func TestAuditInterrupted(t *testing.T) {
	t.Parallel()
	var dump strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&dump, "user%d:%s\n", i, hexNT(fmt.Sprint("pw", i%7)))
	}
	r, ctx := newInterruptingReader(t, dump.String())
	var out, errOut strings.Builder
	missing := filepath.Join(t.TempDir(), "none.db")
	err := run(ctx, []string{"secutil", "audit", "-format", "csv", "-hash-db", missing, "-"}, env(nil), r, &out, &errOut)
	if err == nil || !strings.HasPrefix(err.Error(), "interrupted: the accounts up to line ") {
		t.Fatalf("error %v", err)
	}
	var last int
	fmt.Sscanf(strings.TrimPrefix(err.Error(), "interrupted: the accounts up to line "), "%d", &last)
	records, _ := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if last < 4096 || len(records) != last+1 || records[last][1] != fmt.Sprint("user", last-1) {
		t.Errorf("interrupted at line %d, %d records", last, len(records))
	}
}

// TestInterruptibleReader: an interrupt ends a Read that waits for input,
// after the last whole line; without one, every byte is read.
func TestInterruptibleReader(t *testing.T) {
	t.Parallel()
	src, ctx := newInterruptingReader(t, "alice:1\nbob:2\ncar")
	r := newInterruptibleReader(ctx, src)
	defer r.stop()
	got, err := io.ReadAll(r)
	if string(got) != "alice:1\nbob:2\n" || !errors.Is(err, errReadInterrupted) {
		t.Errorf("read %q, %v", got, err)
	}
	whole := strings.Repeat("x", 100<<10) + "\nlast line without end"
	r = newInterruptibleReader(context.Background(), strings.NewReader(whole))
	defer r.stop()
	if got, err := io.ReadAll(r); string(got) != whole || err != nil || r.read != int64(len(whole)) {
		t.Errorf("read %d bytes of %d, %v", len(got), len(whole), err)
	}
}
