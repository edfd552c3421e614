package cmd

import "testing"

func TestHashDBPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ given, db, want string }{
		{"", "secutil.db", "secutil-hashes.db"},
		{"", "/var/lib/secutil/main.sqlite", "/var/lib/secutil/main-hashes.db"},
		{"", "file:data/x.db", "data/x-hashes.db"},
		{"", "postgres://u@h/db", "secutil-hashes.db"},
		{"/srv/h.db", "postgres://u@h/db", "/srv/h.db"},
	} {
		if got := hashDBPath(tt.given, tt.db); got != tt.want {
			t.Errorf("hashDBPath(%q, %q) = %q, want %q", tt.given, tt.db, got, tt.want)
		}
	}
}
