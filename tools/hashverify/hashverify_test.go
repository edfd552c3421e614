package hashverify_test

import (
	"errors"
	"strings"
	"testing"

	"secutil/tools/hashgen"
	"secutil/tools/hashverify"
)

// vectors are known answers, each from where its comment says: the
// specifications' own test vectors, the reference implementations' and
// libraries' documented outputs, openssl passwd (which implements md5-crypt
// and SHA-crypt independently of this package), and Python's hashlib for
// the PBKDF2 and scrypt strings of Django, passlib, PHC and Werkzeug.
var vectors = []struct {
	password, hash, scheme, format string
}{
	// bcrypt: Openwall's crypt_blowfish tests ($2a$), and its $2y$ vector
	// of a byte over 0x7f.
	{"U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "bcrypt", "modular crypt"},
	{"", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy", "bcrypt", "modular crypt"},
	{"\xa3", "$2y$05$/OK.fbVrR/bpIqNJ5ianF.Sa7shbm4.OzKpvFnX1pQLmQW96oUlCq", "bcrypt", "modular crypt"},

	// argon2: the reference implementation's test suite at 256 KiB
	// (argon2i in two lanes), and libxcrypt's argon2id; the work does not
	// change with the memory, and 64 MiB ones cost a second of CPU each.
	{"password", "$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E", "argon2i", "PHC"},
	{"password", "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4", "argon2id", "PHC"},

	// scrypt: libsodium's and crypt_scrypt's $7$ (N=4, and RFC 7914's third
	// vector); Django's and Werkzeug's from hashlib.scrypt, at N=16 and at
	// their defaults.
	{"pleaseletmein", "$7$06..../....SodiumChloride$ENlyo6fGw4PCcDBOFepfSZjFUnVatHzCcW55.ZGz3B0", "scrypt", "libsodium"},
	{"pleaseletmein", "$7$C6..../....SodiumChloride$kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D", "scrypt", "libsodium"},
	{"correct horse", "scrypt$16$pepper9x$8$1$lXfWhfto20DmoUTHoXhvfBhqt8DzEY9EKVHbmr30PXmJxAlLHxxWPoluNoMr+NV4ff6tqJvQpHF7AOmhv0ZnIg==", "scrypt", "Django"},
	{"correct horse", "scrypt$16384$pepper9x$8$1$a/H7Mzhug1om8xc+DZNKf+PXUMTxTMEFIbeabE/XSFKJwRAd1UhQ2TmLAZWgQTKwPZzvjDQvH9kv+ZBRDgWCZg==", "scrypt", "Django"},
	{"correct horse", "scrypt:16:8:1$Zf3kQ9rT1xYp8LmN$22da5652941cb4b99ce5138af034f11c07d8f3b3daa83016ca9122444be6c8c0df283ebb93ac1eda43729fa0141e0a1dc4c4b840c5a1ac596c22ec2e75979b82", "scrypt", "Werkzeug"},
	{"correct horse", "scrypt:32768:8:1$Zf3kQ9rT1xYp8LmN$ee10fcb0b6b01f40dc2789248e05600bf87ae9dfca906efba70c6e9da28aca91f234c9b5c2a11e2bf2bf0aa34115b96cbac25b1fbc8eb1407714cdfc9210b5f6", "scrypt", "Werkzeug"},

	// PBKDF2: passlib's documented example; the rest from hashlib.pbkdf2_hmac
	// (Django's and Werkzeug's formats at 10,000 rounds: their defaults,
	// 870,000 and 600,000, cost a second of CPU for the same code path; the
	// 1,000-round ones lead the costlier vectors of their format).
	{"password", "$pbkdf2-sha256$6400$0ZrzXitFSGltTQnBWOsdAw$Y11AchqV4b0sUisdZd0Xr97KWoymNE0LNNrnEgY4H9M", "pbkdf2_sha256", "passlib"},
	{"correct horse", "$pbkdf2$1000$AAECAwQFBgcICQoLDA0ODw$ndhWw3a4srcTtr4HQFTLiKRlVuA", "pbkdf2_sha1", "passlib"},
	{"correct horse", "$pbkdf2$131000$AAECAwQFBgcICQoLDA0ODw$kbfyaFq.k8Tj3Nifsdff2jC.KBU", "pbkdf2_sha1", "passlib"},
	{"correct horse", "$pbkdf2-sha512$1000$AAECAwQFBgcICQoLDA0ODw$Xpx07WjVx4vCIvrmBRj8uOoVVtGqJqtUv2J5bhizSQs7osCteF7W4A61dZDqSIqQjO.dxO6p5FT/Uy7QRBXSXA", "pbkdf2_sha512", "passlib"},
	{"correct horse", "$pbkdf2-sha512$25000$AAECAwQFBgcICQoLDA0ODw$no0pQATH8VKOEmBWJw50YZrk2tmzRj9Ae6xEw1vLLehsKeOPWOMVonpc79bKsUZLnXvPrnJcFkEt9hwlEgxdKw", "pbkdf2_sha512", "passlib"},
	{"correct horse", "$pbkdf2-sha256$i=10000,l=64$AAECAwQFBgcICQoLDA0ODw$5RUHDgNTp9sBOWGYS4e6u57cz/Sq3/TQgaDP/8MW6L/eNZN5updoogDm/+UZSB3KdfSkPwIP/A2vXogU8PJ6DQ", "pbkdf2_sha256", "PHC"},
	{"correct horse", "$pbkdf2-sha256$i=10000$AAECAwQFBgcICQoLDA0ODw$5RUHDgNTp9sBOWGYS4e6u57cz/Sq3/TQgaDP/8MW6L8", "pbkdf2_sha256", "PHC"},
	{"correct horse", "pbkdf2_sha256$10000$seasalt2024$JyylfoeAORrhXrkf3ZuzBdlinHj63IwJnjv8oPnLIKo=", "pbkdf2_sha256", "Django"},
	{"correct horse", "pbkdf2_sha1$10000$seasalt2024$5w1/VL5idFCJ/sq0jHvQdAf9LOg=", "pbkdf2_sha1", "Django"},
	{"correct horse", "pbkdf2_sha512$1000$seasalt2024$DvWz62ynnZFybda3WNhyztNhIcm9WDIKu+wIQUBFkJPWn9BgcqKViZ7JrWc2mlahmDFmsKM1rwSF98I3ImCrDA==", "pbkdf2_sha512", "Django"},
	{"correct horse", "pbkdf2_sha512$20000$seasalt2024$eqmeu4u9BCQ1vlplGNxQb0zqb+uuff6tVp5sz7ri7JpkklHcVt08taF3hLQSn2yAG314lFdo75JOn9XdRyY+gQ==", "pbkdf2_sha512", "Django"},
	{"correct horse", "pbkdf2:sha256:10000$Zf3kQ9rT1xYp8LmN$7d78df50f3b843f9447bad032485b70623a1927b20d9bf162e06a24e3e4ed27a", "pbkdf2_sha256", "Werkzeug"},

	// md5-crypt and Apache's apr1: openssl passwd -1 / -apr1.
	{"Hello world!", "$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1", "md5_crypt", "modular crypt"},
	{"", "$1$abc$Or2rbeUYTvt12aiVzMuS/.", "md5_crypt", "modular crypt"},
	{"this is a password longer than sixteen bytes", "$1$x$CsA.O0kx00P832srBXh.b.", "md5_crypt", "modular crypt"},
	{"pässwörd", "$1$saltsalt$VReRfkQ8Hs1aayf/oxMkG/", "md5_crypt", "modular crypt"},
	{"Hello world!", "$apr1$saltstri$aGfuB7Lcvs2TUeFTqUVfN0", "apr1_md5_crypt", "modular crypt"},
	{"pässwörd", "$apr1$r31.....$CnMBtjJHTKsiwi5FN79xp0", "apr1_md5_crypt", "modular crypt"},

	// SHA-crypt: the specification's test vectors (its salts of more than
	// 16 characters appear cut, as crypt writes them; rounds=10 is raised
	// to 1000).
	{"Hello world!", "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5", "sha256_crypt", "modular crypt"},
	{"Hello world!", "$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA", "sha256_crypt", "modular crypt"},
	{"This is just a test", "$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5", "sha256_crypt", "modular crypt"},
	{"a very much longer text to encrypt.  This one even stretches over morethan one line.", "$5$rounds=1400$anotherlongsalts$Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1", "sha256_crypt", "modular crypt"},
	{"we have a short salt string but not a short password", "$5$rounds=77777$short$JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/", "sha256_crypt", "modular crypt"},
	{"a short string", "$5$rounds=123456$asaltof16chars..$gP3VQ/6X7UUEW3HkBn2w1/Ptq2jxPyzV/cZKmF/wJvD", "sha256_crypt", "modular crypt"},
	{"the minimum number is still observed", "$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC", "sha256_crypt", "modular crypt"},
	{"the minimum number is still observed", "$5$rounds=10$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC", "sha256_crypt", "modular crypt"},
	{"Hello world!", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1", "sha512_crypt", "modular crypt"},
	{"Hello world!", "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.", "sha512_crypt", "modular crypt"},
	{"This is just a test", "$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0", "sha512_crypt", "modular crypt"},
	{"a very much longer text to encrypt.  This one even stretches over morethan one line.", "$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1", "sha512_crypt", "modular crypt"},
	{"we have a short salt string but not a short password", "$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0", "sha512_crypt", "modular crypt"},
	{"a short string", "$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1", "sha512_crypt", "modular crypt"},
	{"the minimum number is still observed", "$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.", "sha512_crypt", "modular crypt"},

	// Hex digests: RFC 1321's MD5 of "abc", upper case too; NTLM of
	// "password"; FIPS 180-4's SHA-1 and SHA-256 of "abc".
	{"abc", "900150983cd24fb0d6963f7d28e17f72", "md5", "hex"},
	{"abc", "900150983CD24FB0D6963F7D28E17F72", "md5", "hex"},
	{"password", "8846f7eaee8fb117ad06bdd830b7586c", "ntlm", "hex"},
	{"abc", "a448017aaf21d8525fc10ae87aa6729d", "md4", "hex"},
	{"abc", "a9993e364706816aba3e25717850c26c9cd0d89d", "sha1", "hex"},
	{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256", "hex"},
	{"abc", "  ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f\n", "sha512", "hex"},
}

func TestVectors(t *testing.T) {
	t.Parallel()
	wrongTried := map[string]bool{}
	for _, v := range vectors {
		// A wrong password is tried once for each scheme and format, on
		// its first vector, its cheapest: the slow ones take up to a few
		// hundred milliseconds each.
		tryWrong := !wrongTried[v.scheme+v.format]
		wrongTried[v.scheme+v.format] = true
		t.Run(v.hash, func(t *testing.T) {
			t.Parallel()
			got, err := hashverify.Verify(v.password, v.hash)
			if err != nil || !got.Match || got.Scheme != v.scheme || got.Format != v.format {
				t.Fatalf("Verify(%q) = %+v, %v; want a %s (%s) match", v.password, got, err, v.scheme, v.format)
			}
			if !tryWrong {
				return
			}
			// One character more is not the password: same scheme, no match.
			wrong, err := hashverify.Verify(v.password+"x", v.hash)
			if err != nil || wrong.Match || wrong.Format != v.format {
				t.Fatalf("a wrong password: %+v, %v", wrong, err)
			}
		})
	}
}

// TestAmbiguousHex: 32 hex digits are MD5, NTLM or MD4; the answer names
// the one that matched, and lists all three.
func TestAmbiguousHex(t *testing.T) {
	t.Parallel()
	got, err := hashverify.Verify("password", "8846F7EAEE8FB117AD06BDD830B7586C")
	if err != nil || !got.Match || got.Scheme != "ntlm" || strings.Join(got.Candidates, ",") != "md5,ntlm,md4" {
		t.Fatalf("NTLM of password: %+v, %v", got, err)
	}
	got, _ = hashverify.Verify("wrong", "8846f7eaee8fb117ad06bdd830b7586c")
	if got.Match || got.Scheme != "md5" || len(got.Candidates) != 3 {
		t.Fatalf("no match: %+v, want the likeliest scheme and every candidate", got)
	}
	if got, _ := hashverify.Verify("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"); strings.Join(got.Candidates, ",") != "sha1,ripemd160" {
		t.Fatalf("40 digits: %+v", got)
	}
}

// TestWhatHashgenMakesVerifies: every hash tools/hashgen writes, fast or
// salted, verifies here under the name hashgen gave it.
func TestWhatHashgenMakesVerifies(t *testing.T) {
	t.Parallel()
	cheap := hashgen.Options{}
	for _, name := range hashgen.Algorithms() {
		opts := cheap
		switch name {
		case "bcrypt":
			opts = hashgen.Options{BcryptCost: 4}
		case "argon2id":
			opts = hashgen.Options{Argon2MemoryKiB: 64, Argon2Time: 1}
		case "scrypt":
			opts = hashgen.Options{ScryptN: 1024}
		}
		canonical, h, err := hashgen.GenerateWith(name, "pässword", opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := hashverify.Verify("pässword", h)
		if err != nil || !got.Match || got.Scheme != canonical {
			t.Errorf("%s %q: %+v, %v", name, h, got, err)
		}
		if got, _ := hashverify.Verify("password", h); got.Match {
			t.Errorf("%s %q matches another password", name, h)
		}
	}
}

// TestBoundsRefusedBeforeWork: a hash that asks for more work than the
// bounds is refused with an error that names the bound, before any work
// (the first would take minutes and the argon2 and scrypt ones gigabytes).
func TestBoundsRefusedBeforeWork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ hash, want string }{
		{"$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "bcrypt cost must be from 4 to 14; got 31"},
		{"$argon2id$v=19$m=4194304,t=3,p=1$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo/8GaUw434IimaPqxwCo", "argon2 memory (KiB) with parallelism 1 must be from 8 to 262144; got 4194304"},
		{"$argon2id$v=19$m=65536,t=1000,p=1$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo/8GaUw434IimaPqxwCo", "argon2 time must be from 1 to 10"},
		{"$argon2i$v=19$m=262144,t=8,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", "memory × time must be at most"},
		{"$argon2id$v=19$m=65536,t=2,p=255$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo/8GaUw434IimaPqxwCo", "argon2 parallelism must be from 1 to 8; got 255"},
		{"$scrypt$ln=30,r=8,p=1$c2FsdA$a2V5a2V5a2V5", "scrypt ln (log2 N) must be from 1 to 20; got 30"},
		{"$scrypt$ln=20,r=8,p=1$c2FsdA$a2V5a2V5a2V5", "scrypt memory 128·N·r must be at most 256 MiB"},
		{"$7$z6..../....SodiumChloride$kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D", "scrypt ln (log2 N) must be from 1 to 20; got 63"},
		{"$7$C6..../zzzzzSodiumChloride$kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D", "scrypt p must be from 1 to 16"},
		{"scrypt$16384$salt$8$64$a2V5a2V5", "scrypt p must be from 1 to 16; got 64"},
		{"scrypt:1048576:16:1$salt$abcdef", "scrypt memory 128·N·r must be at most 256 MiB"},
		{"scrypt:1000:8:1$salt$abcdef", "scrypt N must be a power of two"},
		{"pbkdf2_sha256$9999999999$salt$a2V5a2V5", "iterations × blocks of output must be from 1 to 4000000"},
		{"$pbkdf2-sha1$i=3000000,l=60$AAECAwQFBgcICQoLDA0ODw$" + strings.Repeat("A", 80), "3000000 iterations for a 60-byte key (3 blocks of 20) make 9000000"},
		{"pbkdf2:sha256:0$salt$abcd", "iterations × blocks of output must be from 1"},
		{"$6$rounds=999999999$salt$" + strings.Repeat("a", 86), "rounds must be at most 1000000; got 999999999"},
	} {
		_, err := hashverify.Parse(tc.hash)
		var invalid *hashverify.InvalidError
		if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "asks for more work than is done here") {
			t.Errorf("%.40s…: %v, want %q", tc.hash, err, tc.want)
		}
	}
}

// TestPasswordBounds: bcrypt does not read past 72 bytes, SHA-crypt hashes
// the password each round (so its rounds bound its length), and every
// scheme has MaxPasswordBytes.
func TestPasswordBounds(t *testing.T) {
	t.Parallel()
	bcrypt := "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
	sha := "$6$rounds=1000000$short$" + strings.Repeat("a", 86)
	for _, tc := range []struct{ password, hash, want string }{
		{strings.Repeat("x", 73), bcrypt, "bcrypt reads at most 72 bytes of a password, and this one has 73"},
		{strings.Repeat("x", 87), sha, "at 1000000 rounds this sha512_crypt hash takes a password of at most 86 bytes here"},
		{strings.Repeat("x", hashverify.MaxPasswordBytes+1), "900150983cd24fb0d6963f7d28e17f72", "the password is longer than 1024 bytes"},
	} {
		_, err := hashverify.Verify(tc.password, tc.hash)
		var invalid *hashverify.InvalidError
		if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d bytes against %.20s…: %v, want %q", len(tc.password), tc.hash, err, tc.want)
		}
	}
	// At the default 5,000 rounds, the longest password is taken.
	if _, err := hashverify.Verify(strings.Repeat("x", hashverify.MaxPasswordBytes), "$5$s$"+strings.Repeat("a", 43)); err != nil {
		t.Fatal(err)
	}
}

// TestUnsupported: a string in no known scheme is refused with the list of
// the schemes that are; known but unverifiable ones say what they are.
func TestUnsupported(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ hash, want string }{
		{"", "the hash is empty"},
		{"hello world", "this is not a hash in a scheme that can be verified"},
		{"{SSHA}abcdef", "this is not a hash"},
		{"abc", "3 hex digits is the length of no digest (these have 8, 32, 40, 56, 64, 96 or 128)"},
		{"$y$j9T$salt$hash", "this is not a hash"},
		{"$argon2d$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo", "argon2d hashes cannot be verified here"},
		{"$argon2i$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", "version 16"},
		{"$argon2id$v=16$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", "argon2 v=16 hashes cannot be verified"},
		{"$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "sign-extension bug"},
		{"pbkdf2_md5$1000$salt$a2V5", `PBKDF2 with "md5" cannot be verified here`},
	} {
		_, err := hashverify.Parse(tc.hash)
		var unsupported *hashverify.UnsupportedError
		if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), "; the schemes that can be: bcrypt ($2a$, $2b$, $2y$), argon2i and argon2id") {
			t.Errorf("%q: %v, want %q and the list of schemes", tc.hash, err, tc.want)
		}
	}
}

