package hashid

import (
	"regexp"
	"strings"
)

// noMode marks formats hashcat cannot crack.
const noMode = -1

// format is one row of the identification table.
type format struct {
	name   string
	mode   int
	john   string
	prefix string         // literal start, for prefixed formats
	re     *regexp.Regexp // whole-string check (the salt alone for salted rows); nil: any remainder
	conf   float64
	minLen int // length gate for structural rows
	maxLen int
	notHex bool                // structural row that an all-hex input is better explained by a hex digest
	needs  byte                // structural row: a byte the input must contain, checked before the regexp
	check  func(s string) bool // structural row: a parser used instead of re
}

// Character classes used by the patterns below.
const (
	hx   = `[0-9a-fA-F]`
	c64  = `[./0-9A-Za-z]`  // crypt(3) base64 alphabet
	b64  = `[A-Za-z0-9+/]`  // standard base64 alphabet
	b64p = `[A-Za-z0-9+/=]` // with padding
	rest = `.+`             // opaque remainder of a tool-extracted blob (checked without a regexp)
)

// Confidence levels. Prefixed formats are near-certain; raw digests and
// salted hex are only a guess ordered by how common each algorithm is.
const (
	confPrefixed   = 0.95
	confHexTop     = 0.6
	confHexStep    = 0.04
	confFloor      = 0.05
	confBase64Top  = 0.35
	confBase64Step = 0.05
)

type prefixedRow struct {
	prefix, tail string // the regexp is ^QuoteMeta(prefix)(?:tail)$
	name         string
	mode         int
	john         string
}

