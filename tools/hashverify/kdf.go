package hashverify

import (
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/scrypt"

	"secutil/tools/hashgen"
)

func malformed(scheme, form string) error {
	return invalid(scheme, "this is not a well-formed %s hash: the form is %s", scheme, form)
}

// beyond is a hash whose costs are past a bound: err says which.
func beyond(scheme string, err error) error {
	return invalid(scheme, "this %s hash asks for more work than is done here: %v", scheme, err)
}

// number reads a decimal count of at most 10 digits, no sign.
func number(s string) (int, bool) {
	if s == "" || len(s) > 10 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// phcParams reads "a=1,b=2" with exactly the names given, in their order.
func phcParams(field string, names ...string) ([]int, bool) {
	pairs := strings.Split(field, ",")
	if len(pairs) != len(names) {
		return nil, false
	}
	values := make([]int, len(names))
	for i, pair := range pairs {
		name, value, _ := strings.Cut(pair, "=")
		n, ok := number(value)
		if name != names[i] || !ok {
			return nil, false
		}
		values[i] = n
	}
	return values, true
}

// decodeBase64 reads standard base64 with or without padding, and
// passlib's variant of it, which writes '.' for '+'.
func decodeBase64(s string) ([]byte, error) {
	return base64.RawStdEncoding.DecodeString(strings.ReplaceAll(strings.TrimRight(s, "="), ".", "+"))
}

func parseBcrypt(s string) (*Hash, error) {
	if strings.HasPrefix(s, "$2x$") {
		return nil, &UnsupportedError{Detail: "a bcrypt $2x$ hash was made with the sign-extension bug of old crypt_blowfish, which is not reproduced here"}
	}
	// $2b$, two digits of cost, $ and 53 characters of salt and hash in
	// the alphabet crypt uses too.
	if len(s) != 60 || !strings.Contains("aby", s[2:3]) || s[3] != '$' || s[6] != '$' ||
		strings.Trim(s[4:6], "0123456789") != "" || !inCryptAlphabet(s[7:]) {
		return nil, malformed("bcrypt", "$2b$ (or $2a$, $2y$), two digits of cost, $, then 53 characters of salt and hash")
	}
	cost, _ := strconv.Atoi(s[4:6])
	if err := hashgen.CheckBcryptCost(cost); err != nil {
		return nil, beyond("bcrypt", err)
	}
	encoded := []byte(s)
	h := single("bcrypt", "modular crypt", true, func(password []byte) bool {
		// CompareHashAndPassword compares in constant time.
		return bcrypt.CompareHashAndPassword(encoded, password) == nil
	})
	h.refuse = func(password []byte) error {
		if len(password) > 72 {
			return invalid("bcrypt", "bcrypt reads at most 72 bytes of a password, and this one has %d: the bytes past the 72nd would not count", len(password))
		}
		return nil
	}
	return h, nil
}

func parseArgon2(s string) (*Hash, error) {
	parts := strings.Split(s, "$")
	variant := parts[1]
	var derive func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte
	switch variant {
	case "argon2id":
		derive = argon2.IDKey
	case "argon2i":
		derive = argon2.Key
	case "argon2d":
		return nil, &UnsupportedError{Detail: "argon2d hashes cannot be verified here (argon2i and argon2id can)"}
	default:
		return nil, &UnsupportedError{}
	}
	form := "$" + variant + "$v=19$m=…,t=…,p=…$salt$hash"
	if len(parts) == 5 && strings.HasPrefix(parts[2], "m=") {
		return nil, &UnsupportedError{Detail: "an argon2 hash without v= is of version 16 (1.0), which cannot be verified here (v=19 can)"}
	}
	if len(parts) != 6 {
		return nil, malformed(variant, form)
	}
	if parts[2] != "v=19" {
		if strings.HasPrefix(parts[2], "v=") {
			return nil, &UnsupportedError{Detail: fmt.Sprintf("argon2 %.10s hashes cannot be verified here (v=19 can)", parts[2])}
		}
		return nil, malformed(variant, form)
	}
	costs, ok := phcParams(parts[3], "m", "t", "p")
	salt, errSalt := decodeBase64(parts[4])
	key, errKey := decodeBase64(parts[5])
	if !ok || errSalt != nil || errKey != nil || len(salt) == 0 || len(key) < 4 {
		return nil, malformed(variant, form)
	}
	m, t, p := costs[0], costs[1], costs[2]
	if err := hashgen.CheckArgon2(m, t, p); err != nil {
		return nil, beyond(variant, err)
	}
	return single(variant, "PHC", true, func(password []byte) bool {
		return equal(derive(password, salt, uint32(t), uint32(m), uint8(p), uint32(len(key))), key)
	}), nil
}

// scryptHash is the Hash of a scrypt derivation of len(key) bytes, its
// costs checked first.
func scryptHash(format string, n, r, p int, salt, key []byte) (*Hash, error) {
	if err := hashgen.CheckScrypt(n, r, p); err != nil {
		return nil, beyond("scrypt", err)
	}
	if len(key) == 0 {
		return nil, invalid("scrypt", "this scrypt hash has no derived key")
	}
	return single("scrypt", format, true, func(password []byte) bool {
		got, err := scrypt.Key(password, salt, n, r, p, len(key))
		return err == nil && equal(got, key)
	}), nil
}

// scryptN turns scrypt's ln into N, refusing what no bound allows.
func scryptN(ln int) (int, error) {
	if ln < 1 || ln > hashgen.MaxScryptLogN {
		return 0, beyond("scrypt", fmt.Errorf("scrypt ln (log2 N) must be from 1 to %d; got %d", hashgen.MaxScryptLogN, ln))
	}
	return 1 << ln, nil
}

// parsePasslibScrypt reads $scrypt$ln=15,r=8,p=1$salt$hash, the form of
// passlib and tools/hashgen, salt and key in base64.
func parsePasslibScrypt(s string) (*Hash, error) {
	const form = "$scrypt$ln=…,r=…,p=…$salt$hash"
	parts := strings.Split(s, "$")
	if len(parts) != 5 {
		return nil, malformed("scrypt", form)
	}
	costs, ok := phcParams(parts[2], "ln", "r", "p")
	salt, errSalt := decodeBase64(parts[3])
	key, errKey := decodeBase64(parts[4])
	if !ok || errSalt != nil || errKey != nil {
		return nil, malformed("scrypt", form)
	}
	n, err := scryptN(costs[0])
	if err != nil {
		return nil, err
	}
	return scryptHash("passlib", n, costs[1], costs[2], salt, key)
}

// libsodiumOrder writes a 32-byte key as libsodium's $7$ does: three bytes
// at a time, least significant first.
var libsodiumOrder = []int{2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9, 14, 13, 12, 17, 16, 15, 20, 19, 18, 23, 22, 21, 26, 25, 24, 29, 28, 27, 31, 30}

// parseLibsodiumScrypt reads $7$, the scrypt string of libsodium and
// Colin Percival's crypt_scrypt: one character of log2 N, five each of r
// and p (30 bits, least significant first), the salt as written (it is
// hashed as those characters), $ and 43 characters of a 32-byte key.
func parseLibsodiumScrypt(s string) (*Hash, error) {
	const form = "$7$, then log2 N in one character, r and p in five each, the salt, $ and 43 characters of hash"
	i := strings.LastIndexByte(s, '$')
	if len(s) < 14 || i < 14 || len(s)-i-1 != 43 || !inCryptAlphabet(s[3:14]) || !inCryptAlphabet(s[i+1:]) {
		return nil, malformed("scrypt", form)
	}
	decode30 := func(field string) int {
		v := 0
		for j := range 5 {
			v |= strings.IndexByte(cryptAlphabet, field[j]) << (6 * j)
		}
		return v
	}
	n, err := scryptN(strings.IndexByte(cryptAlphabet, s[3]))
	if err != nil {
		return nil, err
	}
	r, p := decode30(s[4:9]), decode30(s[9:14])
	salt, encoded := []byte(s[14:i]), s[i+1:]
	if err := hashgen.CheckScrypt(n, r, p); err != nil {
		return nil, beyond("scrypt", err)
	}
	return single("scrypt", "libsodium", true, func(password []byte) bool {
		got, err := scrypt.Key(password, salt, n, r, p, 32)
		return err == nil && equal(cryptEncode(got, libsodiumOrder), encoded)
	}), nil
}

// parseDjangoScrypt reads Django's scrypt$N$salt$r$p$hash: the salt as
// written, the key in base64.
func parseDjangoScrypt(s string) (*Hash, error) {
	const form = "scrypt$N$salt$r$p$hash"
	parts := strings.Split(s, "$")
	if len(parts) != 6 {
		return nil, malformed("scrypt", form)
	}
	n, okN := number(parts[1])
	r, okR := number(parts[3])
	p, okP := number(parts[4])
	key, err := decodeBase64(parts[5])
	if !okN || !okR || !okP || err != nil {
		return nil, malformed("scrypt", form)
	}
	return scryptHash("Django", n, r, p, []byte(parts[2]), key)
}

// parseWerkzeugScrypt reads Werkzeug's scrypt:N:r:p$salt$hash: the salt
// as written, the key in hex.
func parseWerkzeugScrypt(s string) (*Hash, error) {
	const form = "scrypt:N:r:p$salt$hex"
	parts := strings.Split(s, "$")
	costs := strings.Split(parts[0], ":")
	if len(parts) != 3 || len(costs) != 4 {
		return nil, malformed("scrypt", form)
	}
	n, okN := number(costs[1])
	r, okR := number(costs[2])
	p, okP := number(costs[3])
	key, err := hex.DecodeString(parts[2])
	if !okN || !okR || !okP || err != nil {
		return nil, malformed("scrypt", form)
	}
	return scryptHash("Werkzeug", n, r, p, []byte(parts[1]), key)
}

// pbkdf2PRF returns the hash of a PBKDF2 string by the name it uses.
func pbkdf2PRF(name string) func() hash.Hash {
	switch name {
	case "sha1":
		return sha1.New
	case "sha256":
		return sha256.New
	case "sha512":
		return sha512.New
	}
	return nil
}

// pbkdf2Hash is the Hash of a PBKDF2 derivation of len(key) bytes, its
// work checked first.
func pbkdf2Hash(format, prf string, iterations int, salt, key []byte) (*Hash, error) {
	scheme := "pbkdf2_" + prf
	newHash := pbkdf2PRF(prf)
	if newHash == nil {
		return nil, &UnsupportedError{Detail: fmt.Sprintf("PBKDF2 with %.20q cannot be verified here (sha1, sha256 and sha512 can)", prf)}
	}
	if len(key) == 0 {
		return nil, invalid(scheme, "this %s hash has no derived key", scheme)
	}
	size := newHash().Size()
	blocks := (len(key) + size - 1) / size
	if iterations < 1 || iterations*blocks > MaxPBKDF2Work {
		return nil, beyond(scheme, fmt.Errorf("iterations × blocks of output must be from 1 to %d; %d iterations for a %d-byte key (%d blocks of %d) make %d",
			MaxPBKDF2Work, iterations, len(key), blocks, size, iterations*blocks))
	}
	return single(scheme, format, true, func(password []byte) bool {
		got, err := pbkdf2.Key(newHash, string(password), salt, iterations, len(key))
		return err == nil && equal(got, key)
	}), nil
}

// parseModularPBKDF2 reads $pbkdf2-sha256$ and its sha1 and sha512 kin in
// two forms: passlib's $pbkdf2-sha256$29000$salt$hash (passlib's $pbkdf2$
// is SHA-1), salt and key in its base64 with '.' for '+'; and PHC's
// $pbkdf2-sha256$i=29000[,l=32]$salt$hash.
func parseModularPBKDF2(s string) (*Hash, error) {
	const form = "$pbkdf2-sha256$ then the iterations (passlib) or i=… (PHC), $salt$hash"
	parts := strings.Split(s, "$")
	if len(parts) != 5 {
		return nil, malformed("pbkdf2", form)
	}
	prf := "sha1"
	if parts[1] != "pbkdf2" {
		var ok bool
		if prf, ok = strings.CutPrefix(parts[1], "pbkdf2-"); !ok {
			return nil, malformed("pbkdf2", form)
		}
	}
	salt, errSalt := decodeBase64(parts[3])
	key, errKey := decodeBase64(parts[4])
	if errSalt != nil || errKey != nil {
		return nil, malformed("pbkdf2", form)
	}
	if iterations, ok := number(parts[2]); ok {
		return pbkdf2Hash("passlib", prf, iterations, salt, key)
	}
	costs, ok := phcParams(parts[2], "i")
	if !ok {
		withLength, okL := phcParams(parts[2], "i", "l")
		if !okL || withLength[1] != len(key) {
			return nil, malformed("pbkdf2", form)
		}
		costs = withLength
	}
	return pbkdf2Hash("PHC", prf, costs[0], salt, key)
}

// parseDjangoPBKDF2 reads Django's pbkdf2_sha256$iterations$salt$hash
// (and pbkdf2_sha1, pbkdf2_sha512): the salt as written, the key in base64.
func parseDjangoPBKDF2(s string) (*Hash, error) {
	const form = "pbkdf2_sha256$iterations$salt$hash"
	parts := strings.Split(s, "$")
	if len(parts) != 4 {
		return nil, malformed("pbkdf2", form)
	}
	iterations, ok := number(parts[1])
	key, err := decodeBase64(parts[3])
	if !ok || err != nil {
		return nil, malformed("pbkdf2", form)
	}
	return pbkdf2Hash("Django", strings.TrimPrefix(parts[0], "pbkdf2_"), iterations, []byte(parts[2]), key)
}

// parseWerkzeugPBKDF2 reads Werkzeug's pbkdf2:sha256:iterations$salt$hash:
// the salt as written, the key in hex. A string without its iterations is
// refused: Werkzeug's default has changed from version to version.
func parseWerkzeugPBKDF2(s string) (*Hash, error) {
	const form = "pbkdf2:sha256:iterations$salt$hex"
	parts := strings.Split(s, "$")
	method := strings.Split(parts[0], ":")
	if len(parts) == 3 && len(method) < 3 {
		return nil, invalid("pbkdf2", "this Werkzeug hash does not say its iterations (%s:iterations), and Werkzeug's default has changed from version to version", parts[0])
	}
	if len(parts) != 3 || len(method) != 3 {
		return nil, malformed("pbkdf2", form)
	}
	iterations, ok := number(method[2])
	key, err := hex.DecodeString(parts[2])
	if !ok || err != nil {
		return nil, malformed("pbkdf2", form)
	}
	return pbkdf2Hash("Werkzeug", method[1], iterations, []byte(parts[1]), key)
}
