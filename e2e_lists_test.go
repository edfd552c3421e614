package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/tools/breach"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func ntHex(password string) string { return hex.EncodeToString(breach.NTLM(password)) }

const emptyLMHash = "aad3b435b51404eeaad3b435b51404ee"

// TestBinaryListCommands runs identify, check, lookup, index and audit as
// a shell does: a file or standard input in, the exit status 0 when every
// line passed, 1 when one failed (reported on its line), 2 for a mistake
// in the invocation; the data files from serve's flags and variables.
func TestBinaryListCommands(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	pair := emptyLMHash + ":" + ntHex("password")
	t.Run("identify", func(t *testing.T) {
		t.Parallel()
		hashes := writeFile(t, "hashes.txt", pair+"\n"+`CORP\bob:1105:`+pair+":::\n")
		r := runSecutil(t, "", nil, "identify", hashes)
		if r.status != 0 || !strings.Contains(r.stdout, "      2  NTLM                               1000  nt ") {
			t.Errorf("status %d\n%s%s", r.status, r.stdout, r.stderr)
		}
		r = runSecutil(t, pair+"\nnot a hash at all\n", nil, "identify", "-format", "json", "-")
		if r.status != 1 || r.stderr != "secutil: 1 of 2 lines hold no hash identified\n" || strings.Count(r.stdout, "\n") != 2 {
			t.Errorf("status %d\n%s%s", r.status, r.stdout, r.stderr)
		}
		if r := runSecutil(t, "", nil, "identify", hashes, hashes); r.status != 2 {
			t.Errorf("two files: status %d", r.status)
		}
	})
	t.Run("check", func(t *testing.T) {
		t.Parallel()
		r := runSecutil(t, "password\n", []string{"SECUTIL_BREACH_FILE=" + breachFixturePath}, "check", "-format", "json")
		if r.status != 0 || r.stdout != `{"line":1,"score":0,"label":"very weak","entropy":37.6,"common":true,"breached":424242}`+"\n" {
			t.Errorf("status %d\n%s%s", r.status, r.stdout, r.stderr)
		}
		r = runSecutil(t, "password\nk8#Jq!vZ2m-weasel-ORBIT\n", nil, "check", "-min-score", "3")
		if r.status != 1 || !strings.Contains(r.stdout, "(below -min-score 3)") || !strings.Contains(r.stderr, "breached counts not configured") {
			t.Errorf("status %d\n%s%s", r.status, r.stdout, r.stderr)
		}
		if r := runSecutil(t, "", nil, "check", "-min-score", "9"); r.status != 2 {
			t.Errorf("-min-score 9: status %d", r.status)
		}
	})
	t.Run("lookup and index", func(t *testing.T) {
		t.Parallel()
		index := filepath.Join(t.TempDir(), "hashes.db")
		if r := runSecutil(t, "", nil, "import-wordlist", "-hash-db", index, wordlistPath); r.status != 0 {
			t.Fatalf("import-wordlist: status %d\n%s", r.status, r.stderr)
		}
		r := runSecutil(t, "alice:"+ntHex("Tr0ub4dor&3")+"\n", []string{"SECUTIL_HASH_DB=" + index}, "lookup", "-format", "csv")
		if r.status != 0 || !strings.Contains(r.stdout, "\n1,alice,"+ntHex("Tr0ub4dor&3")+",true,ntlm,Tr0ub4dor&3,\n") {
			t.Errorf("lookup: status %d\n%s%s", r.status, r.stdout, r.stderr)
		}
		r = runSecutil(t, "", nil, "index", "-hash-db", index)
		if r.status != 0 || !strings.Contains(r.stdout, "Words:         4\n") {
			t.Errorf("index: status %d\n%s%s", r.status, r.stdout, r.stderr)
		}
	})
	t.Run("audit", func(t *testing.T) {
		t.Parallel()
		lines := []string{strings.ToUpper(ntHex("password")) + ":9545824", strings.ToUpper(ntHex("")) + ":3"}
		slices.Sort(lines)
		ntlm := writeFile(t, "pwned-ntlm.txt", strings.Join(lines, "\r\n")+"\r\n")
		dump := writeFile(t, "ntds.txt", `CORP\alice:1104:`+pair+":::\n"+`CORP\bob:1105:`+pair+":::\n"+`CORP\Guest:501:`+emptyLMHash+":"+ntHex("")+":::\n")
		r := runSecutil(t, "", []string{"SECUTIL_BREACH_FILE_NTLM=" + ntlm, "SECUTIL_HASH_DB=" + filepath.Join(t.TempDir(), "none.db")}, "audit", "-format", "json", dump)
		out := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var summary struct {
			Summary struct {
				Accounts, EmptyPassword int
				Breached                *int
				SharedWith              int `json:"shared_with"`
			} `json:"summary"`
		}
		json.Unmarshal([]byte(out[len(out)-1]), &summary)
		s := summary.Summary
		if r.status != 0 || len(out) != 4 || s.Accounts != 3 || s.Breached == nil || *s.Breached != 3 || s.SharedWith != 2 {
			t.Errorf("status %d %+v\n%s%s", r.status, s, r.stdout, r.stderr)
		}
	})
}

// TestBinaryListInterrupt: Ctrl-C while identify waits for more of its
// standard input stops it at once; what it read is written, whole and in
// order, and it exits 1 saying up to which line.
func TestBinaryListInterrupt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	cmd := exec.Command(secutilBinary(t), "identify", "-format", "csv", "-")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// More than a pipe's buffer: when the write returns, the command has
	// read most of the 5,000 lines, up to four chunks of 1,024 and part of
	// a fifth.
	line := ntHex("password") + "\n"
	if _, err := stdin.Write([]byte(strings.Repeat(line, 5000))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // for the chunks read to reach the workers
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("identify did not stop at SIGINT")
	}
	stdin.Close()
	m := regexp.MustCompile(`^secutil: interrupted: the lines up to line (\d+) are written\n$`).FindStringSubmatch(stderr.String())
	if cmd.ProcessState.ExitCode() != 1 || m == nil {
		t.Fatalf("status %d, stderr %q", cmd.ProcessState.ExitCode(), stderr.String())
	}
	last, _ := strconv.Atoi(m[1])
	sc := bufio.NewScanner(&stdout)
	sc.Scan() // the header
	n := 0
	for sc.Scan() {
		n++
		if !strings.HasPrefix(sc.Text(), fmt.Sprintf("%d,hash,,%s,", n, ntHex("password"))) {
			t.Fatalf("record %d: %q", n, sc.Text())
		}
	}
	// Whole chunks only: the part of a chunk read when the signal came is
	// not written.
	if n != last || last%1024 != 0 || last > 4096 {
		t.Errorf("%d records, the last line written %d; want whole chunks of 1,024 read before the signal", n, last)
	}
	t.Logf("stopped after line %d", last)
}
