package hashid

import "testing"

// TestTableRowsDistinct keeps Formats honest: every row is its own format,
// so two rows may not share a name (Identify would merge them silently).
func TestTableRowsDistinct(t *testing.T) {
	rows := len(prefixedRows) + len(structuralRows)
	for _, rs := range hexByLenRows {
		rows += len(rs)
	}
	for _, rs := range saltedByLenRows {
		rows += len(rs)
	}
	for _, rs := range base64ByLenRows {
		rows += len(rs)
	}
	if got, want := Formats(), rows; got != want {
		t.Fatalf("Formats() = %d distinct names, but the table has %d rows", got, want)
	}
}

func TestTableConfidences(t *testing.T) {
	check := func(f *format) {
		if f.name == "" || !(f.conf > 0 && f.conf <= 1) {
			t.Errorf("bad row %q: confidence %v", f.name, f.conf)
		}
	}
	for _, fs := range byFirstByte {
		for _, f := range fs {
			check(f)
		}
	}
	for _, group := range []map[int][]*format{hexByLen, saltedByLen, base64ByLen} {
		for _, fs := range group {
			for _, f := range fs {
				check(f)
			}
		}
	}
	for _, f := range structural {
		check(f)
	}
}
