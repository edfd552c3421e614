package hashgen_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/scrypt"

	"secutil/tools/hashgen"
)

// Known answers from the algorithms' published test vectors:
// MD5 — RFC 1321 §A.5; MD4 — RFC 1320 §A.5; SHA-1, SHA-2 — FIPS 180-4
// examples (NIST CSRC "abc"); SHA-3 — FIPS 202 examples (NIST CSRC "abc");
// BLAKE2b-512 and BLAKE2s-256 — RFC 7693 Appendices A and B; BLAKE2b-256 —
// the BLAKE2 reference implementation's "abc" output; RIPEMD-160 — the
// RIPEMD-160 paper's test vectors; CRC-32 — the "123456789" check value of
// the CRC catalogue; NTLM of "password" — the classic value in Microsoft's
// and every cracking tool's documentation.
var knownAnswers = []struct{ algorithm, input, want string }{
	{"md5", "abc", "900150983cd24fb0d6963f7d28e17f72"},
	{"md5", "", "d41d8cd98f00b204e9800998ecf8427e"},
	{"sha1", "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
	{"sha224", "abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
	{"sha256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	{"sha384", "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
	{"sha512", "abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
	{"sha512_224", "abc", "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"},
	{"sha512_256", "abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"},
	{"sha3_224", "abc", "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf"},
	{"sha3_256", "abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
	{"sha3_384", "abc", "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25"},
	{"sha3_512", "abc", "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"},
	{"blake2b_512", "abc", "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"},
	{"blake2b_256", "abc", "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"},
	{"blake2s_256", "abc", "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"},
	{"ripemd160", "abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"},
	{"md4", "abc", "a448017aaf21d8525fc10ae87aa6729d"},
	{"ntlm", "password", "8846f7eaee8fb117ad06bdd830b7586c"},
	{"crc32", "123456789", "cbf43926"},
}

func TestKnownAnswers(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range knownAnswers {
		name, got, err := hashgen.Generate(tc.algorithm, tc.input)
		if err != nil || name != tc.algorithm || got != tc.want {
			t.Errorf("%s(%q) = %s %s %v, want %s", tc.algorithm, tc.input, name, got, err, tc.want)
		}
		covered[tc.algorithm] = true
	}
	for _, a := range hashgen.Algorithms() {
		if !covered[a] && a != "bcrypt" && a != "argon2id" && a != "scrypt" {
			t.Errorf("no known-answer test for %s", a)
		}
	}
}

func TestAliases(t *testing.T) {
	for alias, want := range map[string]string{
		"SHA-256": "sha256", "sha3-512": "sha3_512", "NTLM": "ntlm", "Blake2b-512": "blake2b_512",
		"SHA512/224": "", "sha512-224": "sha512_224", " md5 ": "md5", "RIPEMD-160": "ripemd160", "whirlpool": "",
	} {
		got, ok := hashgen.Canonical(alias)
		if got != want || ok != (want != "") {
			t.Errorf("Canonical(%q) = %q, %v; want %q", alias, got, ok, want)
		}
	}
	_, _, err := hashgen.Generate("whirlpool", "x")
	var unknown *hashgen.UnknownAlgorithmError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "sha3_256") {
		t.Fatalf("unknown algorithm error %v does not list the allowed values", err)
	}
}

func TestBcrypt(t *testing.T) {
	_, h, err := hashgen.Generate("BCRYPT", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$2b$10$") || len(h) != 60 {
		t.Fatalf("bcrypt hash %q", h)
	}
	// Go's verifier reads $2b$ as it reads $2a$.
	if err := bcrypt.CompareHashAndPassword([]byte(h), []byte("correct horse")); err != nil {
		t.Fatalf("does not verify: %v", err)
	}
	var input *hashgen.InputError
	if _, _, err := hashgen.Generate("bcrypt", strings.Repeat("x", 73)); !errors.As(err, &input) {
		t.Fatalf("73 bytes: %v", err)
	}
}

// parsePHC splits "$id$params$salt$hash" (argon2id has a v= field too).
func parsePHC(t *testing.T, s string) (params string, salt, key []byte) {
	t.Helper()
	parts := strings.Split(s, "$")
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[len(parts)-2])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[len(parts)-1])
	if err1 != nil || err2 != nil {
		t.Fatalf("PHC string %q", s)
	}
	return parts[len(parts)-3], salt, key
}

func TestArgon2idVerifies(t *testing.T) {
	_, h, err := hashgen.Generate("argon2id", "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	params, salt, key := parsePHC(t, h)
	if !strings.HasPrefix(h, "$argon2id$v=19$") || params != "m=19456,t=2,p=1" || len(salt) != 16 {
		t.Fatalf("argon2id string %q", h)
	}
	if got := argon2.IDKey([]byte("hunter2"), salt, 2, 19456, 1, uint32(len(key))); string(got) != string(key) {
		t.Fatal("re-derived key differs")
	}
}

func TestScryptVerifies(t *testing.T) {
	// RFC 7914 §12 vector, through the same library call Generate uses.
	got, _ := scrypt.Key([]byte("password"), []byte("NaCl"), 1024, 8, 16, 64)
	if want := "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"; hex.EncodeToString(got) != want {
		t.Fatalf("RFC 7914 vector: %x", got)
	}
	_, h, err := hashgen.Generate("scrypt", "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	params, salt, key := parsePHC(t, h)
	if !strings.HasPrefix(h, "$scrypt$") || params != "ln=15,r=8,p=1" {
		t.Fatalf("scrypt string %q", h)
	}
	again, _ := scrypt.Key([]byte("hunter2"), salt, 1<<15, 8, 1, len(key))
	if string(again) != string(key) {
		t.Fatal("re-derived key differs")
	}
}

func TestSaltedHashesDiffer(t *testing.T) {
	// The lowest costs: the salt is drawn whatever they are.
	for a, cheap := range map[string]hashgen.Options{
		"argon2id": {Argon2MemoryKiB: 8, Argon2Time: 1, Argon2Parallelism: 1},
		"scrypt":   {ScryptN: 2, ScryptR: 1, ScryptP: 1},
	} {
		_, x, errX := hashgen.GenerateWith(a, "same", cheap)
		_, y, errY := hashgen.GenerateWith(a, "same", cheap)
		if errX != nil || errY != nil {
			t.Fatalf("%s: %v, %v", a, errX, errY)
		}
		if x == y {
			t.Errorf("%s: two hashes of one input are equal (salt not random)", a)
		}
	}
}

func TestPlaintextLimit(t *testing.T) {
	var input *hashgen.InputError
	if _, _, err := hashgen.Generate("md5", strings.Repeat("x", hashgen.MaxPlaintextBytes+1)); !errors.As(err, &input) {
		t.Fatalf("oversized input: %v", err)
	}
}

func FuzzGenerate(f *testing.F) {
	f.Add("sha-256", "abc")
	f.Add("NTLM", "pässwörd")
	f.Fuzz(func(t *testing.T, algorithm, plaintext string) {
		name, _ := hashgen.Canonical(algorithm)
		if name == "bcrypt" || name == "argon2id" || name == "scrypt" {
			return // slow by design; covered above
		}
		if _, _, err := hashgen.Generate(algorithm, plaintext); err != nil && name != "" && len(plaintext) <= hashgen.MaxPlaintextBytes {
			t.Fatalf("Generate(%q, %d bytes): %v", algorithm, len(plaintext), err)
		}
	})
}

func BenchmarkDigest(b *testing.B) {
	for _, a := range []string{"md5", "sha256", "ntlm", "sha3_256"} {
		b.Run(a, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hashgen.Generate(a, "correct horse battery staple")
			}
		})
	}
}

func TestSlow(t *testing.T) {
	for _, name := range hashgen.Algorithms() {
		want := name == "bcrypt" || name == "argon2id" || name == "scrypt"
		if got := hashgen.Slow(name); got != want {
			t.Errorf("Slow(%q) = %v", name, got)
		}
	}
	if !hashgen.Slow("SCRYPT") || hashgen.Slow("no-such-hash") {
		t.Fatal("Slow must take aliases and refuse unknown names")
	}
}

// TestCostsHonoured: each cost the caller chooses is the one in the
// string, and the string verifies with it.
func TestCostsHonoured(t *testing.T) {
	t.Parallel()
	_, h, err := hashgen.GenerateWith("bcrypt", "pw", hashgen.Options{BcryptCost: 5})
	if err != nil || !strings.HasPrefix(h, "$2b$05$") {
		t.Fatalf("bcrypt cost 5: %q %v", h, err)
	}
	if bcrypt.CompareHashAndPassword([]byte(h), []byte("pw")) != nil {
		t.Fatal("bcrypt at cost 5 does not verify")
	}

	_, h, err = hashgen.GenerateWith("argon2id", "pw", hashgen.Options{Argon2MemoryKiB: 64, Argon2Time: 3, Argon2Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	params, salt, key := parsePHC(t, h)
	if params != "m=64,t=3,p=2" || string(argon2.IDKey([]byte("pw"), salt, 3, 64, 2, uint32(len(key)))) != string(key) {
		t.Fatalf("argon2id m=64,t=3,p=2: %q", h)
	}
	// Fields left zero keep their defaults.
	_, h, _ = hashgen.GenerateWith("argon2id", "pw", hashgen.Options{Argon2Time: 1})
	if params, _, _ := parsePHC(t, h); params != "m=19456,t=1,p=1" {
		t.Fatalf("argon2id t=1 alone: %q", h)
	}

	_, h, err = hashgen.GenerateWith("scrypt", "pw", hashgen.Options{ScryptN: 1024, ScryptR: 4, ScryptP: 2})
	if err != nil {
		t.Fatal(err)
	}
	params, salt, key = parsePHC(t, h)
	again, _ := scrypt.Key([]byte("pw"), salt, 1024, 4, 2, len(key))
	if params != "ln=10,r=4,p=2" || string(again) != string(key) {
		t.Fatalf("scrypt N=1024,r=4,p=2: %q", h)
	}
}

// TestCostBounds: a cost out of bounds is refused with a message that
// names it and the bounds, before any work (the largest would take
// gigabytes and minutes).
func TestCostBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		algorithm string
		opts      hashgen.Options
		want      string
	}{
		{"bcrypt", hashgen.Options{BcryptCost: 3}, "bcrypt cost must be from 4 to 14; got 3"},
		{"bcrypt", hashgen.Options{BcryptCost: 31}, "bcrypt cost must be from 4 to 14; got 31"},
		{"bcrypt", hashgen.Options{BcryptCost: -1}, "got -1"},
		{"argon2id", hashgen.Options{Argon2MemoryKiB: 1 << 30}, "argon2 memory (KiB) with parallelism 1 must be from 8 to 262144"},
		{"argon2id", hashgen.Options{Argon2MemoryKiB: 15, Argon2Parallelism: 2}, "must be from 16 to"},
		{"argon2id", hashgen.Options{Argon2Time: 11}, "argon2 time must be from 1 to 10; got 11"},
		{"argon2id", hashgen.Options{Argon2Parallelism: 9}, "argon2 parallelism must be from 1 to 8; got 9"},
		{"argon2id", hashgen.Options{Argon2MemoryKiB: 256 * 1024, Argon2Time: 5}, "memory × time must be at most 1048576 KiB"},
		{"scrypt", hashgen.Options{ScryptN: 1000}, "scrypt N must be a power of two from 2 to 1048576; got 1000"},
		{"scrypt", hashgen.Options{ScryptN: 1 << 21}, "power of two"},
		{"scrypt", hashgen.Options{ScryptR: 33}, "scrypt r must be from 1 to 32"},
		{"scrypt", hashgen.Options{ScryptP: 17}, "scrypt p must be from 1 to 16"},
		{"scrypt", hashgen.Options{ScryptN: 1 << 20, ScryptR: 8}, "memory 128·N·r must be at most 256 MiB; N=1048576, r=8 need 1024 MiB"},
		{"scrypt", hashgen.Options{ScryptN: 1 << 18, ScryptR: 8, ScryptP: 3}, "work 128·N·r·p must be at most 512 MiB"},
		{"sha256", hashgen.Options{BcryptCost: 12}, `sha256 does not take the parameter "cost"`},
		{"bcrypt", hashgen.Options{ScryptN: 1024, ScryptP: 1}, `bcrypt does not take the parameters "n" and "p"`},
		{"scrypt", hashgen.Options{Argon2MemoryKiB: 64}, `scrypt does not take the parameter "memory"`},
	} {
		_, _, err := hashgen.GenerateWith(tc.algorithm, "pw", tc.opts)
		var input *hashgen.InputError
		if !errors.As(err, &input) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: %v, want %q", tc.algorithm, tc.opts, err, tc.want)
		}
	}
	// The bounds themselves are accepted (checked without the work).
	for _, err := range []error{
		hashgen.CheckBcryptCost(hashgen.MaxBcryptCost),
		hashgen.CheckArgon2(hashgen.MaxArgon2MemoryKiB, 4, hashgen.MaxArgon2Parallelism),
		hashgen.CheckArgon2(64*1024, hashgen.MaxArgon2Time, 1),
		hashgen.CheckScrypt(1<<18, 8, 2),
		hashgen.CheckScrypt(1<<hashgen.MaxScryptLogN, 2, 1),
	} {
		if err != nil {
			t.Errorf("a cost at the bounds is refused: %v", err)
		}
	}
}
