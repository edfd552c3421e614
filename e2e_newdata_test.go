package main

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/tools/geo/geotest"
)

// TestBinaryTakesNewDataWhileServing runs secutil as a process and gives
// it new data the ways an operator would, without a restart: a City file
// replaced and picked up on SIGHUP, and a wordlist imported into its hash
// index by another process. (A server with no GeoIP flag at all is
// TestBinaryEndToEnd's.)
func TestBinaryTakesNewDataWhileServing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	bin := secutilBinary(t)
	dir := t.TempDir()
	city := filepath.Join(dir, "city.mmdb")
	geotest.WriteDB(t, city, "GeoLite2-City", geotest.CityNetworks)
	db := filepath.Join(dir, "city.db")
	cmd, base, logs, key := serveWithAccount(t, bin, db, "bob@example.com", "pro", "-geoip-city", city)

	t.Run("a City file replaced is read on SIGHUP", func(t *testing.T) {
		t.Parallel()
		if _, gb := cmdtest.PostJSON(t, base+"/api/v1/ip_info", key, map[string]string{"ip_string": "81.2.69.160"}); gb["city"] != "London" || gb["asn"] != float64(20712) {
			t.Fatalf("81.2.69.160 with a City file: %v", gb)
		}
		next := city + ".new"
		geotest.WriteDB(t, next, "GeoLite2-City", []geotest.Network{
			{CIDR: "81.2.69.0/24", Record: geotest.CityRecord("Manchester", "England", "GB", "United Kingdom", false, 53.48, -2.24, "Europe/London", "M1")},
		})
		if err := os.Rename(next, city); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		// The answer can change before the log line is written (a changed file
		// is also picked up without the signal), so wait for both.
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, gb := cmdtest.PostJSON(t, base+"/api/v1/ip_info", key, map[string]string{"ip_string": "81.2.69.160"})
			if gb["city"] == "Manchester" && gb["asn"] == float64(20712) && strings.Contains(logs.String(), "reloaded GeoIP databases") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("SIGHUP did not reload the City file, or logged no reload: %v\nlogs:\n%s", gb, logs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	t.Run("import-wordlist while serving", func(t *testing.T) {
		t.Parallel()
		importWhileServing(t, bin, db, base, key)
	})
}

// importWhileServing imports a wordlist into the hash index of db, which
// the server at base is answering from, as a separate process, the way an
// operator grows an instance's index in place: every lookup meanwhile
// answers (from the batches committed so far), and the server finds the
// new words once the import is done, without a restart.
func importWhileServing(t *testing.T, bin, db, base, key string) {
	// Enough words for an import that takes a while; what is tested is that the
	// server keeps answering beside it and then sees its words, not the size.
	const importedWords = 10_000
	var list bytes.Buffer
	for i := range importedWords {
		fmt.Fprintf(&list, "imported-word-%d\n", i)
	}
	words := filepath.Join(t.TempDir(), "words.txt")
	if err := os.WriteFile(words, list.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	lookup := func(word string) (int, bool) {
		sum := md5.Sum([]byte(word))
		status, m := cmdtest.PostJSON(t, base+"/api/v1/hash_lookup", key, map[string]string{"hashes": hex.EncodeToString(sum[:])})
		results, _ := m["results"].([]any)
		return status, len(results) == 1 && results[0].(map[string]any)["found"] == true
	}

	imported := make(chan error, 1)
	go func() {
		out, err := runCommand(bin, "import-wordlist", "-db", db, "-algorithms", "md5", words)
		if err != nil {
			err = fmt.Errorf("%v\n%s", err, out)
		}
		imported <- err
	}()
	lookups := 0
	for done := false; !done; lookups++ {
		select {
		case err := <-imported:
			if err != nil {
				t.Fatalf("import-wordlist while serving: %v", err)
			}
			done = true
		default:
		}
		if status, found := lookup("password"); status != 200 || !found {
			t.Fatalf("lookup %d during the import: status %d, found %v", lookups, status, found)
		}
	}
	if status, found := lookup(fmt.Sprintf("imported-word-%d", importedWords-1)); status != 200 || !found {
		t.Fatalf("after the import: status %d, found %v; want the new word found", status, found)
	}
	t.Logf("%d lookups answered during the import", lookups)
}