// prefixed formats start with a literal that identifies them.
var prefixedRows = []prefixedRow{
	// Unix modular crypt.
	{"$1$", c64 + `{0,8}\$` + c64 + `{22}`, "md5crypt (MD5 Unix, Cisco-IOS type 5)", 500, "md5crypt"},
	{"$apr1$", c64 + `{0,8}\$` + c64 + `{22}`, "Apache apr1 MD5", 1600, "md5crypt"},
	{"$md5", `(,rounds=\d+)?\$` + c64 + `{0,16}\$\$?` + c64 + `{22}`, "Sun MD5 crypt", 3300, "SunMD5"},
	{"$5$", `(rounds=\d+\$)?` + c64 + `{0,16}\$` + c64 + `{43}`, "sha256crypt (SHA-256 Unix)", 7400, "sha256crypt"},
	{"$6$", `(rounds=\d+\$)?` + c64 + `{0,16}\$` + c64 + `{86}`, "sha512crypt (SHA-512 Unix)", 1800, "sha512crypt"},
	{"$2", `[abxy]?\$\d\d\$` + c64 + `{53}`, "bcrypt", 3200, "bcrypt"},
	{"$y$", c64 + `+\$` + c64 + `*\$` + c64 + `{43}`, "yescrypt", noMode, "crypt"},
	{"$gy$", c64 + `+\$` + c64 + `*\$` + c64 + `{43}`, "gost-yescrypt", noMode, "crypt"},
	{"$7$", c64 + `{11,}\$` + c64 + `{43}`, "scrypt (crypt $7$)", noMode, "scrypt"},
	{"$sha1$", `\d+\$` + c64 + `{1,64}\$` + c64 + `{28}`, "sha1crypt (NetBSD, Juniper)", 15100, "sha1crypt"},
	{"$3$$", hx + `{32}`, "FreeBSD nthash crypt", 1000, "nt"},
	{"$NT$", hx + `{32}`, "NTLM ($NT$)", 1000, "nt"},
	{"_", c64 + `{19}`, "BSDi extended DES crypt", 12400, "bsdicrypt"},
	{"$argon2id$", `(v=\d+\$)?m=\d+,t=\d+,p=\d+\$` + b64 + `+\$` + b64 + `+`, "Argon2id", 34000, "argon2"},
	{"$argon2i$", `(v=\d+\$)?m=\d+,t=\d+,p=\d+\$` + b64 + `+\$` + b64 + `+`, "Argon2i", 34000, "argon2"},
	{"$argon2d$", `(v=\d+\$)?m=\d+,t=\d+,p=\d+\$` + b64 + `+\$` + b64 + `+`, "Argon2d", 34000, "argon2"},
	{"SCRYPT:", `\d+:\d+:\d+:` + b64p + `+:` + b64p + `+`, "scrypt (hashcat SCRYPT:)", 8900, "scrypt"},

	// Web applications and password libraries.
	{"$P$", c64 + `{31}`, "phpass (WordPress, Joomla >= 2.5.18)", 400, "phpass"},
	{"$H$", c64 + `{31}`, "phpass (phpBB3)", 400, "phpass"},
	{"$S$", c64 + `{52}`, "Drupal 7", 7900, "Drupal7"},
	{"$B$", hx + `+\$` + hx + `{32}`, "MediaWiki B type", 3711, "mediawiki"},
	{"$PHPS$", hx + `+\$` + hx + `{32}`, "PHPS", 2612, "PHPS"},
	{"$bcrypt-sha256$", rest, "passlib bcrypt-sha256", noMode, ""},
	{"$pbkdf2-sha256$", `\d+\$` + c64 + `+\$` + c64 + `{43}`, "passlib PBKDF2-SHA256", 20300, "PBKDF2-HMAC-SHA256"},
	{"$pbkdf2-sha512$", `\d+\$` + c64 + `+\$` + c64 + `{86}`, "passlib PBKDF2-SHA512", 20200, "PBKDF2-HMAC-SHA512"},
	{"$pbkdf2$", `\d+\$` + c64 + `+\$` + c64 + `{27}`, "passlib PBKDF2-SHA1", 20400, "PBKDF2-HMAC-SHA1"},
	{"$scrypt$", `ln=\d+,r=\d+,p=\d+\$` + `[A-Za-z0-9+/.=]*\$[A-Za-z0-9+/.=]+`, "passlib scrypt", noMode, ""},
	{"pbkdf2_sha256$", `\d+\$[^$]+\$` + b64 + `{43}=`, "Django PBKDF2-SHA256", 10000, "Django"},
	{"pbkdf2_sha1$", `\d+\$[^$]+\$` + b64 + `{27}=`, "Django PBKDF2-SHA1", noMode, ""},
	{"sha1$", `[^$]*\$` + hx + `{40}`, "Django SHA-1", 124, ""},
	{"md5$", `[^$]*\$` + hx + `{32}`, "Django MD5", noMode, ""},
	{"bcrypt_sha256$", `\$2[aby]\$\d\d\$` + c64 + `{53}`, "Django bcrypt-SHA256", noMode, ""},
	{"bcrypt$", `\$2[aby]\$\d\d\$` + c64 + `{53}`, "Django bcrypt", 3200, "bcrypt"},
	{"argon2$", `argon2(id|i|d)\$` + rest, "Django Argon2", 34000, "argon2"},
	{"scrypt$", `[^$]+\$\d+\$\d+\$\d+\$` + b64p + `+`, "Django scrypt", noMode, ""},
	{"pbkdf2:sha256", `(:\d+)?\$[^$]+\$` + hx + `{64}`, "Werkzeug PBKDF2-SHA256", noMode, ""},
	{"scrypt:", `\d+:\d+:\d+\$[^$]+\$` + hx + `{128}`, "Werkzeug scrypt", noMode, ""},
	{"sha1:", `\d+:(\d+:)?` + b64p + `+:` + b64p + `+`, "PBKDF2-HMAC-SHA1", 12000, "PBKDF2-HMAC-SHA1"},
	{"sha256:", `\d+:` + b64p + `+:` + b64p + `+`, "PBKDF2-HMAC-SHA256", 10900, "PBKDF2-HMAC-SHA256"},
	{"sha512:", `\d+:` + b64p + `+:` + b64p + `+`, "PBKDF2-HMAC-SHA512", 12100, "PBKDF2-HMAC-SHA512"},
	{"md5:", `\d+:` + b64p + `+:` + b64p + `+`, "PBKDF2-HMAC-MD5", 11900, "PBKDF2-HMAC-MD5"},
	{"grub.pbkdf2.sha512.", `\d+\.` + hx + `+\.` + hx + `+`, "GRUB 2 (PBKDF2-SHA512)", 7200, "PBKDF2-HMAC-SHA512"},
	{"$ml$", `\d+\$` + hx + `{64}\$` + hx + `{128,256}`, "macOS 10.8+ (PBKDF2-SHA512)", 7100, "PBKDF2-HMAC-SHA512"},
	{"$episerver$*0*", rest, "EPiServer 6.x < .NET 4", 141, "EPiServer"},
	{"$episerver$*1*", rest, "EPiServer 6.x >= .NET 4", 1441, "EPiServer"},
	{"$shiro1$SHA-512$", rest, "Apache Shiro 1 SHA-512", 12150, ""},
	{"{PKCS5S2}", b64 + `{64}`, "Atlassian (PBKDF2-HMAC-SHA1)", 12001, "atlassian"},
	{"$BLAKE2$", hx + `{128}`, "BLAKE2b-512 ($BLAKE2$)", 600, ""},
	{"eyJ", `[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*`, "JWT (JSON Web Token)", 16500, ""},

	// LDAP and AIX.
	{"{SSHA}", b64 + `{28,}={0,2}`, "LDAP {SSHA} (salted SHA-1)", 111, "Salted-SHA1"},
	{"{SHA}", b64 + `{27}=`, "LDAP {SHA} (SHA-1)", 101, "nsldap"},
	{"{SSHA256}", b64 + `{44,}={0,2}`, "LDAP {SSHA256}", 1411, ""},
	{"{SSHA512}", b64 + `{88,}={0,2}`, "LDAP {SSHA512}", 1711, "SSHA512"},
	{"{SHA256}", b64 + `{43}=`, "LDAP {SHA256}", noMode, ""},
	{"{SHA384}", b64 + `{64}`, "LDAP {SHA384}", noMode, ""},
	{"{SHA512}", b64 + `{86}==`, "LDAP {SHA512}", noMode, ""},
	{"{MD5}", b64 + `{22}==`, "LDAP {MD5}", noMode, ""},
	{"{SMD5}", b64 + `{24,}={0,2}`, "LDAP {SMD5} (salted MD5)", noMode, ""},
	{"{CRYPT}", rest, "LDAP {CRYPT} (wrapped crypt(3))", noMode, ""},
	{"{PBKDF2_SHA256}", b64p + `+`, "RedHat 389-DS (PBKDF2-HMAC-SHA256)", 10901, ""},
	{"{x-issha, ", `\d+\}` + b64p + `+`, "SAP CODVN H (PWDSALTEDHASH) iSSHA-1", 10300, "saph"},
	{"{smd5}", c64 + `+\$` + c64 + `{22}`, "AIX {smd5}", 6300, "aix-smd5"},
	{"{ssha1}", `\d\d\$` + c64 + `+\$` + c64 + `{27}`, "AIX {ssha1}", 6700, "aix-ssha1"},
	{"{ssha256}", `\d\d\$` + c64 + `+\$` + c64 + `{43}`, "AIX {ssha256}", 6400, "aix-ssha256"},
	{"{ssha512}", `\d\d\$` + c64 + `+\$` + c64 + `{86}`, "AIX {ssha512}", 6500, "aix-ssha512"},

	// Databases.
	{"*", hx + `{40}`, "MySQL 4.1+ (double SHA-1)", 300, "mysql-sha1"},
	{"$mysqlna$", rest, "MySQL CRAM (SHA-1)", 11200, "mysqlna"},
	{"0x0100", hx + `{88}`, "MSSQL 2000", 131, "mssql"},
	{"0x0100", hx + `{48}`, "MSSQL 2005", 132, "mssql05"},
	{"0x0200", hx + `{136}`, "MSSQL 2012/2014", 1731, "mssql12"},
	{"0xc007", hx + `{84}`, "Sybase ASE", 8000, "SybaseASE"},
	{"md5", hx + `{32}`, "PostgreSQL MD5 (md5 prefix)", 12, "postgres"},
	{"$postgres$", rest, "PostgreSQL CRAM (MD5)", 11100, "postgres"},
	{"SCRAM-SHA-256$", `\d+:` + b64p + `+\$` + b64p + `+:` + b64p + `+`, "PostgreSQL SCRAM-SHA-256", 28600, ""},
	{"S:", hx + `{60}`, "Oracle 11g (S:, SHA-1)", 112, "oracle11"},
	{"T:", hx + `{160}`, "Oracle 12c+ (T:, PBKDF2-SHA512)", 12300, "oracle12c"},
	{"$mongodb-scram$*0*", rest, "MongoDB ServerKey SCRAM-SHA-1", 24100, "mongodb"},
	{"$mongodb-scram$*1*", rest, "MongoDB ServerKey SCRAM-SHA-256", 24200, "mongodb"},
	{"$racf$*", rest, "RACF", 8500, "RACF"},
	{"(G", b64 + `{19,20}\)`, "Lotus Notes/Domino 6", 8700, "dominosec"},
	{"(H", b64 + `{20,}\)`, "Lotus Notes/Domino 8", 9100, "dominosec8"},
	{"@m@", hx + `{32}@` + hx + `{16}`, "QNX /etc/shadow (MD5)", 19000, ""},
	{"@s@", hx + `{64}@` + hx + `{16}`, "QNX /etc/shadow (SHA256)", 19100, ""},
	{"@S@", hx + `{128}@` + hx + `{16}`, "QNX /etc/shadow (SHA512)", 19200, ""},

	// Windows, Kerberos and network authentication.
	{"$DCC2$", `\d+#[^#]+#` + hx + `{32}`, "Domain Cached Credentials 2 (DCC2, MS Cache 2)", 2100, "mscash2"},
	{"$NETNTLM$", hx + `{16}\$` + hx + `{48}`, "NetNTLMv1 (john)", 5500, "netntlm"},
	{"$NETNTLMv2$", rest, "NetNTLMv2 (john)", 5600, "netntlmv2"},
	{"$krb5pa$23$", rest, "Kerberos 5 etype 23 AS-REQ Pre-Auth", 7500, "krb5pa-md5"},
	{"$krb5pa$17$", rest, "Kerberos 5 etype 17 AS-REQ Pre-Auth", 19800, "krb5pa-sha1"},
	{"$krb5pa$18$", rest, "Kerberos 5 etype 18 AS-REQ Pre-Auth", 19900, "krb5pa-sha1"},
	{"$krb5tgs$23$", rest, "Kerberos 5 etype 23 TGS-REP", 13100, "krb5tgs"},
	{"$krb5tgs$17$", rest, "Kerberos 5 etype 17 TGS-REP (AES128)", 19600, ""},
	{"$krb5tgs$18$", rest, "Kerberos 5 etype 18 TGS-REP (AES256)", 19700, ""},
	{"$krb5asrep$23$", rest, "Kerberos 5 etype 23 AS-REP", 18200, "krb5asrep"},
	{"$krb5asrep$17$", rest, "Kerberos 5 etype 17 AS-REP (AES128)", 32100, "krb5asrep"},
	{"$krb5asrep$18$", rest, "Kerberos 5 etype 18 AS-REP (AES256)", 32200, "krb5asrep"},
	{"$krb5db$17$", rest, "Kerberos 5 etype 17 DB", 28800, ""},
	{"$krb5db$18$", rest, "Kerberos 5 etype 18 DB", 28900, ""},
	{"$dpapimk$1*", rest, "DPAPI masterkey file v1", 15300, "DPAPImk"},
	{"$dpapimk$2*", rest, "DPAPI masterkey file v2", 15900, "DPAPImk"},
	{"WPA*01*", hx + `{32}\*` + hx + `{12}\*` + hx + `{12}\*` + rest, "WPA-PMKID-PBKDF2", 22000, "wpapsk"},
	{"WPA*02*", hx + `{32}\*` + hx + `{12}\*` + hx + `{12}\*` + rest, "WPA-EAPOL-PBKDF2", 22000, "wpapsk"},
	{"$sip$*", rest, "SIP digest authentication (MD5)", 11400, "SIP"},
	{"$SNMPv3$", rest, "SNMPv3 HMAC", 25000, ""},
	{"$tacacs-plus$0$", rest, "TACACS+", 16100, "tacacs-plus"},
	{"$cram_md5$", rest, "CRAM-MD5", 10200, ""},
	{"$radmin2$", hx + `{32}`, "Radmin2 ($radmin2$)", 9900, "radmin"},
	{"$radmin3$", rest, "Radmin3", 29200, ""},
	{"$LM$", hx + `{16}`, "LM ($LM$, one half)", 3000, "LM"},
	{"M$", `[^#]+#` + hx + `{32}`, "Domain Cached Credentials (john M$)", 1100, "mscash"},
	{"$WPAPSK$", rest, "WPA-PSK (john $WPAPSK$)", 2500, "wpapsk"},
	{"$vnc$*", rest, "VNC challenge/response", noMode, "VNC"},
	{"$o5logon$", rest, "Oracle O5LOGON", noMode, "o5logon"},

	// Network devices.
	{"$8$", c64 + `{14}\$` + c64 + `{43}`, "Cisco-IOS type 8 (PBKDF2-SHA256)", 9200, ""},
	{"$9$", c64 + `{14}\$` + c64 + `{43}`, "Cisco-IOS type 9 (scrypt)", 9300, ""},
	{"AK1", b64 + `{43}=`, "FortiGate (FortiOS)", 7000, "Fortigate"},
	{"SH2", b64p + `+`, "FortiGate256 (FortiOS256)", 26300, "Fortigate256"},
	{"3u+UR6n8AgAB", b64p + `+`, "Juniper IVE", 501, ""},
	{"$solarwinds$0$", rest, "SolarWinds Orion", 21500, ""},

	// Archives, documents and disks.
	{"$7z$", rest, "7-Zip", 11600, "7z"},
	{"$RAR3$*0*", rest, "RAR3-hp", 12500, "rar"},
	{"$RAR3$*1*", rest, "RAR3-p", 23800, "rar"},
	{"$rar5$", rest, "RAR5", 13000, "RAR5"},
	{"$zip2$", rest, "WinZip (AES)", 13600, "ZIP"},
	{"$pkzip2$", rest, "PKZIP ($pkzip2$)", 17200, "PKZIP"},
	{"$pkzip$", rest, "PKZIP ($pkzip$)", 17200, "PKZIP"},
	{"$pdf$1*2*40*", rest, "PDF 1.1-1.3 (Acrobat 2-4)", 10400, "PDF"},
	{"$pdf$2*3*128*", rest, "PDF 1.4-1.6 (Acrobat 5-8)", 10500, "PDF"},
	{"$pdf$4*4*128*", rest, "PDF 1.4-1.6 (Acrobat 5-8, AES)", 10500, "PDF"},
	{"$pdf$5*5*256*", rest, "PDF 1.7 Level 3 (Acrobat 9)", 10600, "PDF"},
	{"$pdf$5*6*256*", rest, "PDF 1.7 Level 8 (Acrobat 10-11)", 10700, "PDF"},
	{"$office$*2007*", rest, "MS Office 2007", 9400, "office"},
	{"$office$*2010*", rest, "MS Office 2010", 9500, "office"},
	{"$office$*2013*", rest, "MS Office 2013", 9600, "office"},
	{"$oldoffice$", `[01]\*` + rest, "MS Office <= 2003 (MD5 + RC4)", 9700, "oldoffice"},
	{"$oldoffice$", `[34]\*` + rest, "MS Office <= 2003 (SHA1 + RC4)", 9800, "oldoffice"},
	{"$odf$*0*", rest, "OpenDocument (ODF) 1.1", 18600, "ODF"},
	{"$odf$*1*", rest, "OpenDocument (ODF) 1.2", 18400, "ODF"},
	{"$iwork$", rest, "Apple iWork", 23300, "iwork"},
	{"$keepass$", rest, "KeePass", 13400, "KeePass"},
	{"$bitlocker$", rest, "BitLocker", 22100, "BitLocker"},
	{"$fvde$1$", rest, "FileVault 2", 16700, "FVDE"},
	{"$fvde$2$", rest, "Apple APFS", 18300, "FVDE"},
	{"$dmg$", rest, "Apple DMG", noMode, "dmg"},
	{"$diskcryptor$", rest, "DiskCryptor", 20011, "diskcryptor"},
	{"$ecryptfs$0$", rest, "eCryptfs", 12200, "eCryptfs"},
	{"$axcrypt$*1*", rest, "AxCrypt 1", 13200, "AxCrypt"},
	{"$axcrypt_sha1$", rest, "AxCrypt 1 in-memory SHA1", 13300, "AxCrypt"},
	{"$vmx$", rest, "VMware VMX", 27400, "vmx"},
	{"$fde$", rest, "Android FDE <= 4.3", 8800, "fde"},
	{"$ab$", rest, "Android backup", 18900, "AndroidBackup"},
	{"$itunes_backup$*9*", rest, "iTunes backup < 10.0", 14700, "itunes-backup"},
	{"$itunes_backup$*10*", rest, "iTunes backup >= 10.0", 14800, "itunes-backup"},
	{"$telegram$0*", rest, "Telegram Mobile App Passcode (SHA256)", 22301, "Telegram"},
	{"$telegram$1*", rest, "Telegram Desktop < v2.1.14 (PBKDF2-HMAC-SHA1)", 22600, "Telegram"},
	{"$telegram$2*", rest, "Telegram Desktop >= v2.1.14 (PBKDF2-SHA512)", 24500, "Telegram"},
	{"$ansible$", rest, "Ansible Vault", 16900, "ansible"},
	{"$keychain$*", rest, "Apple keychain", 23100, "keychain"},
	{"$ASN$*", rest, "Apple Secure Notes", 16200, ""},
	{"$agilekeychain$*", rest, "1Password agilekeychain", 6600, "agilekeychain"},
	{"$cloudkeychain$*", rest, "1Password cloudkeychain", 8200, "cloudkeychain"},
	{"$bitwarden$", rest, "Bitwarden", 23400, "bitwarden"},
	{"$mozilla$*3DES*", rest, "Mozilla key3.db", 26000, "Mozilla"},
	{"$mozilla$*AES*", rest, "Mozilla key4.db", 26100, "Mozilla"},
	{"$sshng$", rest, "SSH private key", 22911, "SSH"},
	{"$gpg$*", rest, "GnuPG private key", 17010, "gpg"},
	{"$PEM$", rest, "PEM encrypted private key (PKCS#8)", 24410, "PEM"},
	{"$jksprivk$*", rest, "Java KeyStore private key (JKS)", 15500, ""},
	{"$sxc$*", rest, "StarOffice (SXC)", noMode, "sxc"},
	{"$encfs$", rest, "EncFS", noMode, "EncFS"},
	{"$keyring$", rest, "GNOME Keyring", noMode, "keyring"},
	{"$kwallet$", rest, "KDE KWallet", noMode, "kwallet"},
	{"$pwsafe$*", rest, "Password Safe v3", 5200, "pwsafe"},
	{"$luks$", rest, "LUKS (john)", noMode, "LUKS"},

	// Cryptocurrency wallets.
	{"$bitcoin$", rest, "Bitcoin/Litecoin wallet.dat", 11300, "bitcoin"},
	{"$ethereum$p*", rest, "Ethereum wallet (PBKDF2-HMAC-SHA256)", 15600, "ethereum"},
	{"$ethereum$s*", rest, "Ethereum wallet (scrypt)", 15700, "ethereum"},
	{"$ethereum$w*", rest, "Ethereum pre-sale wallet", 16300, "ethereum"},
	{"$electrum$1*", rest, "Electrum wallet (salt-type 1-3)", 16600, "electrum"},
	{"$electrum$4*", rest, "Electrum wallet (salt-type 4)", 21700, "electrum"},
	{"$electrum$5*", rest, "Electrum wallet (salt-type 5)", 21800, "electrum"},
	{"$blockchain$v2$", rest, "Blockchain My Wallet (v2)", 15200, "Blockchain"},
	{"$blockchain$", `\d+\$` + hx + `+`, "Blockchain My Wallet", 12700, "Blockchain"},
	{"$multibit$", rest, "MultiBit wallet", 22500, "multibit"},
	{"$metamask$", rest, "MetaMask wallet", 26600, ""},
}

