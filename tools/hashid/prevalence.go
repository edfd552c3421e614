package hashid

import "sync"

// The prevalence table: how often a person holding a string of a given
// shape holds each format, as relative weights. It orders candidates that fit
// a string equally exactly (hashid.go), and it is the prior behind their
// confidence, so only the ratios within one shape matter. Formats not listed
// weigh defaultWeight: for a shape that only hashcat's rarer modes share,
// hashcat's own order (the table's) decides.
//
// The weights are judgement, written down once here: the algorithm most
// software uses for that shape first (MD5 for 32 hex digits, SHA-1 for 40),
// then the ones password dumps and CTFs show next (NTLM, MD4, LM), then
// nested and salted variants of web applications, then formats of single
// products, collider modes and digests no password store uses.
const defaultWeight = 1

var prevalence = []struct {
	name   string
	weight float64
}{
	// 8 hex digits.
	{"CRC32", 100}, {"CRC32C", 20}, {"Java Object hashCode()", 15}, {"Adler-32", 12},
	{"MurmurHash3", 8}, {"FNV-1a-32", 6}, {"FNV-1-32", 2},
	// 8 hex digits, a colon and an 8-digit seed or plaintext block.
	{"MurmurHash", 4}, {"Skip32 (PT = $salt, key = $pass)", 2},
	// 16 hex digits.
	{"MySQL323", 50}, {"LM", 7}, {"Oracle H: Type (Oracle 7+)", 5}, {"Half MD5", 4},
	{"CRC64Jones", 1.5}, {"FNV-1a-64", 1.2},
	{"DES (PT = $salt, key = $pass)", 3}, {"3DES (PT = $salt, key = $pass)", 2},
	// 24 hex digits.
	{"PKZIP Master Key", 5}, {"PKZIP Master Key (6 byte optimization)", 2},
	// 32 hex digits.
	{"MD5", 100}, {"NTLM", 40}, {"MD4", 8}, {"md5(md5($pass))", 5},
	{"md5(utf16le($pass))", 3}, {"md5(sha1($pass))", 2.5}, {"Radmin2", 2}, {"md5(md5(md5($pass)))", 2},
	{"Lotus Notes/Domino 5", 1.5}, {"md5(strtoupper(md5($pass)))", 1.2},
	{"RIPEMD-128", 0.5}, {"MD2", 0.4}, {"Haval-128", 0.3}, {"Tiger-128", 0.3}, {"Snefru-128", 0.2},
	// 32 hex digits, a colon and a salt; the salted forms people meet
	// first, then framework- and product-specific ones (which also rank
	// higher when the salt has their length: vBulletin 3 or 30
	// characters, IPB 5, MyBB 8, osCommerce 2, Joomla 32, PrestaShop 56).
	{"md5($pass.$salt)", 10}, {"md5($salt.$pass)", 9}, {"PostgreSQL", 6},
	{"Domain Cached Credentials (DCC), MS Cache", 5}, {"HMAC-MD5 (key = $pass)", 4}, {"HMAC-MD5 (key = $salt)", 3.5},
	{"md5($salt.md5($pass))", 3}, {"md5(md5($pass).md5($salt))", 2.5}, {"Skype", 2}, {"md5($salt.$pass.$salt)", 2},
	{"md5(utf16le($pass).$salt)", 1.5}, {"md5($salt.utf16le($pass))", 1.5},
	{"Joomla < 2.5.18", 4}, {"AES-128-ECB NOKDF (PT = $salt, key = $pass)", 3},
	{"AES-256-ECB NOKDF (PT = $salt, key = $pass)", 2}, {"osCommerce, xt:Commerce", 3}, {"SolarWinds Serv-U", 2},
	// 40 hex digits.
	{"SHA-1", 100}, {"MySQL4.1/MySQL5", 20}, {"RIPEMD-160", 10}, {"sha1(sha1($pass))", 5},
	{"sha1(md5($pass))", 4}, {"sha1(utf16le($pass))", 3}, {"sha1(md5(md5($pass)))", 2},
	{"HAS-160", 0.6}, {"Tiger-160", 0.5}, {"Haval-160", 0.3},
	// 40 hex digits, a colon and a salt.
	{"sha1($pass.$salt)", 10}, {"sha1($salt.$pass)", 9}, {"SMF (Simple Machines Forum) > v1.1", 4},
	{"HMAC-SHA1 (key = $pass)", 4}, {"HMAC-SHA1 (key = $salt)", 3.5}, {"sha1(sha1($pass).$salt)", 2},
	{"sha1($salt.sha1($pass))", 2}, {"sha1(md5($pass).$salt)", 2}, {"Huawei sha1(md5($pass).$salt)", 1.5},
	{"sha1($salt.$pass.$salt)", 1.5}, {"sha1(utf16le($pass).$salt)", 1.5}, {"sha1($salt.utf16le($pass))", 1.5},
	{"WBB3 (Woltlab Burning Board)", 3}, {"Redmine", 3}, {"Oracle S: Type (Oracle 11+)", 3},
	// 48, 56 hex digits.
	{"macOS v10.4, macOS v10.5, macOS v10.6", 10}, {"Tiger-192", 3},
	{"SHA-224", 100}, {"SHA3-224", 15}, {"Keccak-224", 5}, {"SHA-512/224", 3},
	// 64 hex digits.
	{"SHA-256", 100}, {"SHA3-256", 20}, {"Keccak-256", 15}, {"sha256(sha256_bin($pass))", 8},
	{"sha256(md5($pass))", 6}, {"sha256(utf16le($pass))", 5}, {"BLAKE2s-256", 4}, {"GOST R 34.11-94", 3},
	{"GOST R 34.11-2012 (Streebog) 256-bit, big-endian", 3}, {"SM3", 2}, {"SHA-512/256", 2},
	{"RIPEMD-256", 0.5}, {"Haval-256", 0.5}, {"Snefru-256", 0.3}, {"Skein-256", 0.3},
	// 64 hex digits, a colon and a salt.
	{"sha256($pass.$salt)", 10}, {"sha256($salt.$pass)", 9}, {"HMAC-SHA256 (key = $pass)", 4},
	{"HMAC-SHA256 (key = $salt)", 3.5}, {"sha256(sha256($pass).$salt)", 2}, {"sha256($salt.sha256($pass))", 2},
	{"sha256($salt.$pass.$salt)", 1.5}, {"sha256(utf16le($pass).$salt)", 1.5}, {"sha256($salt.utf16le($pass))", 1.5},
	{"HMAC-Streebog-256 (key = $pass), big-endian", 0.5}, {"HMAC-Streebog-256 (key = $salt), big-endian", 0.5},
	// 96 hex digits, with or without a salt.
	{"SHA-384", 100}, {"SHA3-384", 15}, {"Keccak-384", 5}, {"sha384(utf16le($pass))", 3}, {"BLAKE2b-384", 2},
	{"sha384($pass.$salt)", 10}, {"sha384($salt.$pass)", 9}, {"sha384(utf16le($pass).$salt)", 2}, {"sha384($salt.utf16le($pass))", 2},
	// 128 hex digits, with or without a salt.
	{"SHA-512", 100}, {"SHA3-512", 15}, {"Whirlpool", 10}, {"BLAKE2b-512", 8}, {"Keccak-512", 6},
	{"GOST R 34.11-2012 (Streebog) 512-bit, big-endian", 4}, {"sha512(utf16le($pass))", 3},
	{"BitShares v0.x - sha512(sha512_bin(pass))", 2},
	{"sha512($pass.$salt)", 10}, {"sha512($salt.$pass)", 9}, {"HMAC-SHA512 (key = $pass)", 4},
	{"HMAC-SHA512 (key = $salt)", 3.5}, {"sha512(utf16le($pass).$salt)", 1.5}, {"sha512($salt.utf16le($pass))", 1.5},
	{"HMAC-Streebog-512 (key = $pass), big-endian", 0.5}, {"HMAC-Streebog-512 (key = $salt), big-endian", 0.5},
	// 160 hex digits.
	{"Oracle T: Type (Oracle 12+)", 3},
	// 28 base64 characters (a SHA-1 digest).
	{"SHA-1 (base64)", 6}, {"PeopleSoft", 5}, {"Umbraco HMAC-SHA1", 4},
	// Crypt-like strings of one alphabet and length.
	{"descrypt", 100}, {"Cisco-PIX MD5", 10}, {"bigcrypt", 2}, {"Plaintext", 2},
	// bcrypt's shape: bcrypt itself, far before its pre-hashed variants.
	{"bcrypt", 100}, {"bcrypt(md5($pass)) / bcryptmd5", 2}, {"bcrypt(sha1($pass)) / bcryptsha1", 1.5},
	// Network captures: hashcat's main modes before their NT-hash variants.
	{"NetNTLMv1 / NetNTLMv1+ESS", 10}, {"NetNTLMv2", 10}, {"WPA-PBKDF2-PMKID+EAPOL", 10},
	// Werkzeug's md5$ (hashcat cracks it) before Django's of the same shape.
	{"Django MD5", 0.9},
	// Documents: the real formats before hashcat's collider modes.
	{"MS Office <= 2003 $0/$1, MD5 + RC4", 10}, {"MS Office <= 2003 $3/$4, SHA1 + RC4", 10},
	{"PDF 1.1 - 1.3 (Acrobat 2 - 4)", 10}, {"PDF 1.4 - 1.6 (Acrobat 5 - 8)", 5},
	{"SAP CODVN B (BCODE)", 5}, {"SAP CODVN F/G (PASSCODE)", 5},
	{"KeePass 1 (AES/Twofish) and KeePass 2 (AES)", 5}, {"AxCrypt 2 AES-128", 2},
	// Bitcoin addresses: compressed keys are today's default.
	{"Bitcoin WIF private key (P2PKH), compressed", 2}, {"Bitcoin WIF private key (P2WPKH, Bech32), compressed", 2},
	{"Bitcoin WIF private key (P2SH(P2WPKH)), compressed", 2},
	// Volume encryption: the default PRF and the single-cipher (512-bit
	// XTS key) volumes first, boot volumes after.
	{"DiskCryptor SHA512 + XTS 512 bit", 3},
	{"TrueCrypt RIPEMD160 + XTS 512 bit", 10}, {"TrueCrypt SHA512 + XTS 512 bit", 8},
	{"TrueCrypt Whirlpool + XTS 512 bit", 6}, {"TrueCrypt RIPEMD160 + XTS 512 bit + boot-mode", 5},
	{"TrueCrypt RIPEMD160 + XTS 1024 bit", 4}, {"TrueCrypt SHA512 + XTS 1024 bit", 3},
	{"VeraCrypt SHA512 + XTS 512 bit", 10}, {"VeraCrypt SHA256 + XTS 512 bit", 8},
	{"VeraCrypt Whirlpool + XTS 512 bit", 6}, {"VeraCrypt RIPEMD160 + XTS 512 bit", 5},
	{"VeraCrypt Streebog-512 + XTS 512 bit", 4}, {"VeraCrypt SHA256 + XTS 512 bit + boot-mode", 3},
	{"VeraCrypt SHA512 + XTS 1024 bit", 2.5},
}

// wrappers are the scheme prefixes of LDAP (RFC 2307) and Dovecot that hold
// another hash after "{SCHEME}"; the names are the formats the scheme
// vouches for, if it names one. Built on first use, not at every start.
var wrappers = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"CRYPT":        nil,
		"MD5-CRYPT":    {"md5crypt"},
		"MD5":          {"md5crypt"},
		"SHA256-CRYPT": {"sha256crypt"},
		"SHA512-CRYPT": {"sha512crypt"},
		"BLF-CRYPT":    {"bcrypt"},
		"BCRYPT":       {"bcrypt"},
		"DES-CRYPT":    {"descrypt"},
		"ARGON2":       {"Argon2"},
		"ARGON2I":      {"Argon2"},
		"ARGON2ID":     {"Argon2"},
		"PLAIN-MD5":    {"MD5"},
		"PLAIN-MD4":    {"MD4"},
		"LDAP-MD5":     {"MD5 (base64)"},
		"NTLM":         {"NTLM"},
		"LANMAN":       {"LM"},
		"SHA1":         {"SHA-1 (base64)", "SHA-1"},
		"SHA256":       {"SHA-256"},
		"SHA512":       {"SHA-512"},
	}
})
