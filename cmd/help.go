package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
)

const overviewHead = `secutil: a self-hosted security and password utility API

Usage: secutil [command] [flags]

Commands:
`

const overviewFoot = `
Run "secutil COMMAND -h" for a command's flags. Environment variables set
serve's flags: -db is SECUTIL_DB, -smtp-url is SECUTIL_SMTP_URL, and so on.
The other commands read only those of the flags they share with serve, such
as SECUTIL_DB; never their own, such as -admin.
`

// writeOverview lists the commands whose names start with prefix.
func writeOverview(w io.Writer, prefix string) {
	if prefix == "" {
		io.WriteString(w, overviewHead)
	}
	for _, cmd := range commands() {
		if strings.HasPrefix(cmd.name, prefix) {
			fmt.Fprintf(w, "  %-16s %s\n", cmd.name, cmd.summary)
		}
	}
	if prefix == "" {
		io.WriteString(w, overviewFoot)
	}
}

// help is `secutil help`, the overview.
func (Program) help(_ context.Context, _ []string, _ func(string) string, _ io.Reader, stdout, _ io.Writer) error {
	writeOverview(stdout, "")
	return nil
}

// userOverview answers "secutil user" (a usage error) and "secutil user -h".
func userOverview(rest []string, stdout, stderr io.Writer) error {
	if len(rest) == 0 {
		writeOverview(stderr, "user ")
		return fmt.Errorf("%w: secutil user needs a command: add, list, set, passwd or delete", ErrUsage)
	}
	writeOverview(stdout, "user ")
	return nil
}

// isHelpFlag tells a request for the overview (secutil -h) from the first
// flag of the default serve command (secutil -addr :8080).
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}
