// Package jsonfmt pretty-prints and minifies JSON text without reordering
// keys or escaping HTML characters, and reports errors by line and column.
// The work and the output of a call are bounded: nesting deeper than
// MaxDepth and output larger than OutputLimit of the input are refused.
package jsonfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxInputBytes bounds the input (the request body limit is larger than
// any useful document here; this keeps the work per call bounded).
const MaxInputBytes = 512 << 10

// MaxDepth is the deepest nesting of arrays and objects accepted. Indented
// output grows with depth × lines, so without it a 20 KB document of
// brackets formats to hundreds of megabytes.
const MaxDepth = 512

// minOutputLimit is the output every input may grow to, however small.
const minOutputLimit = 1 << 20

// OutputLimit is the largest output produced for an input of n bytes: four
// times the input or 1 MiB, whichever is larger.
func OutputLimit(n int) int { return max(4*n, minOutputLimit) }

// SyntaxError locates invalid JSON, 1-based.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Limit names the bound a LimitError hit.
type Limit string

// The bounds on a call.
const (
	LimitDepth  Limit = "depth"
	LimitOutput Limit = "output"
)

// LimitError is valid JSON refused because formatting it would pass one of
// the bounds: Limit says which, Max is its value.
type LimitError struct {
	Limit Limit
	Max   int
}

func (e *LimitError) Error() string {
	if e.Limit == LimitDepth {
		return fmt.Sprintf("JSON nests deeper than %d levels of arrays and objects", e.Max)
	}
	return fmt.Sprintf("the formatted JSON would be larger than %d bytes (4 times the input or 1 MiB, whichever is larger)", e.Max)
}

// Format indents with two spaces, keeping key order.
func Format(text string) (string, error) {
	out, err := Indent([]byte(text), "", OutputLimit(len(text)))
	return string(out), err
}

// Minify removes insignificant white space.
func Minify(text string) (string, error) {
	out, err := transform([]byte(text), "", "", len(text))
	return string(out), err
}

// Indent checks that src holds exactly one JSON value within the bounds and
// returns it indented by two spaces a level, every line after the first
// starting with prefix. The result is at most limit bytes, or a LimitError.
func Indent(src []byte, prefix string, limit int) ([]byte, error) {
	return transform(src, prefix, "  ", limit)
}

func transform(src []byte, prefix, indent string, limit int) ([]byte, error) {
	if err := validate(src); err != nil {
		return nil, err
	}
	return write(src, prefix, indent, limit)
}

// validate checks for exactly one JSON value no deeper than MaxDepth, so
// trailing garbage and empty input are reported with a position too.
func validate(src []byte) error {
	if len(src) > MaxInputBytes {
		return &SyntaxError{Line: 1, Column: 1, Msg: fmt.Sprintf("input is larger than %d bytes", MaxInputBytes)}
	}
	text := string(src)
	if strings.TrimSpace(text) == "" {
		return &SyntaxError{Line: 1, Column: 1, Msg: "empty input"}
	}
	// Depth first: encoding/json reports nesting past its own bound as a
	// syntax error, and decodes up to it before doing so.
	if err := checkDepth(src); err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return locate(text, err)
	}
	end := int(dec.InputOffset())
	if rest := strings.TrimLeft(text[end:], " \t\r\n"); rest != "" {
		return at(text, len(text)-len(rest), "unexpected data after the JSON value")
	}
	return nil
}

// checkDepth refuses brackets nested deeper than MaxDepth, outside strings.
// It reads any text, valid or not.
func checkDepth(src []byte) error {
	depth := 0
	inString, escaped := false, false
	for _, c := range src {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return &LimitError{Limit: LimitDepth, Max: MaxDepth}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

// write re-emits valid JSON: compact when indent is empty, otherwise one
// element a line. It stops with a LimitError as soon as the output passes
// limit, so a refused call never holds more than limit bytes.
func write(src []byte, prefix, indent string, limit int) ([]byte, error) {
	out := make([]byte, 0, min(len(src)+len(src)/2, limit)+1)
	depth := 0
	opened := false // the last token opened an array or object
	newline := func() {
		out = append(out, '\n')
		out = append(out, prefix...)
		for range depth {
			out = append(out, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if opened && c != ']' && c != '}' {
			newline()
		}
		closesEmpty := opened
		opened = false
		switch c {
		case '"':
			end := stringEnd(src, i)
			out = append(out, src[i:end]...)
			i = end - 1
		case '[', '{':
			depth++
			out = append(out, c)
			opened = indent != ""
		case ']', '}':
			depth--
			if indent != "" && !closesEmpty {
				newline()
			}
			out = append(out, c)
		case ',':
			out = append(out, c)
			if indent != "" {
				newline()
			}
		case ':':
			out = append(out, c)
			if indent != "" {
				out = append(out, ' ')
			}
		default:
			out = append(out, c)
		}
		if len(out) > limit {
			return nil, &LimitError{Limit: LimitOutput, Max: limit}
		}
	}
	return out, nil
}

// stringEnd returns the index just past the string starting at src[start].
func stringEnd(src []byte, start int) int {
	for i := start + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

func locate(text string, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		// Offset counts the bytes read, including the offending one.
		return at(text, int(syntax.Offset)-1, PlainSyntax(syntax.Error()))
	}
	return at(text, len(text), "the text ends before the JSON does (a closing ], } or \" is missing)")
}

// plainSyntaxes are encoding/json's syntax messages ("invalid character
// 'x' looking for beginning of value") and what they mean in words.
var plainSyntaxes = []struct{ context, says string }{
	{"looking for beginning of value", "where a value belongs (a string in double quotes, a number, true, false, null, [ or {)"},
	{"looking for beginning of object key string", "where a key belongs: keys are strings in double quotes"},
	{"after object key:value pair", "after a value in an object: a comma or } belongs there"},
	{"after object key", "after a key: a colon belongs there"},
	{"after array element", "after an item of a list: a comma or ] belongs there"},
	{"in string literal", "inside a string: a line break or tab there must be written \\n or \\t"},
	{"in string escape code", "after a backslash in a string: only \\\" \\\\ / b f n r t and uXXXX may follow"},
	{"in \\u hexadecimal character escape", "after \\u in a string: four hex digits belong there"},
	{"in numeric literal", "in a number"},
}

// PlainSyntax rewrites an encoding/json syntax message ("invalid character
// 'o' in literal null (expecting 'u')") in words; one it does not know is
// kept, without its "invalid character" prefix.
func PlainSyntax(msg string) string {
	msg = strings.TrimPrefix(msg, "invalid character ")
	for _, p := range plainSyntaxes {
		if char, ok := strings.CutSuffix(msg, " "+p.context); ok {
			return "unexpected " + char + " " + p.says
		}
	}
	// A bare word that is not true, false or null: "'o' in literal null
	// (expecting 'u')" for no, "'r' in literal true (expecting 'r')"...
	if char, literal, ok := strings.Cut(msg, " in literal "); ok {
		word, _, _ := strings.Cut(literal, " ")
		return "unexpected " + char + " in what begins as " + word +
			": the only words JSON knows are true, false and null, in lower case; text goes in double quotes"
	}
	return msg
}

// at converts a byte offset into a line and a column counted in characters.
func at(text string, offset int, msg string) *SyntaxError {
	offset = min(max(offset, 0), len(text))
	before := text[:offset]
	line := strings.Count(before, "\n") + 1
	column := len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
	return &SyntaxError{Line: line, Column: column, Msg: msg}
}
