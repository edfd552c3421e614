package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"secutil/tools/audit"
)

// TestMarshalJSON: encoding/json writes a Report as WriteJSON does, so an
// API route can answer one.
func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	rep, _ := runAudit(t, knownDump, audit.Options{})
	var want bytes.Buffer
	if err := rep.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want.Bytes()) {
		t.Errorf("json.Marshal:\n%s\nWriteJSON:\n%s", got, want.Bytes())
	}
}
