package cmd

import "testing"

func TestNearestCommand(t *testing.T) {
	t.Parallel()
	for typed, want := range map[string]string{
		"sevre": "serve", "serv": "serve", "backpu": "backup", "vesrion": "version", "import": "import-wordlist",
		"lst": "user list", "add": "user add", "user lst": "user list", "user delet": "user delete", "passwd": "user passwd",
		"usr": "user", "uesr": "user",
		"frobnicate": "", "x": "", "he": "",
	} {
		if got := nearestCommand(typed); got != want {
			t.Errorf("nearestCommand(%q) = %q, want %q", typed, got, want)
		}
	}
}
