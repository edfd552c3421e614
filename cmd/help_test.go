package cmd

import (
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

// Every command's -h: no "Flags:" heading without flags under it, and no
// "(created when missing)" for a command that refuses a missing database.
func TestCommandHelp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	refuseMissing := map[string]bool{"user list": true, "user set": true, "user passwd": true, "user delete": true, "backup": true}
	for _, cmd := range commands() {
		_, help, err := cli(t, db, "", nil, append(strings.Fields(cmd.name), "-h")...)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s -h: %v", cmd.name, err)
		}
		if strings.HasSuffix(strings.TrimSpace(help), "Flags:") {
			t.Errorf("secutil %s -h ends with an empty Flags: section:\n%s", cmd.name, help)
		}
		if refuseMissing[cmd.name] && strings.Contains(help, "created when missing") {
			t.Errorf("secutil %s -h says the database is created when missing; the command refuses one:\n%s", cmd.name, help)
		}
	}
}

func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db")
	for _, cmd := range commands() {
		for _, h := range []string{"-h", "--help"} {
			args := append(strings.Fields(cmd.name), h)
			if _, _, err := cli(t, db, "", nil, args...); err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("secutil %s: %v, want help (exit status 0)", strings.Join(args, " "), err)
			}
		}
	}
}