type hexRow struct {
	name string
	mode int
	john string
}

// hexByLenRows lists raw hex digests per length, most common first: the order
// sets confidence.
var hexByLenRows = map[int][]hexRow{
	8: {
		{"CRC32", 11500, "crc32"},
		{"CRC32C", 27900, ""},
		{"Adler-32", noMode, ""},
		{"FNV-1a-32", noMode, ""},
		{"FNV-1-32", noMode, ""},
		{"MurmurHash3-32", noMode, ""},
		{"Jenkins one-at-a-time", noMode, ""},
	},
	16: {
		{"MySQL323", 200, "mysql"},
		{"LM (one half)", 3000, "LM"},
		{"Half MD5", 5100, ""},
		{"CRC-64", noMode, ""},
		{"FNV-1a-64", noMode, ""},
		{"Oracle 7-10g (without user)", 3100, "oracle"},
	},
	32: {
		{"MD5", 0, "raw-md5"},
		{"NTLM", 1000, "nt"},
		{"MD4", 900, "raw-md4"},
		{"LM", 3000, "LM"},
		{"md5(md5($pass))", 2600, ""},
		{"md5(utf16le($pass))", 70, ""},
		{"md5(sha1($pass))", 4400, ""},
		{"md5(md5(md5($pass)))", 3500, ""},
		{"md5(strtoupper(md5($pass)))", 4300, ""},
		{"Lotus Notes/Domino 5", 8600, "lotus5"},
		{"Radmin2", 9900, "radmin"},
		{"RIPEMD-128", noMode, "ripemd-128"},
		{"Haval-128", noMode, "haval-128-4"},
		{"Tiger-128", noMode, ""},
		{"MD2", noMode, "md2"},
		{"Snefru-128", noMode, "snefru-128"},
	},
	40: {
		{"SHA-1", 100, "raw-sha1"},
		{"RIPEMD-160", 6000, "ripemd-160"},
		{"sha1(sha1($pass))", 4500, ""},
		{"MySQL 4.1+ (without *)", 300, "mysql-sha1"},
		{"sha1(md5($pass))", 4700, ""},
		{"sha1(utf16le($pass))", 170, ""},
		{"Tiger-160", noMode, ""},
		{"Haval-160", noMode, ""},
		{"HAS-160", noMode, "has-160"},
	},
	48: {
		{"macOS 10.4-10.6 (salted SHA-1)", 122, "xsha"},
		{"Tiger-192", noMode, "tiger"},
		{"Haval-192", noMode, ""},
	},
	49: {
		{"Citrix NetScaler (SHA1)", 8100, "citrix_ns10"},
	},
	56: {
		{"SHA-224", 1300, "raw-sha224"},
		{"SHA3-224", 17300, ""},
		{"Keccak-224", 17700, ""},
		{"SHA-512/224", noMode, ""},
		{"Haval-224", noMode, ""},
	},
	64: {
		{"SHA-256", 1400, "raw-sha256"},
		{"SHA3-256", 17400, "raw-sha3"},
		{"Keccak-256", 17800, "raw-keccak-256"},
		{"BLAKE2s-256", 31000, ""},
		{"sha256(sha256_bin($pass))", 21400, ""},
		{"sha256(utf16le($pass))", 1470, ""},
		{"sha256(md5($pass))", 20800, ""},
		{"SHA-512/256", noMode, ""},
		{"GOST R 34.11-94", 6900, "gost"},
		{"Streebog-256 (GOST R 34.11-2012)", 11700, "streebog256"},
		{"SM3", 31100, ""},
		{"RIPEMD-256", noMode, ""},
		{"Haval-256", noMode, "haval-256-3"},
		{"Snefru-256", noMode, "snefru-256"},
		{"Skein-256", noMode, "skein-256"},
	},
	80: {
		{"RIPEMD-320", noMode, ""},
	},
	96: {
		{"SHA-384", 10800, "raw-sha384"},
		{"SHA3-384", 17500, ""},
		{"Keccak-384", 17900, ""},
		{"BLAKE2b-384", noMode, ""},
	},
	128: {
		{"SHA-512", 1700, "raw-sha512"},
		{"SHA3-512", 17600, "raw-sha3"},
		{"Keccak-512", 18000, "raw-keccak"},
		{"Whirlpool", 6100, "whirlpool"},
		{"BLAKE2b-512", 600, "raw-blake2"},
		{"Streebog-512 (GOST R 34.11-2012)", 11800, "streebog512"},
		{"sha512(utf16le($pass))", 1770, ""},
		{"Skein-512", noMode, "skein-512"},
	},
	136: {
		{"macOS 10.7 (salted SHA-512)", 1722, "xsha512"},
	},
	137: {
		{"Citrix NetScaler (SHA512)", 22200, ""},
	},
	160: {
		{"Oracle 12c+ (PBKDF2-SHA512)", 12300, "oracle12c"},
	},
}

