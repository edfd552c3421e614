package hashverify

import (
	"errors"
	"testing"
)

// FuzzVerify: no string makes Parse or Verify panic, and every refusal is
// one of the two error types. Fast hashes (digests, md5-crypt) are
// verified too; slow ones are only parsed, which is where their bounds are
// checked: a hostile but bounded one costs up to a second, and the fuzzer
// would spend its time there (the vectors verify each scheme, and
// TestBoundsRefusedBeforeWork the bounds).
func FuzzVerify(f *testing.F) {
	for _, seed := range []string{
		"$2b$04$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
		"$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo",
		"$scrypt$ln=4,r=1,p=1$c2FsdA$a2V5a2V5",
		"$7$06..../....SodiumChloride$ENlyo6fGw4PCcDBOFepfSZjFUnVatHzCcW55.ZGz3B0",
		"scrypt$16$salt$1$1$a2V5",
		"scrypt:16:1:1$salt$abcd",
		"$pbkdf2-sha256$10$0ZrzXitFSGltTQnBWOsdAw$Y11AchqV4b0sUisdZd0Xr97KWoymNE0LNNrnEgY4H9M",
		"$pbkdf2-sha256$i=10,l=4$AAEC$AAECAw",
		"pbkdf2_sha1$10$salt$a2V5",
		"pbkdf2:sha512:10$salt$abcd",
		"$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1",
		"$apr1$r31.....$CnMBtjJHTKsiwi5FN79xp0",
		"$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC",
		"$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
		"8846f7eaee8fb117ad06bdd830b7586c",
		"cbf43926",
	} {
		f.Add("password", seed)
	}
	f.Fuzz(func(t *testing.T, password, hash string) {
		h, err := Parse(hash)
		var unsupported *UnsupportedError
		var invalid *InvalidError
		if err != nil {
			if !errors.As(err, &unsupported) && !errors.As(err, &invalid) {
				t.Fatalf("Parse(%q): an error of type %T", hash, err)
			}
			return
		}
		if h.Slow() {
			return
		}
		res, err := h.Verify(password)
		if err == nil && res.Scheme == "" {
			t.Fatalf("Verify(%q, %q) names no scheme", password, hash)
		}
	})
}
