package audit_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"secutil/tools/audit"
	"secutil/tools/dump"
	"secutil/tools/hashgen"
)

func nt(password string) string { return hex.EncodeToString(hashgen.NTLM([]byte(password))) }

func sha1hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

const (
	emptyLM = "aad3b435b51404eeaad3b435b51404ee"
	realLM  = "e52cac67419a9a224a3b108f3fa6cb6d" // LM of "password"
)

// knownDump has every finding at least once; the comment after each line
// says what the audit must find.
var knownDump = strings.Join([]string{
	"Impacket v0.12.0 - Copyright Fortra, LLC and its affiliated companies",
	"[*] Dumping Domain Credentials (domain\\uid:rid:lmhash:nthash)",
	`CORP\Administrator:500:` + emptyLM + ":" + nt("Summer2024!") + "::: (status=Enabled)", // 3: found in the index
	`CORP\Guest:501:` + emptyLM + ":" + nt("") + "::: (status=Disabled)",                   // 4: empty password
	`CORP\alice:1104:` + realLM + ":" + nt("password") + "::: (status=Enabled)",            // 5: LM, common, breached, shared with bob
	`CORP\bob:1105:` + emptyLM + ":" + nt("password") + "::: (status=Enabled)",             // 6: common, breached, shared with alice
	`CORP\carol:1106:` + emptyLM + ":" + nt("Carol") + "::: (status=Enabled)",              // 7: same as the user name
	`CORP\WS01$:1107:` + emptyLM + ":" + nt("ws01") + "::: (status=Enabled)",               // 8: default computer password
	`CORP\LONGCOMPUTERNAME1$:1108:` + emptyLM + ":" + nt("longcomputerna") + ":::",         // 9: default, cut to 14
	`CORP\dave:1109:` + emptyLM + ":" + nt("k8#Jq!vZ2m") + ":::",                           // 10: nothing (breached 0)
	`CORP\alice_history0:1104:` + emptyLM + ":" + nt("password1") + ":::",                  // 11: history, left out
	"this line is no credential",                                  // 12: refused
	"frank:" + sha1hex("FRANK"),                                   // 13: same as the user name, SHA-1: breached null
	"root:$1$28772684$iEwNOgGugqO9.bIz5sk8k/:15000:0:99999:7:::",  // 14: weak md5crypt
	"old:rl0uE4XI1ofhI:10000:0:99999:7:::",                        // 15: weak descrypt
	"daemon:*:19000:0:99999:7:::",                                 // 16: locked
	"nopass::19000:0:99999:7:::",                                  // 17: empty (shadow)
	"copy1:$1$28772684$iEwNOgGugqO9.bIz5sk8k/:15000:0:99999:7:::", // 18: weak, shares root's hash
}, "\n")

// fakeBreach is an NTLM breach corpus that checks it is asked in ascending,
// distinct order across calls.
type fakeBreach struct {
	t      *testing.T
	counts map[string]int64
	last   []byte
	asked  int
	calls  int
	most   int // the largest batch
}

func (f *fakeBreach) lookup(_ context.Context, digests [][]byte) ([]int64, error) {
	f.calls, f.most = f.calls+1, max(f.most, len(digests))
	out := make([]int64, len(digests))
	for i, d := range digests {
		if f.last != nil && bytes.Compare(d, f.last) <= 0 {
			f.t.Errorf("breach lookup: %x after %x, not ascending", d, f.last)
		}
		f.last = append(f.last[:0], d...)
		out[i] = f.counts[hex.EncodeToString(d)]
		f.asked++
	}
	return out, nil
}

func index(_ context.Context, alg dump.Algorithm, digests [][]byte) ([]string, error) {
	out := make([]string, len(digests))
	for i, d := range digests {
		if alg == dump.NTLM && hex.EncodeToString(d) == nt("Summer2024!") {
			out[i] = "Summer2024!"
		}
		if alg == dump.NTLM && hex.EncodeToString(d) == nt("password") {
			out[i] = "password" // also common: the list answers first
		}
	}
	return out, nil
}

