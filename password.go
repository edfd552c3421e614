package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"secutil/tools/breach"
	"secutil/tools/passhash"
	"secutil/tools/passpolicy"
	"secutil/tools/strength"
)

// passwordPolicy is the account password policy of the command line: the
// embedded common-password list and, given -breach-file, the Pwned
// Passwords file serve uses.
func passwordPolicy(breachFile string) (passpolicy.Lists, func(), error) {
	lists := passpolicy.Lists{IsCommon: strength.IsCommon}
	if breachFile == "" {
		return lists, func() {}, nil
	}
	f, err := breach.OpenFile(breachFile, breach.KindSHA1)
	if err != nil {
		return lists, nil, fmt.Errorf("-breach-file: %w", err)
	}
	lists.Breached = func(password string) (int64, bool, error) { return f.Count(breach.SHA1(password)) }
	return lists, func() { f.Close() }, nil
}

// newPasswordHash reads a new password for email (from prompt or standard
// input, see readPassword), applies the policy and hashes it.
func newPasswordHash(email, given, breachFile string, stdin io.Reader, stderr io.Writer) (string, error) {
	password := given
	if given == "" || given == "-" {
		var err error
		if password, err = readPassword(stdin, stderr, "Password for "+email+": "); err != nil {
			return "", err
		}
	}
	lists, closeLists, err := passwordPolicy(breachFile)
	if err != nil {
		return "", err
	}
	defer closeLists()
	if err := passpolicy.Check(password, email, lists); err != nil {
		return "", err
	}
	return passhash.Hash(password, passhash.Default)
}

// readPassword asks for a password on a terminal, twice and without echo;
// otherwise it reads one line from standard input (a pipe or a file).
func readPassword(stdin io.Reader, stderr io.Writer, prompt string) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var typed [2]string
		for i, p := range []string{prompt, "Again: "} {
			fmt.Fprint(stderr, p)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(stderr)
			if err != nil {
				return "", err
			}
			typed[i] = string(b)
		}
		if typed[0] != typed[1] {
			return "", errors.New("the two passwords differ")
		}
		return typed[0], nil
	}
	line, err := readLine(stdin)
	if err != nil {
		return "", err
	}
	if line == "" {
		return "", fmt.Errorf("%w: no password: type it at the prompt, or send it on standard input", errUsage)
	}
	return line, nil
}

// readLine reads one line (without its end) from r, which may be nil.
func readLine(r io.Reader) (string, error) {
	if r == nil {
		return "", nil
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
