package passhash_test

import (
	"fmt"
	"strings"
	"testing"

	"secutil/tools/passhash"
)

// cheap keeps the tests fast; the format and logic do not depend on cost.
var cheap = passhash.Params{MemoryKiB: 64, Time: 1, Parallelism: 1}

func TestHashVerify(t *testing.T) {
	h, err := passhash.Hash("correct horse battery staple", cheap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("unexpected PHC string %q", h)
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{
		{"correct horse battery staple", true},
		{"correct horse battery stapl", false},
		{"", false},
	} {
		got, err := passhash.Verify(tc.password, h)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Verify(%q) = %v, want %v", tc.password, got, tc.want)
		}
	}
}

// Zero costs are Default's: the server and the user commands leave them
// unset unless a test or an operator chose them.
func TestZeroParamsAreDefault(t *testing.T) {
	h, err := passhash.Hash("pw", passhash.Params{})
	if err != nil {
		t.Fatal(err)
	}
	d := passhash.Default
	if want := fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$", d.MemoryKiB, d.Time, d.Parallelism); !strings.HasPrefix(h, want) {
		t.Fatalf("Hash with zero costs gave %q, want the prefix %q", h, want)
	}
}

func TestSaltIsRandom(t *testing.T) {
	a, _ := passhash.Hash("same", cheap)
	b, _ := passhash.Hash("same", cheap)
	if a == b {
		t.Fatal("two hashes of one password are equal: salt is not random")
	}
}

// A known answer computed independently with the reference implementation
// (libargon2's argon2id_hash_encoded: password "password", salt "somesalt",
// t=2, 64 KiB, p=1). tools/argon2id checks the parsing and derivation that
// Verify calls on RFC 9106's parameters (64 MiB), which cost 0.2 CPU-s.
func TestVerifyKnownAnswer(t *testing.T) {
	const h = "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI"
	ok, err := passhash.Verify("password", h)
	if err != nil || !ok {
		t.Fatalf("Verify = %v, %v; want true, nil", ok, err)
	}
}

func TestVerifyRejectsMalformedAndHostile(t *testing.T) {
	for _, h := range []string{
		"",
		"plain",
		"$argon2i$v=19$m=64,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
		"$argon2id$v=19$m=4194304,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
		"$argon2id$v=19$m=64,t=0,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
		"$argon2id$v=19$m=64,t=1,p=1$!!$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
	} {
		if _, err := passhash.Verify("password", h); err == nil {
			t.Errorf("Verify accepted %q", h)
		}
	}
}

func FuzzVerify(f *testing.F) {
	f.Add("password", "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc")
	f.Fuzz(func(t *testing.T, password, encoded string) {
		_, _ = passhash.Verify(password, encoded)
	})
}