type saltedRow struct {
	salt string // pattern for the part after the first ':', or anySalt
	name string
	mode int
	john string
	conf float64
}

// Salt shapes.
const (
	anySalt  = `` // any non-empty salt; checked without a regexp
	userSalt = `[^:]{1,64}`
)

// saltedByLenRows lists "hex:salt" schemes per hex length. Schemes whose salt
// has a telling shape rank above the generic ones.
var saltedByLenRows = map[int][]saltedRow{
	16: {
		{`[A-Za-z][A-Za-z0-9_$#]{0,29}`, "Oracle 7-10g (DES, hash:user)", 3100, "oracle", 0.5},
		{`2:4:` + hx + `{32}`, "SipHash", 10100, "siphash", 0.8},
	},
	32: {
		{`[A-Za-z0-9]{32}`, "Joomla < 2.5.18", 11, "joomla", 0.55},
		{`.{3}`, "vBulletin < v3.8.5", 2611, "", 0.5},
		{`.{30}`, "vBulletin >= v3.8.5", 2711, "", 0.5},
		{`.{5}|.{8}`, "IPB2+, MyBB 1.2+", 2811, "", 0.5},
		{`[A-Za-z0-9]{56}`, "PrestaShop", 11000, "", 0.55},
		{`.{2}`, "osCommerce, xt:Commerce", 21, "", 0.48},
		{anySalt, "md5($pass.$salt)", 10, "", 0.45},
		{anySalt, "md5($salt.$pass)", 20, "", 0.44},
		{userSalt, "Domain Cached Credentials (DCC, MS Cache)", 1100, "mscash", 0.42},
		{userSalt, "PostgreSQL (hash:user)", 12, "postgres", 0.41},
		{anySalt, "HMAC-MD5 (key = $pass)", 50, "", 0.35},
		{anySalt, "HMAC-MD5 (key = $salt)", 60, "", 0.34},
		{anySalt, "md5($salt.$pass.$salt)", 3800, "", 0.3},
		{anySalt, "md5(utf16le($pass).$salt)", 30, "", 0.29},
		{anySalt, "md5($salt.utf16le($pass))", 40, "", 0.28},
		{userSalt, "Skype", 23, "", 0.27},
		{anySalt, "md5($salt.md5($pass))", 3710, "", 0.26},
		{anySalt, "md5(md5($pass).md5($salt))", 3910, "", 0.25},
		{anySalt, "md5($salt.md5($salt.$pass))", 4010, "", 0.24},
		{anySalt, "md5($salt.md5($pass.$salt))", 4110, "", 0.23},
		{anySalt, "md5(sha1($pass).$salt)", 4410, "", 0.22},
	},
	40: {
		{hx + `{16}`, "Samsung Android Password/PIN", 5800, "", 0.55},
		{hx + `{32}`, "Redmine", 4521, "", 0.55},
		{hx + `{40}`, "Woltlab Burning Board 3 (WBB3)", 8400, "wbb3", 0.55},
		{`.{12}`, "PunBB", 4522, "", 0.5},
		{`.{9}`, "OpenCart", 13900, "", 0.5},
		{anySalt, "sha1($pass.$salt)", 110, "", 0.45},
		{anySalt, "sha1($salt.$pass)", 120, "", 0.44},
		{userSalt, "SMF (Simple Machines Forum) > v1.1", 121, "", 0.4},
		{anySalt, "HMAC-SHA1 (key = $pass)", 150, "", 0.35},
		{anySalt, "HMAC-SHA1 (key = $salt)", 160, "", 0.34},
		{anySalt, "sha1(utf16le($pass).$salt)", 130, "", 0.29},
		{anySalt, "sha1($salt.utf16le($pass))", 140, "", 0.28},
		{anySalt, "sha1(sha1($pass).$salt)", 4510, "", 0.26},
		{anySalt, "sha1($salt.sha1($pass))", 4520, "", 0.25},
		{anySalt, "sha1(md5($pass).$salt)", 4710, "", 0.24},
		{anySalt, "sha1($salt.$pass.$salt)", 4900, "", 0.23},
		{anySalt, "sha1(sha1($salt.$pass.$salt))", 5000, "", 0.22},
	},
	64: {
		{anySalt, "sha256($pass.$salt)", 1410, "", 0.45},
		{anySalt, "sha256($salt.$pass)", 1420, "", 0.44},
		{anySalt, "HMAC-SHA256 (key = $pass)", 1450, "", 0.35},
		{anySalt, "HMAC-SHA256 (key = $salt)", 1460, "", 0.34},
		{anySalt, "sha256(utf16le($pass).$salt)", 1430, "", 0.29},
		{anySalt, "sha256($salt.utf16le($pass))", 1440, "", 0.28},
	},
	128: {
		{anySalt, "sha512($pass.$salt)", 1710, "", 0.45},
		{anySalt, "sha512($salt.$pass)", 1720, "", 0.44},
		{anySalt, "HMAC-SHA512 (key = $pass)", 1750, "", 0.35},
		{anySalt, "HMAC-SHA512 (key = $salt)", 1760, "", 0.34},
		{anySalt, "sha512(utf16le($pass).$salt)", 1730, "", 0.29},
		{anySalt, "sha512($salt.utf16le($pass))", 1740, "", 0.28},
		{anySalt, "BLAKE2b-512($pass.$salt)", 610, "", 0.26},
		{anySalt, "BLAKE2b-512($salt.$pass)", 620, "", 0.25},
	},
}

