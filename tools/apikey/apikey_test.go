package apikey_test

import (
	"regexp"
	"testing"

	"secutil/tools/apikey"
)

var keyShape = regexp.MustCompile(`^sk_[0-9A-Za-z]{46}$`)

func TestNewIsWellFormedAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		k := apikey.New()
		if !keyShape.MatchString(k) {
			t.Fatalf("key %q has the wrong shape", k)
		}
		if !apikey.WellFormed(k) {
			t.Fatalf("WellFormed(%q) = false", k)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
	}
}

func TestWellFormedRejects(t *testing.T) {
	k := apikey.New()
	flipped := []byte(k)
	if flipped[10] == 'a' {
		flipped[10] = 'b'
	} else {
		flipped[10] = 'a'
	}
	for _, bad := range []string{"", "sk_", k[:len(k)-1], k + "x", "pk_" + k[3:], string(flipped), "sk_" + "!" + k[4:]} {
		if apikey.WellFormed(bad) {
			t.Errorf("WellFormed(%q) = true", bad)
		}
	}
}

func TestHashAndHint(t *testing.T) {
	if got, want := len(apikey.Hash("x")), 32; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got, want := apikey.Hint("sk_AbCdEfGh"), "sk_AbCd…"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if a, b := apikey.NewToken(), apikey.NewToken(); a == b || len(a) != 43 {
		t.Fatalf("tokens %q %q", a, b)
	}
}

func FuzzWellFormed(f *testing.F) {
	f.Add(apikey.New())
	f.Add("sk_000")
	f.Fuzz(func(t *testing.T, s string) {
		_ = apikey.WellFormed(s)
	})
}

func TestKnownChecksum(t *testing.T) {
	// The base62 CRC32-IEEE of forty '0's is 2kaqcA;
	// server tests rely on this key being well formed.
	if !apikey.WellFormed("sk_" + "0000000000000000000000000000000000000000" + "2kaqcA") {
		t.Fatal("known well-formed key rejected")
	}
}
