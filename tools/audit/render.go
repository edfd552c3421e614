package audit

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// RefusedLine is a refused line as the JSON renderers write it.
type RefusedLine struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func (r *Report) refusedLines() []RefusedLine {
	out := make([]RefusedLine, len(r.a.refused))
	for i, e := range r.a.refused {
		out[i] = RefusedLine{Line: e.Line, Error: e.Reason}
	}
	return out
}

// WriteJSON writes the report as one JSON document, the API's answer:
// {"accounts": [...], "summary": {...}, "refused": [...]}. It streams the
// accounts.
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"accounts":[`)
	first := true
	for acc := range r.Accounts() {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		if err := writeJSON(bw, acc); err != nil {
			return err
		}
	}
	bw.WriteString(`],"summary":`)
	if err := writeJSON(bw, r.summary); err != nil {
		return err
	}
	bw.WriteString(`,"refused":`)
	if err := writeJSON(bw, r.refusedLines()); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// MarshalJSON is WriteJSON into memory, so that a Report can be the answer
// of an API route that encodes its answers with encoding/json.
func (r *Report) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSONLines writes one JSON object a line: each account and each
// refused line ({"line": N, "error": "..."}) in the order of the dump,
// then {"summary": {...}}.
func (r *Report) WriteJSONLines(w io.Writer) error {
	bw := bufio.NewWriter(w)
	refused := r.refusedLines()
	line := func(v any) error {
		if err := writeJSON(bw, v); err != nil {
			return err
		}
		return bw.WriteByte('\n')
	}
	for acc := range r.Accounts() {
		for len(refused) > 0 && refused[0].Line < acc.Line {
			if err := line(refused[0]); err != nil {
				return err
			}
			refused = refused[1:]
		}
		if err := line(acc); err != nil {
			return err
		}
	}
	for _, rl := range refused {
		if err := line(rl); err != nil {
			return err
		}
	}
	if err := line(struct {
		Summary Summary `json:"summary"`
	}{r.summary}); err != nil {
		return err
	}
	return bw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// csvHeader are the CSV columns, Account's JSON names.
var csvHeader = []string{"line", "account", "format", "algorithm", "status", "empty_password", "lm_present", "breached",
	"found_in", "same_as_username", "default_computer_password", "shared_with", "weak_scheme", "locked"}

// WriteCSV writes a header and one row per account; a null is an empty
// cell, the plaintext a last column with Options.ShowPlaintext only.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := csvHeader
	if r.a.opt.ShowPlaintext {
		header = append(header[:len(header):len(header)], "plaintext")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	row := make([]string, 0, len(header))
	for acc := range r.Accounts() {
		row = append(row[:0], strconv.Itoa(acc.Line), csvSafe(acc.Account), acc.Format, acc.Algorithm, csvSafe(acc.Status),
			strconv.FormatBool(acc.EmptyPassword), strconv.FormatBool(acc.LMPresent), count(acc.Breached, ""),
			orEmpty(acc.FoundIn), strconv.FormatBool(acc.SameAsUsername), strconv.FormatBool(acc.DefaultComputerPassword),
			strconv.Itoa(acc.SharedWith), orEmpty(acc.WeakScheme), strconv.FormatBool(acc.Locked))
		if r.a.opt.ShowPlaintext {
			row = append(row, csvSafe(acc.Plaintext))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvSafe keeps a spreadsheet from reading a cell of the dump's text as a
// formula: one starting with = + - @ or a control character gets a '.
func csvSafe(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

func count(n *int64, null string) string {
	if n == nil {
		return null
	}
	return strconv.FormatInt(*n, 10)
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// WriteText writes the report for a person: the count of each finding
// first, as Test-PasswordQuality prints them, then the groups of accounts
// sharing a hash, the most breached accounts, and a table of every account.
// Text from the dump is written with its control characters replaced.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	s := r.summary
	bw.WriteString("Password audit of " + plural(s.Accounts, "account"))
	var notes []string
	if s.RefusedLines > 0 {
		notes = append(notes, plural(s.RefusedLines, "line")+" refused")
	}
	if s.HistorySkipped > 0 {
		notes = append(notes, plural(s.HistorySkipped, "history line")+" left out")
	}
	if notes != nil {
		bw.WriteString(" (" + strings.Join(notes, ", ") + ")")
	}
	bw.WriteString("\n\n")
	breached := "- (no breach file for these hashes)"
	if s.Breached != nil {
		breached = strconv.Itoa(*s.Breached)
	}
	for _, f := range []struct {
		what, n string
	}{
		{"Empty password", strconv.Itoa(s.EmptyPassword)},
		{"LM hash present", strconv.Itoa(s.LMPresent)},
		{"Breached", breached},
		{"Found in the common-password list", strconv.Itoa(s.FoundIn.Common)},
		{"Found in the reverse-lookup index", strconv.Itoa(s.FoundIn.Index)},
		{"Password is the user name", strconv.Itoa(s.SameAsUsername)},
		{"Computer account with its default password", strconv.Itoa(s.DefaultComputerPassword)},
		{"Sharing a hash with another account", strconv.Itoa(s.SharedWith) + groupsNote(s.SharedGroups)},
		{"Weak crypt(3) scheme (DES, MD5)", strconv.Itoa(s.WeakScheme)},
		{"Locked (shadow)", strconv.Itoa(s.Locked)},
	} {
		bw.WriteString("  " + pad(f.what, 44) + f.n + "\n")
	}
	if len(s.Groups) > 0 {
		bw.WriteString("\nAccounts sharing one hash, largest group first:\n")
		for _, g := range s.Groups {
			names := make([]string, len(g.Accounts))
			for i, a := range g.Accounts {
				names[i] = printable(a)
			}
			list := strings.Join(names, ", ")
			if more := g.Count - len(g.Accounts); more > 0 {
				list += " and " + strconv.Itoa(more) + " more"
			}
			bw.WriteString("  " + plural(g.Count, "account") + ": " + list + "\n")
		}
		if more := s.SharedGroups - len(s.Groups); more > 0 {
			bw.WriteString("  and " + plural(more, "smaller group") + "\n")
		}
	}
	if len(s.MostBreached) > 0 {
		bw.WriteString("\nMost breached:\n")
		for _, b := range s.MostBreached {
			bw.WriteString("  " + pad(printable(b.Account), 32) + " " + strconv.FormatInt(b.Breached, 10) + " times\n")
		}
	}
	bw.WriteString("\n")
	if err := r.writeTable(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// maxAccountWidth caps the account column; a longer name overflows it.
const maxAccountWidth = 40

func (r *Report) writeTable(bw *bufio.Writer) error {
	width := len("ACCOUNT")
	for acc := range r.Accounts() {
		width = max(width, min(utf8.RuneCountInString(acc.Account), maxAccountWidth))
	}
	cols := []string{"LINE", pad("ACCOUNT", width), "FORMAT   ", "ALGORITHM    ", "EMPTY", "LM ", "BREACHED ",
		"FOUND ", "=USER", "DEFAULT", "SHARED", "WEAK     ", "LOCKED"}
	if r.a.opt.ShowPlaintext {
		cols = append(cols, "PLAINTEXT")
	}
	bw.WriteString(strings.TrimRight(strings.Join(cols, "  "), " ") + "\n")
	for acc := range r.Accounts() {
		cells := []string{
			padLeft(strconv.Itoa(acc.Line), 4), pad(printable(acc.Account), width), pad(acc.Format, 9), pad(acc.Algorithm, 13),
			pad(yes(acc.EmptyPassword), 5), pad(yes(acc.LMPresent), 3), padLeft(count(acc.Breached, "-"), 9),
			pad(orEmpty(acc.FoundIn), 6), pad(yes(acc.SameAsUsername), 5), pad(yes(acc.DefaultComputerPassword), 7),
			padLeft(strconv.Itoa(acc.SharedWith), 6), pad(orEmpty(acc.WeakScheme), 9), yes(acc.Locked),
		}
		if r.a.opt.ShowPlaintext {
			cells = append(cells, printable(acc.Plaintext))
		}
		if _, err := bw.WriteString(strings.TrimRight(strings.Join(cells, "  "), " ") + "\n"); err != nil {
			return err
		}
	}
	return nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

func groupsNote(n int) string {
	if n == 0 {
		return ""
	}
	return " (" + plural(n, "group") + ")"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// pad and padLeft fill s with spaces to width characters.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}

func padLeft(s string, width int) string {
	return strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s))) + s
}

// printable replaces what a terminal would act on (control characters,
// escapes) in text from the dump.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s)
}