type structuralRow struct {
	minLen, maxLen int
	pattern        string
	name           string
	mode           int
	john           string
	conf           float64
	notHex         bool
	needs          byte                // a byte the input must contain; 0 for none
	check          func(s string) bool // used instead of pattern when set
}

// structuralRows have no literal prefix; the length gate keeps most inputs
// from reaching their regexps.
var structuralRows = []structuralRow{
	{60, 400, "", "NetNTLMv1 / MSCHAPv2", 5500, "netntlm", 0.9, false, ':', isNetNTLMv1},
	{60, MaxInputBytes, "", "NetNTLMv2", 5600, "netntlmv2", 0.9, false, ':', isNetNTLMv2},
	{60, 300, hx + `{32}\*` + hx + `{12}\*` + hx + `{12}\*` + hx + `{2,64}`, "WPA-PMKID-PBKDF2 (legacy)", 16800, "wpapsk-pmk", 0.85, false, '*', nil},
	{70, 200, `[^:]+:\d+:` + hx + `{32}:` + hx + `{32}:::.*`, "pwdump line (LM:NTLM)", 1000, "nt", 0.9, false, ':', nil},
	{100, MaxInputBytes, "", "IKE-PSK MD5", 5300, "", 0.8, false, ':', isIKEPSK(32)},
	{100, MaxInputBytes, "", "IKE-PSK SHA1", 5400, "", 0.8, false, ':', isIKEPSK(40)},
	{36, 200, hx + `{32}:\d+:[^:@]+@[^:]+`, "LastPass + LastPass sniffed", 6800, "lp", 0.8, false, '@', nil},
	{18, 60, `[^$:]{1,40}\$[0-9A-F]{16}`, "SAP CODVN B (BCODE)", 7700, "sapb", 0.7, false, '$', nil},
	{42, 90, `[^$:]{1,40}\$[0-9A-F]{40}`, "SAP CODVN F/G (PASSCODE)", 7800, "sapg", 0.7, false, '$', nil},
	{13, 13, c64 + `{13}`, "descrypt (DES Unix)", 1500, "descrypt", 0.5, true, 0, nil},
	{43, 43, c64 + `{43}`, "Cisco-IOS type 4 (SHA256)", 5700, "", 0.45, false, 0, nil},
	{32, 120, `n[A-Za-z0-9+/]{29}:[^:]+`, "Juniper NetScreen/SSG (ScreenOS)", 22, "md5ns", 0.6, false, ':', nil},
	{16, 16, c64 + `{16}`, "Cisco-PIX MD5", 2400, "pix-md5", 0.3, true, 0, nil},
	{18, 40, c64 + `{16}:[^:]{1,16}`, "Cisco-ASA MD5", 2410, "asa-md5", 0.3, false, ':', nil},
	{4, 200, `(0[0-9]|1[0-5])(` + hx + hx + `)+`, "Cisco type 7 (reversible)", noMode, "", 0.2, false, 0, nil},
}

