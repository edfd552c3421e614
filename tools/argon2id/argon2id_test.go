package argon2id_test

import (
	"bytes"
	"errors"
	"testing"

	"secutil/tools/argon2id"
)

func TestUsableAndWithin(t *testing.T) {
	ceiling := argon2id.Params{MemoryKiB: 1024, Time: 4, Parallelism: 2}
	tests := []struct {
		p              argon2id.Params
		usable, within bool
	}{
		{argon2id.Params{MemoryKiB: 8, Time: 1, Parallelism: 1}, true, true},
		{argon2id.Params{MemoryKiB: 1024, Time: 4, Parallelism: 2}, true, true},
		{argon2id.Params{MemoryKiB: 7, Time: 1, Parallelism: 1}, false, true},  // under 8 KiB a lane
		{argon2id.Params{MemoryKiB: 15, Time: 1, Parallelism: 2}, false, true}, // under 8 KiB a lane
		{argon2id.Params{MemoryKiB: 64, Time: 0, Parallelism: 1}, false, true},
		{argon2id.Params{MemoryKiB: 64, Time: 1, Parallelism: 0}, false, true},
		{argon2id.Params{MemoryKiB: 1025, Time: 1, Parallelism: 1}, true, false},
		{argon2id.Params{MemoryKiB: 64, Time: 5, Parallelism: 1}, true, false},
		{argon2id.Params{MemoryKiB: 64, Time: 1, Parallelism: 3}, true, false},
	}
	for _, tt := range tests {
		if got := tt.p.Usable(); got != tt.usable {
			t.Errorf("%+v.Usable() = %v, want %v", tt.p, got, tt.usable)
		}
		if got := tt.p.Within(ceiling); got != tt.within {
			t.Errorf("%+v.Within(%+v) = %v, want %v", tt.p, ceiling, got, tt.within)
		}
	}
}

// RFC 9106 parameters, computed independently with the reference argon2 CLI
// (echo -n password | argon2 somesalt -id -t 2 -m 16 -p 1).
const knownPHC = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"

func TestKnownAnswer(t *testing.T) {
	p, salt, key, err := argon2id.ParsePHC(knownPHC)
	if err != nil {
		t.Fatal(err)
	}
	want := argon2id.Params{MemoryKiB: 65536, Time: 2, Parallelism: 1}
	if p != want || string(salt) != "somesalt" {
		t.Fatalf("parsed %+v, salt %q", p, salt)
	}
	if got := p.Key([]byte("password"), salt, uint32(len(key))); !bytes.Equal(got, key) {
		t.Fatalf("Key = %x, want %x", got, key)
	}
	if got := argon2id.PHC(p, salt, key); got != knownPHC {
		t.Fatalf("PHC = %q, want %q", got, knownPHC)
	}
}

func TestParsePHCRejects(t *testing.T) {
	for _, s := range []string{
		"",
		"$argon2i$v=19$m=64,t=1,p=1$c29tZXNhbHQ$CTFh",
		"$argon2id$v=16$m=64,t=1,p=1$c29tZXNhbHQ$CTFh",
		"$argon2id$v=19$m=64,t=1$c29tZXNhbHQ$CTFh",
		"$argon2id$v=19$m=64,t=1,p=256$c29tZXNhbHQ$CTFh", // p is one byte
		"$argon2id$v=19$m=64,t=1,p=1$!!$CTFh",
		"$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$CTFh=",
		"$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ",
		"x$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$CTFh",
	} {
		if _, _, _, err := argon2id.ParsePHC(s); !errors.Is(err, argon2id.ErrNotPHC) {
			t.Errorf("ParsePHC(%q) = %v, want ErrNotPHC", s, err)
		}
	}
}

// FuzzParsePHC checks that whatever ParsePHC accepts, PHC writes back to
// something that parses to the same parts.
func FuzzParsePHC(f *testing.F) {
	f.Add(knownPHC)
	f.Add("$argon2id$v=19$m=64,t=1,p=1$$")
	f.Fuzz(func(t *testing.T, s string) {
		p, salt, key, err := argon2id.ParsePHC(s)
		if err != nil {
			return
		}
		p2, salt2, key2, err := argon2id.ParsePHC(argon2id.PHC(p, salt, key))
		if err != nil || p2 != p || !bytes.Equal(salt2, salt) || !bytes.Equal(key2, key) {
			t.Fatalf("round trip of %q: %+v %x %x, %v", s, p2, salt2, key2, err)
		}
	})
}
