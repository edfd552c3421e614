// Package jsonfmt pretty-prints and minifies JSON text without reordering
// keys or escaping HTML characters, and reports errors by line and column.
package jsonfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxInputBytes bounds the input (the request body limit is larger than
// any useful document here; this keeps the work per call bounded).
const MaxInputBytes = 512 << 10

// SyntaxError locates invalid JSON, 1-based.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Format indents with two spaces, keeping key order.
func Format(text string) (string, error) {
	if err := validate(text); err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(strings.TrimSpace(text)), "", "  "); err != nil {
		return "", locate(text, err)
	}
	return out.String(), nil
}

// Minify removes insignificant white space.
func Minify(text string) (string, error) {
	if err := validate(text); err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(text)); err != nil {
		return "", locate(text, err)
	}
	return out.String(), nil
}

// validate checks for exactly one JSON value, so trailing garbage and empty
// input are reported with a position too.
func validate(text string) error {
	if len(text) > MaxInputBytes {
		return &SyntaxError{Line: 1, Column: 1, Msg: fmt.Sprintf("input is larger than %d bytes", MaxInputBytes)}
	}
	if strings.TrimSpace(text) == "" {
		return &SyntaxError{Line: 1, Column: 1, Msg: "empty input"}
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

func locate(text string, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		// Offset counts the bytes read, including the offending one.
		return at(text, int(syntax.Offset)-1, strings.TrimPrefix(syntax.Error(), "invalid character "))
	}
	return at(text, len(text), "unexpected end of input")
}

// at converts a byte offset into a line and a column counted in characters.
func at(text string, offset int, msg string) *SyntaxError {
	offset = min(max(offset, 0), len(text))
	before := text[:offset]
	line := strings.Count(before, "\n") + 1
	column := len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
	return &SyntaxError{Line: line, Column: column, Msg: msg}
}
