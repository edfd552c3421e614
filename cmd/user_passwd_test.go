package cmd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
)

func TestUserPasswdNeverTakesThePasswordAsAnArgument(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "p.db"))
	mustCLI(t, db, "", "user", "add", "-email", "ann@example.com", "-password", cmdtest.Password)
	_, _, err := cli(t, db, "", nil, "user", "passwd", "ann@example.com", "-password", "amber glacier pocket violin")
	if !errors.Is(err, ErrUsage) {
		t.Fatalf("user passwd -password: %v, want a usage error", err)
	}
	if _, _, err := cli(t, db, "", nil, "user", "passwd", "ann@example.com"); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "no password") {
		t.Fatalf("user passwd with nothing on standard input: %v", err)
	}
}