// TestMalformed: a string of a known scheme that is not well formed says
// which form it should have.
func TestMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ hash, want string }{
		{"$2b$10$tooshort", "not a well-formed bcrypt hash"},
		{"$argon2id$v=19$m=65536,p=4,t=2$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo", "$argon2id$v=19$m=…,t=…,p=…$salt$hash"},
		{"$argon2id$v=19$m=65536,t=2,p=4$!!!$GpZ3sK/oH9p7VIiV56G/64Zo", "not a well-formed argon2id hash"},
		{"$scrypt$ln=15,r=8$c2FsdA$a2V5", "$scrypt$ln=…,r=…,p=…$salt$hash"},
		{"$7$C6..../....SodiumChloride$short", "not a well-formed scrypt hash"},
		{"$pbkdf2-sha256$i=1000,l=99$AAEC$AAEC", "not a well-formed pbkdf2 hash"},
		{"pbkdf2_sha256$-5$salt$a2V5", "not a well-formed pbkdf2 hash"},
		{"pbkdf2:sha256$salt$abcd", "does not say its iterations"},
		{"$1$toolongsalt$abcdefghijklmnopqrstuv", "salt of at most 8 characters"},
		{"$5$salt$short", "a hash of 43"},
		{"$6$rounds=many$salt$" + strings.Repeat("a", 86), "rounds=N$salt$hash, N a whole number"},
		{strings.Repeat("a", hashverify.MaxHashBytes+1), "a hash string is at most 1024 bytes"},
	} {
		_, err := hashverify.Parse(tc.hash)
		var invalid *hashverify.InvalidError
		if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: %v, want %q", tc.hash, err, tc.want)
		}
	}
}

func TestSlow(t *testing.T) {
	t.Parallel()
	for hash, slow := range map[string]bool{
		"900150983cd24fb0d6963f7d28e17f72":         false,
		"$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1":       false,
		"$5$saltstring$" + strings.Repeat("a", 43): true,
		vectors[0].hash:                            true,
		vectors[3].hash:                            true,
	} {
		h, err := hashverify.Parse(hash)
		if err != nil || h.Slow() != slow {
			t.Errorf("%.30s: Slow() = %v, %v; want %v", hash, h != nil && h.Slow(), err, slow)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, v := range []struct{ name, password, hash string }{
		{"md5", "abc", "900150983cd24fb0d6963f7d28e17f72"},
		{"md5_crypt", "Hello world!", "$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1"},
		{"sha512_crypt_5000", "Hello world!", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1"},
	} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				hashverify.Verify(v.password, v.hash)
			}
		})
	}
}