func runAudit(t *testing.T, text string, opt audit.Options) (*audit.Report, *fakeBreach) {
	t.Helper()
	a := audit.New(opt)
	sc := dump.NewScanner(strings.NewReader(text), dump.Options{})
	for sc.Scan() {
		if err := sc.LineErr(); err != nil {
			a.Refuse(err.(*dump.LineError))
			continue
		}
		if err := a.Add(sc.Record()); err != nil {
			t.Fatal(err)
		}
	}
	breach := &fakeBreach{t: t, counts: map[string]int64{nt("password"): 9545824, nt("Summer2024!"): 12, nt(""): 3}}
	rep, err := a.Report(context.Background(), audit.Sources{
		Breached: map[dump.Algorithm]audit.CountLookup{dump.NTLM: breach.lookup},
		Common:   audit.WordList([]string{"123456", "password", "qwerty"}),
		Index:    index,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep, breach
}

func ptr[T any](v T) *T { return &v }

// TestKnownDump: the audit of a dump whose findings are known finds each
// of them on its account, and nothing else.
func TestKnownDump(t *testing.T) {
	t.Parallel()
	rep, breach := runAudit(t, knownDump, audit.Options{LookupBatch: 3, BreachBatch: 2})
	none := ptr[int64](0)
	want := []audit.Account{
		{Line: 3, Account: `CORP\Administrator`, Format: "pwdump", Algorithm: "ntlm", Status: "Enabled", Breached: ptr[int64](12), FoundIn: ptr("index")},
		{Line: 4, Account: `CORP\Guest`, Format: "pwdump", Algorithm: "ntlm", Status: "Disabled", EmptyPassword: true, Breached: ptr[int64](3)},
		{Line: 5, Account: `CORP\alice`, Format: "pwdump", Algorithm: "ntlm", Status: "Enabled", LMPresent: true, Breached: ptr[int64](9545824), FoundIn: ptr("common"), SharedWith: 1},
		{Line: 6, Account: `CORP\bob`, Format: "pwdump", Algorithm: "ntlm", Status: "Enabled", Breached: ptr[int64](9545824), FoundIn: ptr("common"), SharedWith: 1},
		{Line: 7, Account: `CORP\carol`, Format: "pwdump", Algorithm: "ntlm", Status: "Enabled", Breached: none, SameAsUsername: true},
		{Line: 8, Account: `CORP\WS01$`, Format: "pwdump", Algorithm: "ntlm", Status: "Enabled", Breached: none, DefaultComputerPassword: true},
		{Line: 9, Account: `CORP\LONGCOMPUTERNAME1$`, Format: "pwdump", Algorithm: "ntlm", Breached: none, DefaultComputerPassword: true},
		{Line: 10, Account: `CORP\dave`, Format: "pwdump", Algorithm: "ntlm", Breached: none},
		{Line: 13, Account: "frank", Format: "user:hash", Algorithm: "sha1", SameAsUsername: true},
		{Line: 14, Account: "root", Format: "shadow", Algorithm: "md5crypt", WeakScheme: ptr("md5crypt"), SharedWith: 1},
		{Line: 15, Account: "old", Format: "shadow", Algorithm: "descrypt", WeakScheme: ptr("descrypt")},
		{Line: 16, Account: "daemon", Format: "shadow", Locked: true},
		{Line: 17, Account: "nopass", Format: "shadow", EmptyPassword: true},
		{Line: 18, Account: "copy1", Format: "shadow", Algorithm: "md5crypt", WeakScheme: ptr("md5crypt"), SharedWith: 1},
	}
	var got []audit.Account
	for acc := range rep.Accounts() {
		got = append(got, acc)
	}
	if len(got) != len(want) {
		t.Fatalf("%d accounts, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Errorf("line %d:\n got %s\nwant %s", want[i].Line, g, w)
		}
	}
	if breach.asked != 7 || breach.calls != 4 || breach.most != 2 {
		t.Errorf("the breach corpus was asked %d digests in %d calls of at most %d, want the 7 distinct NT hashes in batches of 2",
			breach.asked, breach.calls, breach.most)
	}
	s := rep.Summary()
	wantSummary := audit.Summary{
		Accounts: 14, RefusedLines: 1, HistorySkipped: 1, EmptyPassword: 2, LMPresent: 1, Breached: ptr(4),
		FoundIn: audit.FoundCounts{Index: 1, Common: 2}, SameAsUsername: 2, DefaultComputerPassword: 2, SharedWith: 4,
		SharedGroups: 2, WeakScheme: 3, Locked: 1,
		Groups: []audit.Group{{Count: 2, Accounts: []string{`CORP\alice`, `CORP\bob`}}, {Count: 2, Accounts: []string{"root", "copy1"}}},
		MostBreached: []audit.BreachedAccount{{Account: `CORP\alice`, Line: 5, Breached: 9545824}, {Account: `CORP\bob`, Line: 6, Breached: 9545824},
			{Account: `CORP\Administrator`, Line: 3, Breached: 12}, {Account: `CORP\Guest`, Line: 4, Breached: 3}},
	}
	if !reflect.DeepEqual(s, wantSummary) {
		g, _ := json.Marshal(s)
		w, _ := json.Marshal(wantSummary)
		t.Errorf("summary:\n got %s\nwant %s", g, w)
	}
	if r := rep.Refused(); len(r) != 1 || r[0].Line != 12 {
		t.Errorf("refused %+v", r)
	}
}

// TestJSON: the field names are the API's, null where the issue says, and
// no plaintext without ShowPlaintext.
func TestJSON(t *testing.T) {
	t.Parallel()
	rep, _ := runAudit(t, knownDump, audit.Options{})
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Accounts []map[string]any `json:"accounts"`
		Summary  map[string]any   `json:"summary"`
		Refused  []map[string]any `json:"refused"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	for _, k := range []string{"account", "format", "empty_password", "lm_present", "breached", "found_in", "same_as_username",
		"default_computer_password", "shared_with", "weak_scheme"} {
		if _, ok := doc.Accounts[0][k]; !ok {
			t.Errorf("account object has no %q: %v", k, doc.Accounts[0])
		}
	}
	frank := doc.Accounts[8]
	if frank["account"] != "frank" || frank["breached"] != nil || frank["found_in"] != nil || frank["weak_scheme"] != nil {
		t.Errorf("nulls: %v", frank)
	}
	if strings.Contains(buf.String(), "plaintext") || strings.Contains(buf.String(), "Summer2024!") {
		t.Error("a plaintext in the JSON without ShowPlaintext")
	}
	if doc.Summary["lm_present"] != 1.0 || doc.Summary["found_in"].(map[string]any)["index"] != 1.0 || len(doc.Refused) != 1 {
		t.Errorf("summary %v, refused %v", doc.Summary, doc.Refused)
	}

	shown, _ := runAudit(t, knownDump, audit.Options{ShowPlaintext: true})
	var acc audit.Account
	for a := range shown.Accounts() {
		acc = a
		break
	}
	if acc.Plaintext != "Summer2024!" {
		t.Errorf("ShowPlaintext: %+v", acc)
	}
}

// TestJSONLines: accounts and refused lines in the order of the dump, the
// summary last.
func TestJSONLines(t *testing.T) {
	t.Parallel()
	rep, _ := runAudit(t, knownDump, audit.Options{})
	var buf bytes.Buffer
	if err := rep.WriteJSONLines(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 16 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	var lineNos []int
	for _, l := range lines[:15] {
		var v struct{ Line int }
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		lineNos = append(lineNos, v.Line)
	}
	if want := []int{3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18}; !reflect.DeepEqual(lineNos, want) {
		t.Errorf("lines %v, want %v", lineNos, want)
	}
	if lines[8] != `{"line":12,"error":"not a pwdump, user:hash or shadow line"}` || !strings.HasPrefix(lines[15], `{"summary":{"accounts":14,`) {
		t.Errorf("refused line %s, last %s", lines[8], lines[15])
	}
}

// TestText: the summary first, then the groups and the most breached, then
// the table; control characters from the dump are not written.
func TestText(t *testing.T) {
	t.Parallel()
	rep, _ := runAudit(t, knownDump+"\nevil\x1b[2J:"+nt("x"), audit.Options{})
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	order := []string{"Password audit of 15 accounts (1 line refused, 1 history line left out)", "Empty password", "LM hash present",
		"Breached", "Sharing a hash with another account", "Accounts sharing one hash, largest group first:",
		`2 accounts: CORP\alice, CORP\bob`, "Most breached:", "LINE  ACCOUNT", `CORP\Administrator`}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q missing after offset %d:\n%s", s, at, out)
		}
		at += i
	}
	if strings.ContainsRune(out, '\x1b') || !strings.Contains(out, "evil?[2J") {
		t.Errorf("a control character written:\n%s", out)
	}
	if strings.Contains(out, "PLAINTEXT") || strings.Contains(out, "Summer2024!") {
		t.Error("plaintext written without ShowPlaintext")
	}
}

// TestCSV: a header of the JSON names, a row per account, formulas
// defused.
func TestCSV(t *testing.T) {
	t.Parallel()
	rep, _ := runAudit(t, knownDump+"\n=HYPERLINK(\"x\"):"+nt("y"), audit.Options{ShowPlaintext: true})
	var buf bytes.Buffer
	if err := rep.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 16 || strings.Join(rows[0], ",") != "line,account,format,algorithm,status,empty_password,lm_present,breached,found_in,same_as_username,default_computer_password,shared_with,weak_scheme,locked,plaintext" {
		t.Fatalf("rows %q", rows)
	}
	if got := strings.Join(rows[1], ","); got != `3,CORP\Administrator,pwdump,ntlm,Enabled,false,false,12,index,false,false,0,,false,Summer2024!` {
		t.Errorf("row 1: %s", got)
	}
	if got := rows[15][1]; got != `'=HYPERLINK("x")` {
		t.Errorf("formula cell %q", got)
	}
}

// TestNoSources: without lookups breached is null everywhere and nothing
// is found; what the records tell is still found.
func TestNoSources(t *testing.T) {
	t.Parallel()
	a := audit.New(audit.Options{})
	for _, line := range []string{"alice:" + nt("alice"), "bob:" + nt("alice"), "carl:" + nt("")} {
		rec, err := dump.ParseLine(line, dump.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a.Add(rec)
	}
	rep, err := a.Report(context.Background(), audit.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary()
	if s.Breached != nil || s.FoundIn != (audit.FoundCounts{}) || s.SameAsUsername != 1 || s.SharedWith != 2 || s.EmptyPassword != 1 {
		t.Errorf("summary %+v", s)
	}
	if err := a.Add(dump.Record{}); err == nil {
		t.Error("Add after Report: no error")
	}
}

// TestLookupErrors: a failing or short lookup fails the report; a
// cancelled context stops it.
func TestLookupErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for name, src := range map[string]audit.Sources{
		"failing":          {Breached: map[dump.Algorithm]audit.CountLookup{dump.NTLM: func(context.Context, [][]byte) ([]int64, error) { return nil, boom }}},
		"short":            {Breached: map[dump.Algorithm]audit.CountLookup{dump.NTLM: func(context.Context, [][]byte) ([]int64, error) { return []int64{}, nil }}},
		"short plaintexts": {Index: func(context.Context, dump.Algorithm, [][]byte) ([]string, error) { return nil, nil }},
	} {
		a := audit.New(audit.Options{})
		rec, _ := dump.ParseLine("alice:"+nt("x"), dump.Options{})
		a.Add(rec)
		if _, err := a.Report(context.Background(), src); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := audit.New(audit.Options{})
	rec, _ := dump.ParseLine("alice:"+nt("x"), dump.Options{})
	a.Add(rec)
	if _, err := a.Report(ctx, audit.Sources{Common: audit.WordList(nil)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestProgress: the progress hook reaches the total.
func TestProgress(t *testing.T) {
	t.Parallel()
	var last [2]int
	rep, _ := runAudit(t, knownDump, audit.Options{LookupBatch: 2, BreachBatch: 3, Progress: func(done, total int) { last = [2]int{done, total} }})
	_ = rep
	// 7 distinct NT hashes for the breach file, the list and the index;
	// 1 SHA-1 for the list and the index.
	if last != [2]int{7*3 + 2, 7*3 + 2} {
		t.Errorf("progress ended at %v", last)
	}
}

// TestGroupsBounded: the summary lists MaxGroupNames names of a large
// group and MaxGroups groups.
func TestGroupsBounded(t *testing.T) {
	t.Parallel()
	a := audit.New(audit.Options{})
	add := func(user, password string) {
		rec, _ := dump.ParseLine(user+":"+nt(password), dump.Options{})
		a.Add(rec)
	}
	for i := range audit.MaxGroupNames + 5 {
		add(fmt.Sprintf("big%d", i), "shared")
	}
	for i := range audit.MaxGroups + 3 {
		add(fmt.Sprintf("p%da", i), fmt.Sprint(i))
		add(fmt.Sprintf("p%db", i), fmt.Sprint(i))
	}
	rep, err := a.Report(context.Background(), audit.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary()
	if s.SharedGroups != audit.MaxGroups+4 || len(s.Groups) != audit.MaxGroups || s.Groups[0].Count != audit.MaxGroupNames+5 ||
		len(s.Groups[0].Accounts) != audit.MaxGroupNames || s.Groups[1].Accounts[0] != "p0a" {
		t.Errorf("groups: %d shared, %d listed, first %d (%d names), second %v", s.SharedGroups, len(s.Groups), s.Groups[0].Count,
			len(s.Groups[0].Accounts), s.Groups[1].Accounts)
	}
}

// FuzzAudit: any dump is read, audited and written in every form without
// a panic, and the JSON document is valid.
func FuzzAudit(f *testing.F) {
	f.Add(knownDump)
	f.Add("a:" + nt("a") + "\nb:" + nt("a") + "\n\xff\xfe")
	f.Add("WS$:1:" + emptyLM + ":" + nt("ws") + ":::\n:::\n$HEX[00]:" + nt(""))
	f.Fuzz(func(t *testing.T, text string) {
		rep, _ := runAudit(t, text, audit.Options{ShowPlaintext: true, LookupBatch: 2, BreachBatch: 2})
		var doc bytes.Buffer
		if err := rep.WriteJSON(&doc); err != nil || !json.Valid(doc.Bytes()) {
			t.Fatalf("JSON %v: %s", err, doc.Bytes())
		}
		for _, write := range []func(*bytes.Buffer) error{
			func(b *bytes.Buffer) error { return rep.WriteJSONLines(b) },
			func(b *bytes.Buffer) error { return rep.WriteCSV(b) },
			func(b *bytes.Buffer) error { return rep.WriteText(b) },
		} {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
		}
		s := rep.Summary()
		if s.SharedWith < 2*s.SharedGroups || s.EmptyPassword > s.Accounts {
			t.Fatalf("summary %+v", s)
		}
	})
}