type base64Row struct {
	pattern string
	name    string
	mode    int
	john    string
}

// base64ByLenRows are digests stored as standard base64, by encoded length.
var base64ByLenRows = map[int][]base64Row{
	24: {{b64 + `{22}==`, "MD5 (base64)", noMode, ""}},
	28: {{b64 + `{27}=`, "SHA-1 (base64, PeopleSoft)", 133, ""}},
	44: {{b64 + `{43}=`, "SHA-256 (base64)", noMode, ""}},
	64: {{b64 + `{64}`, "SHA-384 (base64)", noMode, ""}},
	88: {{b64 + `{86}==`, "SHA-512 (base64)", noMode, ""}},
}

// Indexes built once from the rows above.
var (
	byFirstByte = map[byte][]*format{}
	hexByLen    = map[int][]*format{}
	saltedByLen = map[int][]*format{}
	structural  []*format
	base64ByLen = map[int][]*format{}
	allNames    = map[string]bool{}
)

func init() {
	for _, r := range prefixedRows {
		f := &format{name: r.name, mode: r.mode, john: r.john, prefix: r.prefix, conf: confPrefixed}
		if r.tail != rest {
			f.re = regexp.MustCompile(`^` + regexp.QuoteMeta(r.prefix) + `(?:` + r.tail + `)$`)
		}
		byFirstByte[r.prefix[0]] = append(byFirstByte[r.prefix[0]], f)
		allNames[f.name] = true
	}
	for n, rows := range hexByLenRows {
		for i, r := range rows {
			f := &format{name: r.name, mode: r.mode, john: r.john, conf: max(confHexTop-confHexStep*float64(i), confFloor)}
			hexByLen[n] = append(hexByLen[n], f)
			allNames[f.name] = true
		}
	}
	for n, rows := range saltedByLenRows {
		for _, r := range rows {
			f := &format{name: r.name, mode: r.mode, john: r.john, conf: r.conf}
			if r.salt != anySalt {
				f.re = regexp.MustCompile(`^(?:` + r.salt + `)$`)
			}
			saltedByLen[n] = append(saltedByLen[n], f)
			allNames[f.name] = true
		}
	}
	for _, r := range structuralRows {
		f := &format{name: r.name, mode: r.mode, john: r.john, conf: r.conf, minLen: r.minLen, maxLen: r.maxLen, notHex: r.notHex, needs: r.needs,
			check: r.check}
		if f.check == nil {
			f.re = regexp.MustCompile(`^(?:` + r.pattern + `)$`)
		}
		structural = append(structural, f)
		allNames[f.name] = true
	}
	for n, rows := range base64ByLenRows {
		for i, r := range rows {
			f := &format{name: r.name, mode: r.mode, john: r.john, conf: confBase64Top - confBase64Step*float64(i),
				re: regexp.MustCompile(`^(?:` + r.pattern + `)$`)}
			base64ByLen[n] = append(base64ByLen[n], f)
			allNames[f.name] = true
		}
	}
}

