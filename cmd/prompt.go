package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

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
		return "", fmt.Errorf("%w: no password: type it at the prompt, or send it on standard input", ErrUsage)
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
