package cmd

import (
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/tools/breach"
)

// testIndex is a reverse-lookup index in a temporary folder holding the
// wordlist fixture and a word that is not UTF-8 ($HEX[ff41]), and the
// database path it sits beside.
func testIndex(t *testing.T) (index, db string) {
	t.Helper()
	dir := t.TempDir()
	index = filepath.Join(dir, "s-hashes.db")
	mustCLI(t, "", "", "import-wordlist", "-hash-db", index, wordlistPath)
	mustCLI(t, "", "$HEX[ff41]\n", "import-wordlist", "-hash-db", index, "-")
	return index, filepath.Join(dir, "s.db")
}

func hexMD5(s string) string  { d := md5.Sum([]byte(s)); return hex.EncodeToString(d[:]) }
func hexSHA1(s string) string { d := sha1.Sum([]byte(s)); return hex.EncodeToString(d[:]) }
func hexNT(s string) string   { return hex.EncodeToString(breach.NTLM(s)) }

// TestLookup: each line's hash is reversed as /hash_lookup reverses it,
// whether the line is a digest, user:hash, an LM:NT pair or a pwdump line;
// a word that is not UTF-8 comes back as $HEX[...]; a line without a
// digest fails on its line.
func TestLookup(t *testing.T) {
	t.Parallel()
	index, _ := testIndex(t)
	input := strings.Join([]string{
		hexMD5("correcthorse"),
		"alice:" + hexNT("Tr0ub4dor&3"),
		`CORP\bob:1105:` + emptyLM + ":" + hexNT("batterystaple") + ":::",
		emptyLM + ":" + hexNT("ocelot-quasar-17"),
		strings.ToUpper(hexSHA1("ocelot-quasar-17")),
		hexMD5("not in the index"),
		"$2b$12$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
		hexMD5("\xffA"),
	}, "\n")
	out, _, err := cli(t, "", input, nil, "lookup", "-format", "json", "-hash-db", index)
	if err == nil || err.Error() != "1 of 8 lines hold no hash the index can reverse" {
		t.Errorf("error %v", err)
	}
	str := func(s string) *string { return &s }
	want := []any{
		lookedUp{Line: 1, Hash: hexMD5("correcthorse"), Found: true, Plaintext: str("correcthorse"), Type: str("md5")},
		lookedUp{Line: 2, User: "alice", Hash: hexNT("Tr0ub4dor&3"), Found: true, Plaintext: str("Tr0ub4dor&3"), Type: str("ntlm")},
		lookedUp{Line: 3, User: `CORP\bob`, Hash: hexNT("batterystaple"), Found: true, Plaintext: str("batterystaple"), Type: str("ntlm")},
		lookedUp{Line: 4, Hash: hexNT("ocelot-quasar-17"), Found: true, Plaintext: str("ocelot-quasar-17"), Type: str("ntlm")},
		lookedUp{Line: 5, Hash: strings.ToUpper(hexSHA1("ocelot-quasar-17")), Found: true, Plaintext: str("ocelot-quasar-17"), Type: str("sha1")},
		lookedUp{Line: 6, Hash: hexMD5("not in the index")},
		lineError{7, notDigest},
		lookedUp{Line: 8, Hash: hexMD5("\xffA"), Found: true, Plaintext: str("$HEX[ff41]"), Type: str("md5")},
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as the API writes
		enc.Encode(w)
		if got[i]+"\n" != b.String() {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], b.String())
		}
	}
	text, _, _ := cli(t, "", input, nil, "lookup", "-hash-db", index)
	for _, want := range []string{
		"   LINE  FOUND  TYPE    PLAINTEXT                 HASH\n",
		"      2  yes    ntlm    Tr0ub4dor&3               " + hexNT("Tr0ub4dor&3") + " (user alice)\n",
		"      6  no                                       " + hexMD5("not in the index") + "\n",
		"      7  error: " + notDigest + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestLookupFindsTheIndexBesideTheDatabase: -db (SECUTIL_DB) locates the
// index as it does for serve; without an index the command fails, naming
// where it looked, and creates none.
func TestLookupFindsTheIndexBesideTheDatabase(t *testing.T) {
	t.Parallel()
	_, db := testIndex(t)
	out, _, err := cli(t, db, hexMD5("correcthorse")+"\n", nil, "lookup", "-format", "csv")
	if err != nil || out != "line,user,hash,found,type,plaintext,error\n1,,"+hexMD5("correcthorse")+",true,md5,correcthorse,\n" {
		t.Errorf("%v\n%s", err, out)
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	_, _, err = cli(t, "", hexMD5("x")+"\n", nil, "lookup", "-hash-db", missing)
	if err == nil || !strings.Contains(err.Error(), "no reverse hash lookup index at "+missing) {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("lookup created an index")
	}
}
