package jsonfmt_test

import (
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
	})
}