// Parsers for long colon-separated formats: on inputs of several KiB a
// split-and-scan is two orders of magnitude cheaper than the regexp NFA.

// colonFields splits s on ':' when it has exactly n fields.
func colonFields(s string, n int) ([]string, bool) {
	if strings.Count(s, ":") != n-1 {
		return nil, false
	}
	return strings.Split(s, ":"), true
}

func isHexLen(s string, n int) bool { return len(s) == n && isHex(s) }

// isNetNTLMv1 checks user::domain:lm(48 hex):nt(48 hex):challenge(16 hex).
func isNetNTLMv1(s string) bool {
	f, ok := colonFields(s, 6)
	return ok && f[1] == "" && isHexLen(f[3], 48) && isHexLen(f[4], 48) && isHexLen(f[5], 16)
}

// isNetNTLMv2 checks user::domain:challenge(16 hex):hmac(32 hex):blob(hex).
func isNetNTLMv2(s string) bool {
	f, ok := colonFields(s, 6)
	return ok && f[1] == "" && isHexLen(f[3], 16) && isHexLen(f[4], 32) && isHex(f[5])
}

// isIKEPSK returns a checker for hashcat's IKE-PSK lines: nine hex fields, the
// last a digest of digestLen hex digits.
func isIKEPSK(digestLen int) func(string) bool {
	return func(s string) bool {
		f, ok := colonFields(s, 9)
		if !ok || !isHexLen(f[8], digestLen) {
			return false
		}
		for _, x := range f[:8] {
			if !isHex(x) {
				return false
			}
		}
		return true
	}
}
