package jsonfmt_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"secutil/tools/jsonfmt"
)

func TestFormat(t *testing.T) {
	got, err := jsonfmt.Format(`{"b":1,"a":[true,null,"<&>"],"c":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    \"<&>\"\n  ],\n  \"c\": {}\n}"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMinify(t *testing.T) {
	got, err := jsonfmt.Minify("{\n  \"b\" : 1 ,\n \"a\": [ 1.50e3 , \"x y\" ]\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":1,"a":[1.50e3,"x y"]}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestErrorsHaveLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		in           string
		line, column int
	}{
		{"", 1, 1},
		{"   ", 1, 1},
		{"{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 11},
		{"{\"a\":1}}", 1, 8},
		{"{\"é\": x}", 1, 7},
		{"[1, 2", 1, 6},
	} {
		for _, f := range []func(string) (string, error){jsonfmt.Format, jsonfmt.Minify} {
			_, err := f(tc.in)
			var se *jsonfmt.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: err %v", tc.in, err)
			}
			if se.Line != tc.line || se.Column != tc.column {
				t.Errorf("%q: at %d:%d, want %d:%d (%v)", tc.in, se.Line, se.Column, tc.line, tc.column, se)
			}
		}
	}
}

// nested is value inside depth arrays.
func nested(depth int, value string) string {
	return strings.Repeat("[", depth) + value + strings.Repeat("]", depth)
}

// TestWorkIsBounded: a small input must not make a huge answer. A 20 KB
// document of brackets used to format to hundreds of megabytes.
func TestWorkIsBounded(t *testing.T) {
	wide := nested(jsonfmt.MaxDepth-1, "["+strings.Repeat("1,", 10_000)+"1]")
	for _, tc := range []struct {
		name, in string
		limit    jsonfmt.Limit // "" = accepted
	}{
		{"at the depth limit", nested(jsonfmt.MaxDepth, "1"), ""},
		{"one level deeper", nested(jsonfmt.MaxDepth+1, "1"), jsonfmt.LimitDepth},
		{"deeper than encoding/json goes", nested(20_000, ""), jsonfmt.LimitDepth},
		{"objects count too", strings.Repeat(`{"a":`, jsonfmt.MaxDepth+1) + "1" + strings.Repeat("}", jsonfmt.MaxDepth+1), jsonfmt.LimitDepth},
		{"brackets in strings do not", `["` + strings.Repeat("[", 2000) + `"]`, ""},
		{"wide and deep", wide, jsonfmt.LimitOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := jsonfmt.Format(tc.in)
			if len(out) > jsonfmt.OutputLimit(len(tc.in)) {
				t.Fatalf("%d bytes out of %d in", len(out), len(tc.in))
			}
			var le *jsonfmt.LimitError
			switch {
			case tc.limit == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.limit != "" && (!errors.As(err, &le) || le.Limit != tc.limit):
				t.Fatalf("got %v (%d bytes), want the %s limit", err, len(out), tc.limit)
			}
			_, err = jsonfmt.Minify(tc.in)
			if (tc.limit == jsonfmt.LimitDepth) != errors.As(err, &le) {
				t.Fatalf("Minify: %v", err)
			}
		})
	}
}

func TestOutputLimit(t *testing.T) {
	if got := jsonfmt.OutputLimit(10); got != 1<<20 {
		t.Fatalf("small input: %d", got)
	}
	if got := jsonfmt.OutputLimit(400_000); got != 1_600_000 {
		t.Fatalf("large input: %d", got)
	}
}

func FuzzFormatMinify(f *testing.F) {
	f.Add(`{"a":[1,2,{"b":null}]}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, s string) {
		pretty, err := jsonfmt.Format(s)
		small, err2 := jsonfmt.Minify(s)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("Format and Minify disagree on %q: %v / %v", s, err, err2)
		}
		if err != nil {
			return
		}
		again, err := jsonfmt.Minify(pretty)
		if err != nil || again != small {
			t.Fatalf("Minify(Format(%q)) = %q, %v; want %q", s, again, err, small)
		}
		if strings.Contains(small, "\\u003c") {
			t.Fatalf("HTML was escaped: %q", small)
		}
		// Within the bounds, the output is encoding/json's.
		var want bytes.Buffer
		json.Indent(&want, []byte(strings.TrimSpace(s)), "", "  ")
		if pretty != want.String() {
			t.Fatalf("Format(%q) = %q, json.Indent gives %q", s, pretty, want.String())
		}
	})
}
