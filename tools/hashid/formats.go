package hashid

// row is one format of the table as written below; register compiles it.
type row struct {
	mode     int
	name     string
	john     string
	category string
	patterns []string
	// forms, when set, runs parallel to patterns: what John the Ripper
	// calls each written form (john.go), for forms in John's own syntax.
	forms   []johnForm
	implied map[string]any
	check   func(s string) int
}

func r(mode int, name, john, category string, patterns ...string) row {
	return row{mode: mode, name: name, john: john, category: category, patterns: patterns}
}

// imply records a parameter the string implies by leaving it out (the
// default rounds of sha512crypt).
func (x row) imply(k string, v any) row {
	m := map[string]any{k: v}
	for k2, v2 := range x.implied {
		m[k2] = v2
	}
	x.implied = m
	return x
}

func (x row) vet(check func(s string) int) row {
	x.check = check
	return x
}

// withForm adds a written form whose answer differs from the row's plain
// one (form.hashcat: hashcat takes only part of the string).
func (x row) withForm(pattern string, form johnForm) row {
	n := len(x.patterns)
	forms := make([]johnForm, n, n+1)
	copy(forms, x.forms)
	x.forms = append(forms, form)
	x.patterns = append(x.patterns[:n:n], pattern)
	return x
}

// hashcat's categories, used for every row.
const (
	catRaw      = "Raw Hash"
	catSalted   = "Raw Hash salted and/or iterated"
	catAuth     = "Raw Hash authenticated"
	catChecksum = "Raw Checksum"
	catCipher   = "Raw Cipher, Known-plaintext attack"
	catKDF      = "Generic KDF"
	catOTP      = "One-Time Password"
	catNet      = "Network Protocol"
	catOS       = "Operating System"
	catDB       = "Database Server"
	catServer   = "FTP, HTTP, SMTP, LDAP Server"
	catEAS      = "Enterprise Application Software (EAS)"
	catFDE      = "Full-Disk Encryption (FDE)"
	catDoc      = "Document"
	catArchive  = "Archive"
	catWeb      = "Forums, CMS, E-Commerce"
	catFW       = "Framework"
	catPM       = "Password Manager"
	catIM       = "Instant Messaging Service"
	catKey      = "Private Key"
	catWallet   = "Cryptocurrency Wallet"
	catPlain    = "Plaintext"
)

// Shapes shared by many rows.
const (
	hex16s  = "<hex:16>:<text=salt>"
	hex32s  = "<hex:32>:<text=salt>"
	hex40s  = "<hex:40>:<text=salt>"
	hex64s  = "<hex:64>:<text=salt>"
	hex96s  = "<hex:96>:<text=salt>"
	hex128s = "<hex:128>:<text=salt>"
	hex32u  = "<hex:32>:<user=user>"
	hex40u  = "<hex:40>:<user=user>"
	bcrypt  = "$2<ver:0-1=version>$<dec:2=cost>$<c64:22=salt><c64:31>"
	ntlmv1  = "<user:0+=user>::<user:0+=domain>:<hex:48>:<hex:48>:<hex:16=challenge>"
	ntlmv1j = "$NETNTLM$<hex:16=challenge>$<hex:48>"
	ntlmv2  = "<user:0+=user>::<user:0+=domain>:<hex:16=challenge>:<hex:32>:<hex:2+>"
	ntlmv2j = "$NETNTLMv2$<user:0+=domain>$<hex:16=challenge>$<hex:32>$<hex:2+>"
	snmp    = "<dec=msgid>$<hex>$<hex>$<hex>"
	tcrypt  = "<hex:128=salt>$<hex:896>"
	luks    = "$<word=mode>$<dec=keysize>$<dec=iterations>$<hex:64=salt>$<hex>$<hex>"
	pkzip   = "$pkzip2$<hexs>*$/pkzip2$"
	sapB    = "<ident:1-40=user>$<uhex:16>"
	sapG    = "<ident:1-40=user>$<uhex:40>"
	oldOff  = "*<hex:32=salt>*<hex:32>*"
	pdf5    = "*<int>*<dec>*<dec>*<hex>*<dec>*<hex>*<dec>*<hex>*<dec>*<hex>*<dec>*<hex>"
	pdf2    = "*<int>*<dec>*16*<hex:32=id>*32*<hex:64>*32*<hex:64>"
	tgsAES  = "$<user=user>$<host=realm>$<hex:24>$<hex:64+>"
	tgsSPN  = "$<user=user>$<host=realm>$*<text=spn>*$<hex:24>$<hex:64+>"
	dpapi   = "*<sid=sid>*<name=cipher>*<name=hash>*<dec=iterations>*<hex:32=salt>*<dec>*<hex>"
	sshng8  = "8$<hex:16=salt>$<dec>$<hex>"
	sshng16 = "16$<hex:32=salt>$<dec>$<hex>"
	zip3    = "*<dec>*<hex:24=iv>*<hex>*<dec>*<dec>*<dec>*<text=file>"
	crypt22 = "<c64:0-8=salt>$<c64:22>"
	// Windows account dumps: an LM:NT pair, and the pwdump line that
	// pwdump, samdump2 and impacket's secretsdump write
	// ([domain\]user:rid:lm:nt:::, the last with -user-status adding
	// " (status=Enabled)"). hashcat reads a pwdump file as it is, taking
	// the column its mode names; John reads it with --format=nt or lm.
	lmNT         = "<hex:32=lm>:<hex:32>"
	pwdump       = "<user=user>:<dec=rid>:<hex:32=lm>:<hex:32>:::"
	pwdumpStatus = pwdump + " (status=<word=status>)"
)

// table lists every format. Names are unique; hashcat's own name where the
// format is a hashcat mode, unless a shorter common name exists (MD5, bcrypt).
// It is a function, not a variable, so that the rows (closures and maps
// among them) are built when loadTables needs them, not at every start.
func table() []row {
	return []row{
		// Raw digests (hex).
		r(0, "MD5", "raw-md5", catRaw, "<hex:32>"),
		r(70, "md5(utf16le($pass))", "Raw-MD5u", catRaw, "<hex:32>"),
		r(100, "SHA-1", "raw-sha1", catRaw, "<hex:40>"),
		r(170, "sha1(utf16le($pass))", "", catRaw, "<hex:40>"),
		r(900, "MD4", "raw-md4", catRaw, "<hex:32>"),
		r(1000, "NTLM", "nt", catOS, "<hex:32>", "$3$$<hex:32>", pwdump, pwdumpStatus).vet(ntlmCheck).
			withForm(lmNT, johnForm{hashcat: ntHalf}),
		r(1300, "SHA-224", "raw-sha224", catRaw, "<hex:56>"),
		r(1400, "SHA-256", "raw-sha256", catRaw, "<hex:64>"),
		r(1470, "sha256(utf16le($pass))", "", catRaw, "<hex:64>"),
		r(1700, "SHA-512", "raw-sha512", catRaw, "<hex:128>"),
		r(1770, "sha512(utf16le($pass))", "", catRaw, "<hex:128>"),
		r(3000, "LM", "lm", catOS, "<hex:16>", "<hex:32>", pwdump, pwdumpStatus).vet(lmCheck).
			withForm(lmNT, johnForm{hashcat: lmHalf}),
		r(5100, "Half MD5", "", catRaw, "<hex:16>"),
		r(6000, "RIPEMD-160", "ripemd-160", catRaw, "<hex:40>"),
		r(6100, "Whirlpool", "whirlpool", catRaw, "<hex:128>"),
		r(6900, "GOST R 34.11-94", "gost", catRaw, "<hex:64>"),
		r(10800, "SHA-384", "raw-sha384", catRaw, "<hex:96>"),
		r(10870, "sha384(utf16le($pass))", "", catRaw, "<hex:96>"),
		r(11700, "GOST R 34.11-2012 (Streebog) 256-bit, big-endian", "streebog256", catRaw, "<hex:64>"),
		r(11800, "GOST R 34.11-2012 (Streebog) 512-bit, big-endian", "streebog512", catRaw, "<hex:128>"),
		r(17300, "SHA3-224", "raw-sha3", catRaw, "<hex:56>"),
		r(17400, "SHA3-256", "raw-sha3", catRaw, "<hex:64>"),
		r(17500, "SHA3-384", "raw-sha3", catRaw, "<hex:96>"),
		r(17600, "SHA3-512", "raw-sha3", catRaw, "<hex:128>"),
		r(17700, "Keccak-224", "raw-keccak", catRaw, "<hex:56>"),
		r(17800, "Keccak-256", "raw-keccak-256", catRaw, "<hex:64>"),
		r(17900, "Keccak-384", "raw-keccak", catRaw, "<hex:96>"),
		r(18000, "Keccak-512", "raw-keccak", catRaw, "<hex:128>"),
		r(600, "BLAKE2b-512", "raw-blake2", catRaw, "$BLAKE2$<hex:128>", "<hex:128>"),
		r(31000, "BLAKE2s-256", "", catRaw, "<hex:64>"),
		r(31100, "SM3", "", catRaw, "<hex:64>"),

		// Iterated and nested raw digests.
		r(2600, "md5(md5($pass))", "dynamic_2", catSalted, "<hex:32>"),
		r(3500, "md5(md5(md5($pass)))", "dynamic_3", catSalted, "<hex:32>"),
		r(4300, "md5(strtoupper(md5($pass)))", "", catSalted, "<hex:32>"),
		r(4400, "md5(sha1($pass))", "", catSalted, "<hex:32>"),
		r(20900, "md5(sha1($pass).md5($pass).sha1($pass))", "", catSalted, "<hex:32>"),
		r(4500, "sha1(sha1($pass))", "", catSalted, "<hex:40>"),
		r(4700, "sha1(md5($pass))", "", catSalted, "<hex:40>"),
		r(18500, "sha1(md5(md5($pass)))", "", catSalted, "<hex:40>"),
		r(20800, "sha256(md5($pass))", "", catSalted, "<hex:64>"),
		r(21400, "sha256(sha256_bin($pass))", "", catSalted, "<hex:64>"),
		r(21000, "BitShares v0.x - sha512(sha512_bin(pass))", "", catWallet, "<hex:128>"),

		// Salted raw digests, "hash:salt".
		r(10, "md5($pass.$salt)", "dynamic_1", catSalted, hex32s),
		r(20, "md5($salt.$pass)", "dynamic_4", catSalted, hex32s),
		r(30, "md5(utf16le($pass).$salt)", "", catSalted, hex32s),
		r(40, "md5($salt.utf16le($pass))", "", catSalted, hex32s),
		r(50, "HMAC-MD5 (key = $pass)", "hmac-md5", catAuth, hex32s),
		r(60, "HMAC-MD5 (key = $salt)", "hmac-md5", catAuth, hex32s),
		r(3710, "md5($salt.md5($pass))", "dynamic_9", catSalted, hex32s),
		r(3800, "md5($salt.$pass.$salt)", "", catSalted, hex32s),
		r(3910, "md5(md5($pass).md5($salt))", "", catSalted, hex32s),
		r(4010, "md5($salt.md5($salt.$pass))", "", catSalted, hex32s),
		r(4110, "md5($salt.md5($pass.$salt))", "", catSalted, hex32s),
		r(4410, "md5(sha1($pass).$salt)", "", catSalted, hex32s),
		r(21200, "md5(sha1($salt).md5($pass))", "", catSalted, hex32s),
		r(21300, "md5($salt.sha1($salt.$pass))", "", catSalted, hex32s),
		r(110, "sha1($pass.$salt)", "", catSalted, hex40s),
		r(120, "sha1($salt.$pass)", "", catSalted, hex40s),
		r(130, "sha1(utf16le($pass).$salt)", "", catSalted, hex40s),
		r(140, "sha1($salt.utf16le($pass))", "", catSalted, hex40s),
		r(150, "HMAC-SHA1 (key = $pass)", "hmac-sha1", catAuth, hex40s),
		r(160, "HMAC-SHA1 (key = $salt)", "hmac-sha1", catAuth, hex40s),
		r(4510, "sha1(sha1($pass).$salt)", "", catSalted, hex40s),
		r(4520, "sha1($salt.sha1($pass))", "", catSalted, hex40s),
		r(4710, "sha1(md5($pass).$salt)", "", catSalted, hex40s),
		r(4711, "Huawei sha1(md5($pass).$salt)", "", catEAS, hex40s),
		r(4900, "sha1($salt.$pass.$salt)", "", catSalted, hex40s),
		r(5000, "sha1(sha1($salt.$pass.$salt))", "", catSalted, hex40s),
		r(14400, "sha1(CX)", "", catSalted, "<hex:40>:<text:20=salt>"),
		r(19300, "sha1($salt1.$pass.$salt2)", "", catSalted, "<hex:40>:<text=salt>:<text=salt2>"),
		r(21100, "sha1(md5($pass.$salt))", "", catSalted, hex40s),
		r(24300, "sha1($salt.sha1($pass.$salt))", "", catSalted, hex40s),
		r(1410, "sha256($pass.$salt)", "", catSalted, hex64s),
		r(1420, "sha256($salt.$pass)", "", catSalted, hex64s),
		r(1430, "sha256(utf16le($pass).$salt)", "", catSalted, hex64s),
		r(1440, "sha256($salt.utf16le($pass))", "", catSalted, hex64s),
		r(1450, "HMAC-SHA256 (key = $pass)", "hmac-sha256", catAuth, hex64s),
		r(1460, "HMAC-SHA256 (key = $salt)", "hmac-sha256", catAuth, hex64s),
		r(11750, "HMAC-Streebog-256 (key = $pass), big-endian", "", catAuth, hex64s),
		r(11760, "HMAC-Streebog-256 (key = $salt), big-endian", "", catAuth, hex64s),
		r(20710, "sha256(sha256($pass).$salt)", "", catSalted, hex64s),
		r(20720, "sha256($salt.sha256($pass))", "", catSalted, hex64s),
		r(21420, "sha256($salt.sha256_bin($pass))", "", catSalted, hex64s),
		r(22300, "sha256($salt.$pass.$salt)", "", catSalted, hex64s),
		r(10810, "sha384($pass.$salt)", "", catSalted, hex96s),
		r(10820, "sha384($salt.$pass)", "", catSalted, hex96s),
		r(10830, "sha384(utf16le($pass).$salt)", "", catSalted, hex96s),
		r(10840, "sha384($salt.utf16le($pass))", "", catSalted, hex96s),
		r(1710, "sha512($pass.$salt)", "", catSalted, hex128s),
		r(1720, "sha512($salt.$pass)", "", catSalted, hex128s),
		r(1730, "sha512(utf16le($pass).$salt)", "", catSalted, hex128s),
		r(1740, "sha512($salt.utf16le($pass))", "", catSalted, hex128s),
		r(1750, "HMAC-SHA512 (key = $pass)", "hmac-sha512", catAuth, hex128s),
		r(1760, "HMAC-SHA512 (key = $salt)", "hmac-sha512", catAuth, hex128s),
		r(11850, "HMAC-Streebog-512 (key = $pass), big-endian", "", catAuth, hex128s),
		r(11860, "HMAC-Streebog-512 (key = $salt), big-endian", "", catAuth, hex128s),
		r(610, "BLAKE2b-512($pass.$salt)", "", catSalted, "$BLAKE2$<hex:128>:<text=salt>"),
		r(620, "BLAKE2b-512($salt.$pass)", "", catSalted, "$BLAKE2$<hex:128>:<text=salt>"),
		r(10100, "SipHash", "siphash", catRaw, "<hex:16>:2:4:<hex:32=key>"),

		// Checksums and raw ciphers (known plaintext).
		r(11500, "CRC32", "crc32", catChecksum, "<hex:8>:<hex:8=seed>", "<hex:8>", "$crc32$<hex:8=seed>.<hex:8>"),
		r(27900, "CRC32C", "", catChecksum, "<hex:8>:<hex:8=seed>", "<hex:8>"),
		r(28000, "CRC64Jones", "", catChecksum, "<hex:16>:<hex:16=seed>", "<hex:16>"),
		r(18700, "Java Object hashCode()", "", catChecksum, "<hex:8>"),
		r(25700, "MurmurHash", "", catChecksum, "<hex:8>:<hex:8=seed>"),
		r(27800, "MurmurHash3", "", catChecksum, "<hex:8>:<hex:8=seed>", "<hex:8>"),
		r(14000, "DES (PT = $salt, key = $pass)", "", catCipher, "<hex:16>:<hex:16=plaintext>"),
		r(14100, "3DES (PT = $salt, key = $pass)", "", catCipher, "<hex:16>:<hex:16=plaintext>"),
		r(14900, "Skip32 (PT = $salt, key = $pass)", "", catCipher, "<hex:8>:<hex:8=plaintext>"),
		r(15400, "ChaCha20", "", catCipher, "$chacha20$*<hex:16=counter>*<dec=offset>*<hex:16=iv>*<hex:16=plaintext>*<hex:16>"),
		r(26401, "AES-128-ECB NOKDF (PT = $salt, key = $pass)", "", catCipher, "<hex:32>:<hex:32=plaintext>"),
		r(26402, "AES-192-ECB NOKDF (PT = $salt, key = $pass)", "", catCipher, "<hex:32>:<hex:32=plaintext>"),
		r(26403, "AES-256-ECB NOKDF (PT = $salt, key = $pass)", "", catCipher, "<hex:32>:<hex:32=plaintext>"),
		r(14500, "Linux Kernel Crypto API (2.4)", "", catCipher, "$cryptoapi$<dec=cipher>$<dec=hash>$<hex:32=iv>$<hex:32=plaintext>$<hex:32>"),
		r(18100, "TOTP (HMAC-SHA1)", "", catOTP, "<dec:6-8>:<dec=timestamp>"),

		// Unix crypt(3) and other operating systems.
		r(500, "md5crypt", "md5crypt", catOS, "$1$"+crypt22),
		r(1500, "descrypt", "descrypt", catOS, "<c64:2=salt><c64:11>"),
		r(1800, "sha512crypt", "sha512crypt", catOS,
			"$6$<c64:0-16=salt>$<c64:86>", "$6$rounds=<dec=rounds>$<c64:0-16=salt>$<c64:86>").imply("rounds", int64(5000)),
		r(7400, "sha256crypt", "sha256crypt", catOS,
			"$5$<c64:0-16=salt>$<c64:43>", "$5$rounds=<dec=rounds>$<c64:0-16=salt>$<c64:43>").imply("rounds", int64(5000)),
		r(3200, "bcrypt", "bcrypt", catOS, bcrypt),
		r(12400, "BSDi Crypt, Extended DES", "bsdicrypt", catOS, "_<c64:4=rounds><c64:4=salt><c64:11>"),
		r(15100, "Juniper/NetBSD sha1crypt", "sha1crypt", catOS, "$sha1$<dec=rounds>$<c64:1-64=salt>$<c64:28>"),
		r(122, "macOS v10.4, macOS v10.5, macOS v10.6", "xsha", catOS, "<hex:8=salt><hex:40>"),
		r(1722, "macOS v10.7", "xsha512", catOS, "<hex:8=salt><hex:128>"),
		r(7100, "macOS v10.8+ (PBKDF2-SHA512)", "pbkdf2-hmac-sha512", catOS, "$ml$<dec=iterations>$<hex:64=salt>$<hex:128+>"),
		r(6300, "AIX {smd5}", "aix-smd5", catOS, "{smd5}"+crypt22, "<c64:8=salt>$<c64:22>"),
		r(6400, "AIX {ssha256}", "aix-ssha256", catOS, "{ssha256}<dec:2=rounds>$<c64:8-48=salt>$<c64:43>"),
		r(6500, "AIX {ssha512}", "aix-ssha512", catOS, "{ssha512}<dec:2=rounds>$<c64:8-48=salt>$<c64:86>"),
		r(6700, "AIX {ssha1}", "aix-ssha1", catOS, "{ssha1}<dec:2=rounds>$<c64:8-48=salt>$<c64:27>"),
		r(1100, "Domain Cached Credentials (DCC), MS Cache", "mscash", catOS, hex32u),
		r(2100, "Domain Cached Credentials 2 (DCC2), MS Cache 2", "mscash2", catOS, "$DCC2$<dec=iterations>#<user=user>#<hex:32>"),
		r(15300, "DPAPI masterkey file v1 (context 1 and 2)", "DPAPImk", catOS, "$DPAPImk$1*1"+dpapi, "$DPAPImk$1*2"+dpapi),
		r(15310, "DPAPI masterkey file v1 (context 3)", "DPAPImk", catOS, "$DPAPImk$1*3"+dpapi),
		r(15900, "DPAPI masterkey file v2 (context 1 and 2)", "DPAPImk", catOS, "$DPAPImk$2*1"+dpapi, "$DPAPImk$2*2"+dpapi),
		r(15910, "DPAPI masterkey file v2 (context 3)", "DPAPImk", catOS, "$DPAPImk$2*3"+dpapi),
		r(28100, "Windows Hello PIN/Password", "", catOS, "$WINHELLO$*<name=hash>*<dec=iterations>*<hex:8=salt>*<hexs>"),
		r(13800, "Windows Phone 8+ PIN/password", "", catOS, "<hex:64>:<hex:256=salt>"),
		r(5800, "Samsung Android Password/PIN", "", catOS, "<hex:40>:<hex:16=salt>"),
		r(26500, "iPhone passcode (UID key + System Keybag)", "", catOS, "$uido$<hex:32>$<hex:40=salt>$<dec=iterations>$<hex:80>"),
		r(19000, "QNX /etc/shadow (MD5)", "qnx", catOS, "@m@<hex:32>@<hex:16=salt>", "@m,<dec=rounds>@<hex:32>@<hex:16=salt>"),
		r(19100, "QNX /etc/shadow (SHA256)", "qnx", catOS, "@s@<hex:64>@<hex:16=salt>", "@s,<dec=rounds>@<hex:64>@<hex:16=salt>"),
		r(19200, "QNX /etc/shadow (SHA512)", "qnx", catOS, "@S@<hex:128>@<hex:16=salt>", "@S,<dec=rounds>@<hex:128>@<hex:16=salt>"),
		r(8500, "RACF", "RACF", catOS, "$racf$*<user=user>*<uhex:16>"),
		r(7200, "GRUB 2", "pbkdf2-hmac-sha512", catOS, "grub.pbkdf2.sha512.<dec=iterations>.<hex=salt>.<hex:128>"),
		r(12800, "MS-AzureSync PBKDF2-HMAC-SHA256", "", catOS, "v1;PPH1_MD4,<hex:20=salt>,<dec=iterations>,<hex:64>"),
		r(29000, "sha1($salt.sha1(utf16le($username).':'.utf16le($pass)))", "", catOS, "<hex:40>:<hex:64=salt>:<hex=user>"),

		// Network devices.
		r(22, "Juniper NetScreen/SSG (ScreenOS)", "md5ns", catOS, "<b64:30>:<text=salt>").vet(netscreenMarkers),
		r(501, "Juniper IVE", "", catOS, "3u+UR6n8AgAB<b64:80+>"),
		r(2400, "Cisco-PIX MD5", "pix-md5", catOS, "<c64:16>"),
		r(2410, "Cisco-ASA MD5", "asa-md5", catOS, "<c64:16>:<text:1-16=user>"),
		r(5700, "Cisco-IOS type 4 (SHA256)", "", catOS, "<c64:43>"),
		r(9200, "Cisco-IOS $8$ (PBKDF2-SHA256)", "pbkdf2-hmac-sha256", catOS, "$8$<c64:14=salt>$<c64:43>"),
		r(9300, "Cisco-IOS $9$ (scrypt)", "scrypt", catOS, "$9$<c64:14=salt>$<c64:43>"),
		r(125, "ArubaOS", "", catOS, "<hex:10=salt><hex:40>"),
		r(7000, "FortiGate (FortiOS)", "Fortigate", catOS, "AK1<b64:44>"),
		r(26300, "FortiGate256 (FortiOS256)", "Fortigate256", catOS, "SH2<b64:60>"),
		r(8100, "Citrix NetScaler (SHA1)", "citrix_ns10", catOS, "<hex:1><hex:8=salt><hex:40>").vet(leadingByte('1')),
		r(22200, "Citrix NetScaler (SHA512)", "", catOS, "<hex:1><hex:8=salt><hex:128>").vet(leadingByte('2')),

		// Network protocols.
		r(5500, "NetNTLMv1 / NetNTLMv1+ESS", "netntlm", catNet, ntlmv1, ntlmv1j),
		r(27000, "NetNTLMv1 / NetNTLMv1+ESS (NT)", "", catNet, ntlmv1, ntlmv1j),
		r(5600, "NetNTLMv2", "netntlmv2", catNet, ntlmv2, ntlmv2j),
		r(27100, "NetNTLMv2 (NT)", "", catNet, ntlmv2, ntlmv2j),
		r(4800, "iSCSI CHAP authentication, MD5(CHAP)", "chap", catNet, "<hex:32>:<hex:32=challenge>:<hex:2=id>"),
		r(5300, "IKE-PSK MD5", "", catNet, "<hex>:<hex>:<hex>:<hex>:<hex>:<hex>:<hex>:<hex>:<hex:32>"),
		r(5400, "IKE-PSK SHA1", "", catNet, "<hex>:<hex>:<hex>:<hex>:<hex>:<hex>:<hex>:<hex>:<hex:40>"),
		r(7300, "IPMI2 RAKP HMAC-SHA1", "rakp", catNet, "<hex:32+>:<hex:40>"),
		r(7500, "Kerberos 5, etype 23, AS-REQ Pre-Auth", "krb5pa-md5", catNet, "$krb5pa$23$<user:0+=user>$<host:0+=realm>$<word:0+=salt>$<hex:104>"),
		r(13100, "Kerberos 5, etype 23, TGS-REP", "krb5tgs", catNet, "$krb5tgs$23$*<text=spn>*$<hex:32>$<hex:64+>", "$krb5tgs$23$<hex:32>$<hex:64+>"),
		r(18200, "Kerberos 5, etype 23, AS-REP", "krb5asrep", catNet, "$krb5asrep$23$<text=user>:<hex:32>$<hex:64+>", "$krb5asrep$23$<hex:32>$<hex:64+>"),
		r(19600, "Kerberos 5, etype 17, TGS-REP", "krb5tgs-sha1", catNet, "$krb5tgs$17"+tgsAES, "$krb5tgs$17"+tgsSPN),
		r(19700, "Kerberos 5, etype 18, TGS-REP", "krb5tgs-sha1", catNet, "$krb5tgs$18"+tgsAES, "$krb5tgs$18"+tgsSPN),
		r(19800, "Kerberos 5, etype 17, Pre-Auth", "krb5pa-sha1", catNet, "$krb5pa$17$<user=user>$<host=realm>$<hex:104+>"),
		r(19900, "Kerberos 5, etype 18, Pre-Auth", "krb5pa-sha1", catNet, "$krb5pa$18$<user=user>$<host=realm>$<hex:104+>"),
		r(28800, "Kerberos 5, etype 17, DB", "krb5-17", catNet, "$krb5db$17$<user=user>$<host=realm>$<hex:32>"),
		r(28900, "Kerberos 5, etype 18, DB", "krb5-18", catNet, "$krb5db$18$<user=user>$<host=realm>$<hex:64>"),
		r(32100, "Kerberos 5, etype 17, AS-REP", "krb5asrep", catNet, "$krb5asrep$17$<user=user>$<host=realm>$<hex:24>$<hex:64+>"),
		r(32200, "Kerberos 5, etype 18, AS-REP", "krb5asrep", catNet, "$krb5asrep$18$<user=user>$<host=realm>$<hex:24>$<hex:64+>"),
		r(16100, "TACACS+", "tacacs-plus", catNet, "$tacacs-plus$0$<hex:8=session>$<hex>$<hex:4>"),
		r(11400, "SIP digest authentication (MD5)", "SIP", catNet, "$sip$*<text>*MD5*<hex:32>"),
		r(25000, "SNMPv3 HMAC-MD5-96/HMAC-SHA1-96", "SNMP", catNet, "$SNMPv3$0$"+snmp),
		r(25100, "SNMPv3 HMAC-MD5-96", "SNMP", catNet, "$SNMPv3$1$"+snmp),
		r(25200, "SNMPv3 HMAC-SHA1-96", "SNMP", catNet, "$SNMPv3$2$"+snmp),
		r(26700, "SNMPv3 HMAC-SHA224-128", "SNMP", catNet, "$SNMPv3$3$"+snmp),
		r(26800, "SNMPv3 HMAC-SHA256-192", "SNMP", catNet, "$SNMPv3$4$"+snmp),
		r(26900, "SNMPv3 HMAC-SHA384-256", "SNMP", catNet, "$SNMPv3$5$"+snmp),
		r(27300, "SNMPv3 HMAC-SHA512-384", "SNMP", catNet, "$SNMPv3$6$"+snmp),
		r(16800, "WPA-PMKID-PBKDF2", "wpapsk-pmk", catNet, "<hex:32>:<hex:12=ap>:<hex:12=client>:<hex:2-64=essid>", "<hex:32>*<hex:12=ap>*<hex:12=client>*<hex:2-64=essid>"),
		r(16801, "WPA-PMKID-PMK", "", catNet, "<hex:32>:<hex:12=ap>:<hex:12=client>", "<hex:32>*<hex:12=ap>*<hex:12=client>"),
		r(22000, "WPA-PBKDF2-PMKID+EAPOL", "wpapsk", catNet, "WPA*01*<hex:32>*<hex:12=ap>*<hex:12=client>*<hexs>", "WPA*02*<hex:32>*<hex:12=ap>*<hex:12=client>*<hexs>"),
		r(22001, "WPA-PMK-PMKID+EAPOL", "", catNet, "WPA*01*<hex:32>*<hex:12=ap>*<hex:12=client>*<hexs>", "WPA*02*<hex:32>*<hex:12=ap>*<hex:12=client>*<hexs>"),
		r(10200, "CRAM-MD5", "", catNet, "$cram_md5$<b64=challenge>$<b64>"),
		r(16500, "JWT (JSON Web Token)", "HMAC-SHA256", catNet, "eyJ<b64u>.<b64u:0+>.<b64u:43>"),
		r(29100, "Flask Session Cookie ($salt.$salt.$pass)", "", catNet, "eyJ<b64u>.<b64u:6=timestamp>.<b64u:27>", ".<b64u>.<b64u:6=timestamp>.<b64u:27>"),
		r(29200, "Radmin3", "", catNet, "$radmin3$<hex=user>*<hex:64=salt>*<hex>"),
		r(9900, "Radmin2", "radmin", catOS, "<hex:32>", "$radmin2$<hex:32>"),
		r(28700, "Amazon AWS4-HMAC-SHA256", "", catAuth, "$AWS-Sig-v4$0$<dec:8=date>T<dec:6>Z$<name=region>$<name=service>$<hex:64>$<hex:64>"),
		r(8300, "DNSSEC (NSEC3)", "", catServer, "<b32h:32>:<host=domain>:<hex:0+=salt>:<dec=iterations>"),

		// Databases.
		r(12, "PostgreSQL", "", catDB, "md5<lhex:32>", hex32u),
		r(11100, "PostgreSQL CRAM (MD5)", "postgres", catDB, "$postgres$<user=user>*<hex:8=salt>*<hex:32>"),
		r(28600, "PostgreSQL SCRAM-SHA-256", "", catDB, "SCRAM-SHA-256$<dec=iterations>:<b64=salt>$<b64:44>:<b64:44>"),
		r(200, "MySQL323", "mysql", catDB, "<hex:16>"),
		r(300, "MySQL4.1/MySQL5", "mysql-sha1", catDB, "*<uhex:40>", "*<lhex:40>", "<hex:40>"),
		r(7401, "MySQL $A$ (sha256crypt)", "", catDB, "$mysql$A$<dec:3=rounds>*<hex:40=salt>*<hex:86>"),
		r(11200, "MySQL CRAM (SHA1)", "mysqlna", catDB, "$mysqlna$<hex:40=salt>*<hex:40>"),
		r(131, "MSSQL (2000)", "mssql", catDB, "0x0100<hex:8=salt><hex:80>"),
		r(132, "MSSQL (2005)", "mssql05", catDB, "0x0100<hex:8=salt><hex:40>"),
		r(1731, "MSSQL (2012, 2014)", "mssql12", catDB, "0x0200<hex:8=salt><hex:128>"),
		r(112, "Oracle S: Type (Oracle 11+)", "oracle11", catDB, "<hex:40>:<hex:20=salt>", "S:<hex:40><hex:20=salt>"),
		r(3100, "Oracle H: Type (Oracle 7+)", "oracle", catDB, "<uhex:16>:<user=user>", "<uhex:16>"),
		r(12300, "Oracle T: Type (Oracle 12+)", "oracle12c", catDB, "<hex:160>", "T:<hex:160>").vet(caseBonus(true)),
		r(8000, "Sybase ASE", "SybaseASE", catDB, "0xc007<hex:16=salt><hex:64>"),
		r(24100, "MongoDB ServerKey SCRAM-SHA-1", "", catDB, "$mongodb-scram$*0*<b64=user>*<dec=iterations>*<b64=salt>*<b64>"),
		r(24200, "MongoDB ServerKey SCRAM-SHA-256", "", catDB, "$mongodb-scram$*1*<b64=user>*<dec=iterations>*<b64=salt>*<b64>"),
		r(24600, "SQLCipher", "", catDB, "SQLCIPHER*<dec=version>*<dec=iterations>*<hex:32=salt>*<hex:32>*<hex:32>"),

		// LDAP, web and mail servers.
		r(101, "nsldap, SHA-1(Base64), Netscape LDAP SHA", "nsldap", catServer, "{SHA}<b64:28>", "{sha}<b64:28>", "{SHA}<hex:40>"),
		r(111, "nsldaps, SSHA-1(Base64), Netscape LDAP SSHA", "salted-sha1", catServer, "{SSHA}<b64:28+>", "{ssha}<b64:28+>"),
		r(1411, "SSHA-256(Base64), LDAP {SSHA256}", "", catServer, "{SSHA256}<b64:44+>", "{ssha256}<b64:44+>"),
		r(1711, "SSHA-512(Base64), LDAP {SSHA512}", "ssha512", catServer, "{SSHA512}<b64:88+>", "{ssha512}<b64:88+>"),
		r(10901, "RedHat 389-DS LDAP (PBKDF2-HMAC-SHA256)", "", catServer, "{PBKDF2_SHA256}<b64:300+>"),
		r(1421, "hMailServer", "hMailServer", catServer, "<hex:6=salt><hex:64>"),
		r(141, "Episerver 6.x < .NET 4", "EPiServer", catServer, "$episerver$*0*<b64=salt>*<b64e:27>"),
		r(1441, "Episerver 6.x >= .NET 4", "EPiServer", catServer, "$episerver$*1*<b64=salt>*<b64e:43>"),
		r(1600, "Apache $apr1$ MD5, md5apr1, MD5 (APR)", "md5crypt", catServer, "$apr1$"+crypt22),
		r(12600, "ColdFusion 10+", "", catServer, "<hex:64>:<hex:64=salt>"),
		r(15000, "FileZilla Server >= 0.9.55", "", catServer, "<hex:128>:<text:64=salt>"),
		r(16400, "CRAM-MD5 Dovecot", "", catServer, "{CRAM-MD5}<hex:64>", "{HMAC-MD5}<hex:64>"),
		r(24900, "Dahua Authentication MD5", "", catServer, "<alnum:8>"),
		r(25900, "KNX IP Secure - Device Authentication Code", "", catServer, "$knx-ip-secure-device-authentication-code$*<hex=salt>*<hex:64>*<hex:32>"),

		// Enterprise applications.
		r(24, "SolarWinds Serv-U", "", catEAS, "<hex:32>:<text:2=salt>", "<alpha:2=salt><uhex:32>"),
		r(133, "PeopleSoft", "", catEAS, "<b64e:27>="),
		r(13500, "PeopleSoft PS_TOKEN", "pstoken", catEAS, "<hex:40>:<hex:64+=salt>"),
		r(7700, "SAP CODVN B (BCODE)", "sapb", catEAS, sapB),
		r(7701, "SAP CODVN B (BCODE) from RFC_READ_TABLE", "", catEAS, sapB).vet(zeroTail(8)),
		r(7800, "SAP CODVN F/G (PASSCODE)", "sapg", catEAS, sapG),
		r(7801, "SAP CODVN F/G (PASSCODE) from RFC_READ_TABLE", "", catEAS, sapG).vet(zeroTail(20)),
		r(10300, "SAP CODVN H (PWDSALTEDHASH) iSSHA-1", "saph", catEAS, "{x-issha, <dec=iterations>}<b64:28+>"),
		r(8600, "Lotus Notes/Domino 5", "lotus5", catEAS, "<hex:32>"),
		r(8700, "Lotus Notes/Domino 6", "dominosec", catEAS, "(G<b64:19>)"),
		r(9100, "Lotus Notes/Domino 8", "dominosec8", catEAS, "(H<b64:48>)"),
		r(20600, "Oracle Transportation Management (SHA256)", "", catEAS, "otm_sha256:<dec=iterations>:<text=salt>:<b64:44>"),
		r(21500, "SolarWinds Orion", "solarwinds", catEAS, "$solarwinds$0$<user=user>$<b64:88>"),
		r(21501, "SolarWinds Orion v2", "", catEAS, "$solarwinds$1$<b64:24=salt>$<b64:88>"),
		r(26200, "OpenEdge Progress Encode", "", catEAS, "<alpha:16>"),

		// Forums, CMS, e-commerce.
		r(11, "Joomla < 2.5.18", "", catWeb, "<hex:32>:<alnum:32=salt>"),
		r(21, "osCommerce, xt:Commerce", "", catWeb, "<hex:32>:<text:2=salt>"),
		r(121, "SMF (Simple Machines Forum) > v1.1", "", catWeb, hex40u),
		r(400, "phpass", "phpass", catKDF, "$P$<c64:1=cost@c64><c64:8=salt><c64:22>", "$H$<c64:1=cost@c64><c64:8=salt><c64:22>"),
		r(2611, "vBulletin < v3.8.5", "", catWeb, "<hex:32>:<text:3=salt>"),
		r(2612, "PHPS", "PHPS", catWeb, "$PHPS$<hex=salt>$<hex:32>"),
		r(2711, "vBulletin >= v3.8.5", "", catWeb, "<hex:32>:<text:30=salt>"),
		r(2811, "MyBB 1.2+, IPB2+ (Invision Power Board)", "", catWeb, "<hex:32>:<text:5=salt>", "<hex:32>:<text:8=salt>"),
		r(3711, "MediaWiki B type", "mediawiki", catWeb, "$B$<alnum=salt>$<hex:32>"),
		r(4521, "Redmine", "", catWeb, "<hex:40>:<hex:32=salt>"),
		r(4522, "PunBB", "", catWeb, "<hex:40>:<text:12=salt>"),
		r(7900, "Drupal7", "drupal7", catWeb, "$S$<c64:1=cost@c64><c64:8=salt><c64:43>"),
		r(8400, "WBB3 (Woltlab Burning Board)", "wbb3", catWeb, "<hex:40>:<hex:40=salt>"),
		r(11000, "PrestaShop", "", catWeb, "<hex:32>:<text:56=salt>"),
		r(13900, "OpenCart", "", catWeb, "<hex:40>:<text:9=salt>"),
		r(16000, "Tripcode", "tripcode", catWeb, "<c64:10>"),
		r(24800, "Umbraco HMAC-SHA1", "", catWeb, "<b64e:27>="),
		r(25600, "bcrypt(md5($pass)) / bcryptmd5", "", catWeb, bcrypt),
		r(25800, "bcrypt(sha1($pass)) / bcryptsha1", "", catWeb, bcrypt),
		r(28400, "bcrypt(sha512($pass)) / bcryptsha512", "", catWeb, bcrypt),
		r(20711, "AuthMe sha256", "", catEAS, "$SHA$<word=salt>$<hex:64>"),

		// Frameworks and password libraries.
		r(124, "Django (SHA-1)", "", catFW, "sha1$<word=salt>$<hex:40>"),
		r(10000, "Django (PBKDF2-SHA256)", "django", catFW, "pbkdf2_sha256$<dec=iterations>$<word=salt>$<b64:44>"),
		r(19500, "Ruby on Rails Restful-Authentication", "", catFW, "<hex:40>:<text=salt>:<text=sitekey>"),
		r(27200, "Ruby on Rails Restful Auth (one round, no sitekey)", "", catFW, "<hex:40>:<hex:40=salt>"),
		r(20200, "Python passlib pbkdf2-sha512", "pbkdf2-hmac-sha512", catFW, "$pbkdf2-sha512$<dec=iterations>$<c64=salt>$<c64:86>"),
		r(20300, "Python passlib pbkdf2-sha256", "pbkdf2-hmac-sha256", catFW, "$pbkdf2-sha256$<dec=iterations>$<c64=salt>$<c64:43>"),
		r(20400, "Python passlib pbkdf2-sha1", "pbkdf2-hmac-sha1", catFW, "$pbkdf2$<dec=iterations>$<c64=salt>$<c64:27>"),
		r(21600, "Web2py pbkdf2-sha512", "", catFW, "pbkdf2(<dec=iterations>,<dec=keysize>,sha512)$<hex=salt>$<hex:40+>"),
		r(30000, "Python Werkzeug MD5 (HMAC-MD5 (key = $salt))", "", catFW, "md5$<word=salt>$<hex:32>", "md5$<alnum:8=salt>$<hex:32>"),
		r(30120, "Python Werkzeug SHA256 (HMAC-SHA256 (key = $salt))", "", catFW, "sha256$<word=salt>$<hex:64>"),
		r(12001, "Atlassian (PBKDF2-HMAC-SHA1)", "atlassian", catFW, "{PKCS5S2}<b64:64>"),

		// Generic key derivation functions.
		r(8900, "scrypt", "scrypt", catKDF, "SCRYPT:<dec=cost>:<dec=block_size>:<dec=parallelism>:<b64=salt>:<b64>"),
		r(10900, "PBKDF2-HMAC-SHA256", "pbkdf2-hmac-sha256", catKDF, "sha256:<dec=iterations>:<b64=salt>:<b64>"),
		r(11900, "PBKDF2-HMAC-MD5", "pbkdf2-hmac-md5", catKDF, "md5:<dec=iterations>:<b64=salt>:<b64>"),
		r(12000, "PBKDF2-HMAC-SHA1", "pbkdf2-hmac-sha1", catKDF, "sha1:<dec=iterations>:<b64=salt>:<b64>"),
		r(12100, "PBKDF2-HMAC-SHA512", "pbkdf2-hmac-sha512", catKDF, "sha512:<dec=iterations>:<b64=salt>:<b64>"),
		r(34000, "Argon2", "argon2", catKDF,
			"$argon2<ver:1-2=variant>$v=<dec=version>$m=<dec=memory>,t=<dec=iterations>,p=<dec=parallelism>$<b64=salt>$<b64>",
			"$argon2<ver:1-2=variant>$m=<dec=memory>,t=<dec=iterations>,p=<dec=parallelism>$<b64=salt>$<b64>"),

		// Archives.
		r(11600, "7-Zip", "7z", catArchive, "$7z$<dec>$<dec=cost>$<dec>$<any>"),
		r(12500, "RAR3-hp", "rar", catArchive, "$RAR3$*0*<hex:16=salt>*<hex:32>"),
		r(23700, "RAR3-p (Uncompressed)", "rar", catArchive, "$RAR3$*1*<hex:16=salt>*<hex:8>*<dec>*<dec>*<dec>*<hex>*30"),
		r(23800, "RAR3-p (Compressed)", "rar", catArchive, "$RAR3$*1*<hex:16=salt>*<hex:8>*<dec>*<dec>*<dec>*<hex>*<dec:2=method>").vet(rarCompressed),
		r(13000, "RAR5", "rar5", catArchive, "$rar5$16$<hex:32=salt>$<dec=cost>$<hex:32>$8$<hex:16>"),
		r(13200, "AxCrypt 1", "axcrypt", catArchive, "$axcrypt$*1*<dec=iterations>*<hex:32=salt>*<hex:48>"),
		r(13300, "AxCrypt 1 in-memory SHA1", "axcrypt", catArchive, "$axcrypt_sha1$<hex:32-40>"),
		r(23500, "AxCrypt 2 AES-128", "axcrypt", catArchive, "$axcrypt$*2*<dec=iterations>*<hex:128>*<hex>*<dec>*<hex:64>"),
		r(23600, "AxCrypt 2 AES-256", "axcrypt", catArchive, "$axcrypt$*2*<dec=iterations>*<hex:128>*<hex>*<dec>*<hex:64>"),
		r(13600, "WinZip", "zip", catArchive, "$zip2$*<dec>*<dec>*<dec>*<hex=salt>*<hex:0+>*<hex:0+>*<hex:0+>*<hex:20>*$/zip2$"),
		r(14700, "iTunes backup < 10.0", "itunes-backup", catArchive, "$itunes_backup$*9*<hex:80>*<dec=iterations>*<hex:40=salt>**"),
		r(14800, "iTunes backup >= 10.0", "itunes-backup", catArchive, "$itunes_backup$*10*<hex:80>*<dec=iterations>*<hex:40=salt>*<dec>*<hex:40>"),
		r(17200, "PKZIP (Compressed)", "pkzip", catArchive, pkzip).vet(pkzipKind(pkSingleDeflate)),
		r(17210, "PKZIP (Uncompressed)", "pkzip", catArchive, pkzip).vet(pkzipKind(pkSingleStored)),
		r(17220, "PKZIP (Compressed Multi-File)", "pkzip", catArchive, pkzip).vet(pkzipKind(pkMultiDeflate)),
		r(17225, "PKZIP (Mixed Multi-File)", "pkzip", catArchive, pkzip).vet(pkzipKind(pkMultiMixed)),
		r(17230, "PKZIP (Mixed Multi-File Checksum-Only)", "pkzip", catArchive, pkzip).vet(pkzipKind(pkMultiAny)),
		r(20500, "PKZIP Master Key", "", catArchive, "<hex:24>"),
		r(20510, "PKZIP Master Key (6 byte optimization)", "", catArchive, "<hex:24>"),
		r(23001, "SecureZIP AES-128", "securezip", catArchive, "$zip3$*0*1*128"+zip3),
		r(23002, "SecureZIP AES-192", "securezip", catArchive, "$zip3$*0*1*192"+zip3),
		r(23003, "SecureZIP AES-256", "securezip", catArchive, "$zip3$*0*1*256"+zip3),
		r(18900, "Android Backup", "androidbackup", catArchive, "$ab$<dec=version>*<dec>*<dec=iterations>*<hex=salt>*<hex>*<hex>*<hex>"),
		r(24700, "Stuffit5", "", catArchive, "<hex:10>"),

		// Documents.
		r(9400, "MS Office 2007", "office", catDoc, "$office$*2007*<dec>*<dec=keysize>*<dec>*<hex:32=salt>*<hex:32>*<hex:40>"),
		r(9500, "MS Office 2010", "office", catDoc, "$office$*2010*<dec=iterations>*<dec=keysize>*<dec>*<hex:32=salt>*<hex:32>*<hex:64>"),
		r(9600, "MS Office 2013", "office", catDoc, "$office$*2013*<dec=iterations>*<dec=keysize>*<dec>*<hex:32=salt>*<hex:32>*<hex:64>"),
		r(25300, "MS Office 2016 - SheetProtection", "", catDoc, "$office$2016$<dec>$<dec=iterations>$<b64=salt>$<b64>"),
		r(9700, "MS Office <= 2003 $0/$1, MD5 + RC4", "oldoffice", catDoc, "$oldoffice$0"+oldOff+"<hex:32>", "$oldoffice$1"+oldOff+"<hex:32>"),
		r(9710, "MS Office <= 2003 $0/$1, MD5 + RC4, collider #1", "", catDoc, "$oldoffice$0"+oldOff+"<hex:32>", "$oldoffice$1"+oldOff+"<hex:32>"),
		r(9720, "MS Office <= 2003 $0/$1, MD5 + RC4, collider #2", "", catDoc, "$oldoffice$0"+oldOff+"<hex:32>:<hex:10>", "$oldoffice$1"+oldOff+"<hex:32>:<hex:10>"),
		r(9800, "MS Office <= 2003 $3/$4, SHA1 + RC4", "oldoffice", catDoc, "$oldoffice$3"+oldOff+"<hex:40>", "$oldoffice$4"+oldOff+"<hex:40>"),
		r(9810, "MS Office <= 2003 $3, SHA1 + RC4, collider #1", "", catDoc, "$oldoffice$3"+oldOff+"<hex:40>", "$oldoffice$4"+oldOff+"<hex:40>"),
		r(9820, "MS Office <= 2003 $3, SHA1 + RC4, collider #2", "", catDoc, "$oldoffice$3"+oldOff+"<hex:40>:<hex:10>", "$oldoffice$4"+oldOff+"<hex:40>:<hex:10>"),
		r(10400, "PDF 1.1 - 1.3 (Acrobat 2 - 4)", "pdf", catDoc, "$pdf$1*2*40"+pdf2),
		r(10410, "PDF 1.1 - 1.3 (Acrobat 2 - 4), collider #1", "", catDoc, "$pdf$1*2*40"+pdf2),
		r(10420, "PDF 1.1 - 1.3 (Acrobat 2 - 4), collider #2", "", catDoc, "$pdf$1*2*40"+pdf2+":<hex:10>"),
		r(10500, "PDF 1.4 - 1.6 (Acrobat 5 - 8)", "pdf", catDoc, "$pdf$2*3*128"+pdf2, "$pdf$4*4*128"+pdf2),
		r(25400, "PDF 1.4 - 1.6 (Acrobat 5 - 8) - user and owner pass", "", catDoc, "$pdf$2*3*128"+pdf2, "$pdf$4*4*128"+pdf2),
		r(10600, "PDF 1.7 Level 3 (Acrobat 9)", "pdf", catDoc, "$pdf$5*5*256"+pdf5),
		r(10700, "PDF 1.7 Level 8 (Acrobat 10 - 11)", "pdf", catDoc, "$pdf$5*6*256"+pdf5),
		r(18400, "Open Document Format (ODF) 1.2 (SHA-256, AES)", "odf", catDoc, "$odf$*1*1*<dec=iterations>*32*<hex:64>*16*<hex:32>*16*<hex:32=salt>*0*<hex>"),
		r(18600, "Open Document Format (ODF) 1.1 (SHA-1, Blowfish)", "odf", catDoc, "$odf$*0*0*<dec=iterations>*16*<hex:40>*8*<hex:16>*16*<hex:32=salt>*0*<hex>"),
		r(16200, "Apple Secure Notes", "notes", catDoc, "$ASN$*<dec>*<dec=iterations>*<hex:32=salt>*<hex:48>"),
		r(23300, "Apple iWork", "iwork", catDoc, "$iwork$<dec>$<dec>$<dec>$<dec=iterations>$<hex=salt>$<hex>$<hex>"),

		// Full-disk and volume encryption.
		r(8800, "Android FDE <= 4.3", "fde", catFDE, "$fde$<dec=keysize>$<hex=salt>$<dec>$<hex>$<hex>"),
		r(12900, "Android FDE (Samsung DEK)", "", catFDE, "<hex:160>").vet(caseBonus(false)),
		r(12200, "eCryptfs", "ecryptfs", catFDE, "$ecryptfs$0$<dec>$<hex:16=salt>$<hex:16>"),
		r(16700, "FileVault 2", "fvde", catFDE, "$fvde$1$<dec>$<hex=salt>$<dec=iterations>$<hex>"),
		r(18300, "Apple File System (APFS)", "fvde", catFDE, "$fvde$2$<dec>$<hex=salt>$<dec=iterations>$<hex>"),
		r(20011, "DiskCryptor SHA512 + XTS 512 bit", "diskcryptor", catFDE, "$diskcryptor$0*<hex:4096>"),
		r(20012, "DiskCryptor SHA512 + XTS 1024 bit", "diskcryptor", catFDE, "$diskcryptor$0*<hex:4096>"),
		r(20013, "DiskCryptor SHA512 + XTS 1536 bit", "diskcryptor", catFDE, "$diskcryptor$0*<hex:4096>"),
		r(22100, "BitLocker", "bitlocker", catFDE, "$bitlocker$<dec=version>$<dec>$<hex=salt>$<dec=iterations>$<dec>$<hex>$<dec>$<hex>"),
		r(22400, "AES Crypt (SHA256)", "", catFDE, "$aescrypt$1*<hex:32=iv>*<hex:32>*<hex:64>*<hex:64>"),
		r(23900, "BestCrypt v3 Volume Encryption", "", catFDE, "$bcve$3$<dec>$<hex=salt>$<hex>"),
		r(27400, "VMware VMX (PBKDF2-HMAC-SHA1 + AES-256-CBC)", "vmx", catFDE, "$vmx$0$<dec=iterations>$<hex:32=salt>$<hex:64>"),
		r(27500, "VirtualBox (PBKDF2-HMAC-SHA256 & AES-128-XTS)", "", catFDE, "$vbox$0$<dec=iterations>$<hex:64=salt>$8$<hex>$<dec>$<hex>$<hex>"),
		r(27600, "VirtualBox (PBKDF2-HMAC-SHA256 & AES-256-XTS)", "", catFDE, "$vbox$0$<dec=iterations>$<hex:64=salt>$16$<hex>$<dec>$<hex>$<hex>"),
		r(29311, "TrueCrypt RIPEMD160 + XTS 512 bit", "tc_ripemd160", catFDE, "$truecrypt$"+tcrypt),
		r(29312, "TrueCrypt RIPEMD160 + XTS 1024 bit", "tc_ripemd160", catFDE, "$truecrypt$"+tcrypt),
		r(29313, "TrueCrypt RIPEMD160 + XTS 1536 bit", "tc_ripemd160", catFDE, "$truecrypt$"+tcrypt),
		r(29321, "TrueCrypt SHA512 + XTS 512 bit", "tc_sha512", catFDE, "$truecrypt$"+tcrypt),
		r(29322, "TrueCrypt SHA512 + XTS 1024 bit", "tc_sha512", catFDE, "$truecrypt$"+tcrypt),
		r(29323, "TrueCrypt SHA512 + XTS 1536 bit", "tc_sha512", catFDE, "$truecrypt$"+tcrypt),
		r(29331, "TrueCrypt Whirlpool + XTS 512 bit", "tc_whirlpool", catFDE, "$truecrypt$"+tcrypt),
		r(29332, "TrueCrypt Whirlpool + XTS 1024 bit", "tc_whirlpool", catFDE, "$truecrypt$"+tcrypt),
		r(29333, "TrueCrypt Whirlpool + XTS 1536 bit", "tc_whirlpool", catFDE, "$truecrypt$"+tcrypt),
		r(29341, "TrueCrypt RIPEMD160 + XTS 512 bit + boot-mode", "tc_ripemd160boot", catFDE, "$truecrypt$"+tcrypt),
		r(29342, "TrueCrypt RIPEMD160 + XTS 1024 bit + boot-mode", "tc_ripemd160boot", catFDE, "$truecrypt$"+tcrypt),
		r(29343, "TrueCrypt RIPEMD160 + XTS 1536 bit + boot-mode", "tc_ripemd160boot", catFDE, "$truecrypt$"+tcrypt),
		r(29411, "VeraCrypt RIPEMD160 + XTS 512 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29412, "VeraCrypt RIPEMD160 + XTS 1024 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29413, "VeraCrypt RIPEMD160 + XTS 1536 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29421, "VeraCrypt SHA512 + XTS 512 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29422, "VeraCrypt SHA512 + XTS 1024 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29423, "VeraCrypt SHA512 + XTS 1536 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29431, "VeraCrypt Whirlpool + XTS 512 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29432, "VeraCrypt Whirlpool + XTS 1024 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29433, "VeraCrypt Whirlpool + XTS 1536 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29441, "VeraCrypt RIPEMD160 + XTS 512 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29442, "VeraCrypt RIPEMD160 + XTS 1024 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29443, "VeraCrypt RIPEMD160 + XTS 1536 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29451, "VeraCrypt SHA256 + XTS 512 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29452, "VeraCrypt SHA256 + XTS 1024 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29453, "VeraCrypt SHA256 + XTS 1536 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29461, "VeraCrypt SHA256 + XTS 512 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29462, "VeraCrypt SHA256 + XTS 1024 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29463, "VeraCrypt SHA256 + XTS 1536 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29471, "VeraCrypt Streebog-512 + XTS 512 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29472, "VeraCrypt Streebog-512 + XTS 1024 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29473, "VeraCrypt Streebog-512 + XTS 1536 bit", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29481, "VeraCrypt Streebog-512 + XTS 512 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29482, "VeraCrypt Streebog-512 + XTS 1024 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29483, "VeraCrypt Streebog-512 + XTS 1536 bit + boot-mode", "", catFDE, "$veracrypt$"+tcrypt, "$veracrypt$"+tcrypt+"$<dec=pim>"),
		r(29511, "LUKS v1 SHA-1 + AES", "", catFDE, "$luks$1$sha1$aes"+luks),
		r(29512, "LUKS v1 SHA-1 + Serpent", "", catFDE, "$luks$1$sha1$serpent"+luks),
		r(29513, "LUKS v1 SHA-1 + Twofish", "", catFDE, "$luks$1$sha1$twofish"+luks),
		r(29521, "LUKS v1 SHA-256 + AES", "", catFDE, "$luks$1$sha256$aes"+luks),
		r(29522, "LUKS v1 SHA-256 + Serpent", "", catFDE, "$luks$1$sha256$serpent"+luks),
		r(29523, "LUKS v1 SHA-256 + Twofish", "", catFDE, "$luks$1$sha256$twofish"+luks),
		r(29531, "LUKS v1 SHA-512 + AES", "", catFDE, "$luks$1$sha512$aes"+luks),
		r(29532, "LUKS v1 SHA-512 + Serpent", "", catFDE, "$luks$1$sha512$serpent"+luks),
		r(29533, "LUKS v1 SHA-512 + Twofish", "", catFDE, "$luks$1$sha512$twofish"+luks),
		r(29541, "LUKS v1 RIPEMD-160 + AES", "", catFDE, "$luks$1$ripemd160$aes"+luks),
		r(29542, "LUKS v1 RIPEMD-160 + Serpent", "", catFDE, "$luks$1$ripemd160$serpent"+luks),
		r(29543, "LUKS v1 RIPEMD-160 + Twofish", "", catFDE, "$luks$1$ripemd160$twofish"+luks),

		// Password managers.
		r(6600, "1Password, agilekeychain", "agilekeychain", catPM, "<dec=iterations>:<hex:16=salt>:<hex:64+>"),
		r(6800, "LastPass + LastPass sniffed", "lp", catPM, "<hex:32>:<dec=iterations>:<email=user>"),
		r(8200, "1Password, cloudkeychain", "cloudkeychain", catPM, "<hex:64>:<hex:32=salt>:<dec=iterations>:<hex>"),
		r(13400, "KeePass 1 (AES/Twofish) and KeePass 2 (AES)", "keepass", catPM, "$keepass$*<dec=version>*<dec=iterations>*<hexs>"),
		r(29700, "KeePass 1 (AES/Twofish) and KeePass 2 (AES) - keyfile only mode", "", catPM, "$keepass$*<dec=version>*<dec=iterations>*<dec>*<hex>*<hex>*<hex>*<hex>*<hex>"),
		r(16900, "Ansible Vault", "ansible", catPM, "$ansible$0*0*<hex=salt>*<hex>*<hex>"),
		r(23100, "Apple Keychain", "keychain", catPM, "$keychain$*<hex:40=salt>*<hex:16>*<hex:96>"),
		r(23400, "Bitwarden", "bitwarden", catPM, "$bitwarden$<dec=version>*<dec=iterations>*<dec>*<b64=user>*<b64>"),
		r(26000, "Mozilla key3.db", "mozilla", catPM, "$mozilla$*3DES*<hex:40=salt>*<hex:40>*<hex:32>"),
		r(26100, "Mozilla key4.db", "mozilla", catPM, "$mozilla$*AES*<hex:40=salt>*<hex:64>*<dec=iterations>*<hex:32>*<hex:32>"),

		// Private keys.
		r(15500, "JKS Java Key Store Private Keys (SHA1)", "", catKey, "$jksprivk$*<uhex:40>*<uhex:40>*<uhex>*<dec>*<uhex>*<text=alias>"),
		r(17010, "GPG (AES-128/AES-256 (SHA-1($pass)))", "gpg", catRaw, "$gpg$*<dec>*<dec>*<dec>*<hexs>"),
		r(22911, "RSA/DSA/EC/OpenSSH Private Keys ($0$)", "SSH", catKey, "$sshng$0$"+sshng8),
		r(22921, "RSA/DSA/EC/OpenSSH Private Keys ($6$)", "SSH", catKey, "$sshng$6$"+sshng8),
		r(22931, "RSA/DSA/EC/OpenSSH Private Keys ($1, $3$)", "SSH", catKey, "$sshng$1$"+sshng16, "$sshng$3$"+sshng16),
		r(22941, "RSA/DSA/EC/OpenSSH Private Keys ($4$)", "SSH", catKey, "$sshng$4$"+sshng16),
		r(22951, "RSA/DSA/EC/OpenSSH Private Keys ($5$)", "SSH", catKey, "$sshng$5$"+sshng16),
		r(24410, "PKCS#8 Private Keys (PBKDF2-HMAC-SHA1 + 3DES/AES)", "PEM", catKey, "$PEM$1$<dec>$<hex=salt>$<dec=iterations>$<hex>$<dec>$<hex>"),
		r(24420, "PKCS#8 Private Keys (PBKDF2-HMAC-SHA256 + 3DES/AES)", "PEM", catKey, "$PEM$2$<dec>$<hex=salt>$<dec=iterations>$<hex>$<dec>$<hex>"),

		// Instant messaging.
		r(23, "Skype", "", catIM, hex32u),
		r(22301, "Telegram Mobile App Passcode (SHA256)", "Telegram", catIM, "$telegram$0*<hex:64>*<hex:32=salt>"),
		r(22600, "Telegram Desktop < v2.1.14 (PBKDF2-HMAC-SHA1)", "Telegram", catIM, "$telegram$1*<dec=iterations>*<hex:64=salt>*<hex>"),
		r(24500, "Telegram Desktop >= v2.1.14 (PBKDF2-HMAC-SHA512)", "Telegram", catIM, "$telegram$2*<dec=iterations>*<hex:64=salt>*<hex>"),
		r(23200, "XMPP SCRAM PBKDF2-SHA1", "xmpp-scram", catIM, "$xmpp-scram$0$<dec=iterations>$<dec>$<hex=salt>$<hex:40>"),
		r(28300, "Teamspeak 3 (channel hash)", "", catIM, "$teamspeak$3$<b64=salt>$<b64>"),

		// Cryptocurrency wallets.
		r(11300, "Bitcoin/Litecoin wallet.dat", "bitcoin", catWallet, "$bitcoin$<dec>$<hex>$<dec>$<hex=salt>$<dec=iterations>$<dec>$<hex>$<dec>$<hex>"),
		r(12700, "Blockchain, My Wallet", "blockchain", catWallet, "$blockchain$<dec>$<hex>"),
		r(15200, "Blockchain, My Wallet, V2", "blockchain", catWallet, "$blockchain$v2$<dec=iterations>$<dec>$<hex>"),
		r(18800, "Blockchain, My Wallet, Second Password (SHA256)", "", catWallet, "<b64:80>"),
		r(15600, "Ethereum Wallet, PBKDF2-HMAC-SHA256", "ethereum", catWallet, "$ethereum$p*<dec=iterations>*<hex=salt>*<hex:64>*<hex:64>"),
		r(15700, "Ethereum Wallet, SCRYPT", "ethereum", catWallet, "$ethereum$s*<dec=cost>*<dec=block_size>*<dec=parallelism>*<hex=salt>*<hex:64>*<hex:64>"),
		r(16300, "Ethereum Pre-Sale Wallet, PBKDF2-HMAC-SHA256", "ethereum", catWallet, "$ethereum$w*<hex>*<hex:40>*<hex:32>"),
		r(16600, "Electrum Wallet (Salt-Type 1-3)", "electrum", catWallet, "$electrum$1*<hex:32>*<hex:32>", "$electrum$2*<hex:32>*<hex:32>", "$electrum$3*<hex:32>*<hex:32>"),
		r(21700, "Electrum Wallet (Salt-Type 4)", "electrum", catWallet, "$electrum$4*<hex:66>*<hex>*<hex:64>"),
		r(21800, "Electrum Wallet (Salt-Type 5)", "electrum", catWallet, "$electrum$5*<hex:66>*<hex>*<hex:64>"),
		r(22500, "MultiBit Classic .key (MD5)", "multibit", catWallet, "$multibit$1*<hex:16=salt>*<hex:64>"),
		r(22700, "MultiBit HD (scrypt)", "multibit", catWallet, "$multibit$2*<hex:32=salt>*<hex:32>*<hex:32>"),
		r(27700, "MultiBit Classic .wallet (scrypt)", "multibit", catWallet, "$multibit$3*<dec=cost>*<dec=block_size>*<dec=parallelism>*<hex:16=salt>*<hex:64>"),
		r(25500, "Stargazer Stellar Wallet XLM", "", catWallet, "$stellar$<b64=salt>$<b64=iv>$<b64>"),
		r(26600, "MetaMask Wallet", "", catWallet, "$metamask$<b64=salt>$<b64=iv>$<b64>"),
		r(28200, "Exodus Desktop Wallet (scrypt)", "", catWallet, "EXODUS:<dec=cost>:<dec=block_size>:<dec=parallelism>:<b64=salt>:<b64>:<b64>:<b64>"),
		r(28501, "Bitcoin WIF private key (P2PKH), compressed", "", catWallet, "1<b58:25-34>").vet(base58Address),
		r(28502, "Bitcoin WIF private key (P2PKH), uncompressed", "", catWallet, "1<b58:25-34>").vet(base58Address),
		r(28503, "Bitcoin WIF private key (P2WPKH, Bech32), compressed", "", catWallet, "bc1<bech:39>").vet(bech32Address),
		r(28504, "Bitcoin WIF private key (P2WPKH, Bech32), uncompressed", "", catWallet, "bc1<bech:39>").vet(bech32Address),
		r(28505, "Bitcoin WIF private key (P2SH(P2WPKH)), compressed", "", catWallet, "3<b58:25-34>").vet(base58Address),
		r(28506, "Bitcoin WIF private key (P2SH(P2WPKH)), uncompressed", "", catWallet, "3<b58:25-34>").vet(base58Address),
		r(29600, "Terra Station Wallet (AES256-CBC(PBKDF2($pass)))", "", catWallet, "<hex:64=salt><b64:80-160>").vet(notAllHex),

		// Plaintext: hashcat's modes that take the password itself. They have
		// no pattern; a string that reads as a word reaches them (nothash.go).
		r(99999, "Plaintext", "plaintext", catPlain),
		r(2000, "STDOUT", "", catPlain),

		// Formats hashcat lacks: John the Ripper's and those of the tools that
		// write them.
		r(noMode, "yescrypt", "crypt", catOS, "$y$<c64=params>$<c64:0+=salt>$<c64:43>"),
		r(noMode, "gost-yescrypt", "crypt", catOS, "$gy$<c64=params>$<c64:0+=salt>$<c64:43>"),
		r(noMode, "scrypt ($7$)", "scrypt", catOS, "$7$<c64:1=cost@c64><c64:5><c64:5><c64:0+=salt>$<c64:43>"),
		r(noMode, "Sun MD5 crypt", "SunMD5", catOS, "$md5$<c64:0-16=salt>$$<c64:22>", "$md5$<c64:0-16=salt>$<c64:22>", "$md5,rounds=<dec=rounds>$<c64:0-16=salt>$$<c64:22>", "$md5,rounds=<dec=rounds>$<c64:0-16=salt>$<c64:22>"),
		r(noMode, "bigcrypt", "bigcrypt", catOS, "<c64:2=salt><c64:22>", "<c64:2=salt><c64:33>", "<c64:2=salt><c64:44>"),
		r(noMode, "crypt16", "crypt16", catOS, "<c64:2=salt><c64:22>"),
		r(noMode, "passlib bcrypt-sha256", "", catFW, "$bcrypt-sha256$v=<dec=version>,t=<ver:2>,r=<dec:2=cost>$<c64:22=salt>$<c64:31>", "$bcrypt-sha256$<ver:2>,<dec:2=cost>$<c64:22=salt>$<c64:31>"),
		r(noMode, "passlib scrypt", "", catFW, "$scrypt$ln=<dec=cost>,r=<dec=block_size>,p=<dec=parallelism>$<b64d:0+=salt>$<b64d>"),
		r(noMode, "passlib SCRAM", "", catFW, "$scram$<dec=iterations>$<c64=salt>$<text>"),
		r(noMode, "passlib PBKDF2-SHA1 ($p5k2$)", "", catFW, "$p5k2$<hex=iterations>$<b64x=salt>$<b64x:28-32>"),
		r(noMode, "FSHP", "", catFW, "{FSHP<dec=variant>|<dec=saltsize>|<dec=iterations>}<b64>"),
		r(noMode, "Django PBKDF2-SHA1", "", catFW, "pbkdf2_sha1$<dec=iterations>$<word=salt>$<b64:28>"),
		r(noMode, "Django MD5", "", catFW, "md5$<word=salt>$<hex:32>", "md5$<alnum:12=salt>$<hex:32>", "md5$<lhex:5=salt>$<hex:32>"),
		r(noMode, "Django bcrypt-SHA256", "", catFW, "bcrypt_sha256$"+bcrypt),
		r(3200, "Django bcrypt", "bcrypt", catFW, "bcrypt$"+bcrypt),
		r(34000, "Django Argon2", "argon2", catFW, "argon2$argon2<ver:1-2=variant>$v=<dec=version>$m=<dec=memory>,t=<dec=iterations>,p=<dec=parallelism>$<b64=salt>$<b64>"),
		r(noMode, "Django scrypt", "", catFW, "scrypt$<dec=cost>$<word=salt>$<dec=block_size>$<dec=parallelism>$<b64>"),
		r(noMode, "Werkzeug PBKDF2-SHA256", "", catFW, "pbkdf2:sha256:<dec=iterations>$<word=salt>$<hex:64>", "pbkdf2:sha256$<word=salt>$<hex:64>"),
		r(noMode, "Werkzeug PBKDF2-SHA512", "", catFW, "pbkdf2:sha512:<dec=iterations>$<word=salt>$<hex:128>", "pbkdf2:sha512$<word=salt>$<hex:128>"),
		r(noMode, "Werkzeug scrypt", "", catFW, "scrypt:<dec=cost>:<dec=block_size>:<dec=parallelism>$<word=salt>$<hex:128>"),
		r(12150, "Apache Shiro 1 SHA-512", "", catFW, "$shiro1$SHA-512$<dec=iterations>$<b64=salt>$<b64>"),
		r(noMode, "LDAP {SHA256}", "", catServer, "{SHA256}<b64:44>"),
		r(noMode, "LDAP {SHA384}", "", catServer, "{SHA384}<b64:64>"),
		r(noMode, "LDAP {SHA512}", "", catServer, "{SHA512}<b64:88>"),
		r(noMode, "LDAP {MD5}", "", catServer, "{MD5}<b64:24>", "{md5}<b64:24>", "{MD5}<hex:32>"),
		r(noMode, "LDAP {SMD5}", "", catServer, "{SMD5}<b64:24+>", "{smd5}<b64:24+>"),
		r(noMode, "LDAP {PBKDF2} (passlib)", "", catServer, "{PBKDF2}<dec=iterations>$<c64=salt>$<c64:27>", "{PBKDF2-SHA1}<dec=iterations>$<c64=salt>$<c64:27>"),
		r(noMode, "LDAP {PBKDF2-SHA256} (passlib)", "", catServer, "{PBKDF2-SHA256}<dec=iterations>$<c64=salt>$<c64:43>"),
		r(noMode, "LDAP {PBKDF2-SHA512} (passlib)", "", catServer, "{PBKDF2-SHA512}<dec=iterations>$<c64=salt>$<c64:86>"),
		r(noMode, "Dovecot PBKDF2", "", catServer, "{PBKDF2}$1$<word=salt>$<dec=iterations>$<hex:40>"),
		r(noMode, "Dovecot SCRAM-SHA-1", "", catServer, "{SCRAM-SHA-1}<dec=iterations>,<b64=salt>,<b64:28>,<b64:28>"),
		r(noMode, "Dovecot SCRAM-SHA-256", "", catServer, "{SCRAM-SHA-256}<dec=iterations>,<b64=salt>,<b64:44>,<b64:44>"),
		r(noMode, "Dovecot DIGEST-MD5", "", catServer, "{DIGEST-MD5}<hex:32>"),
		r(noMode, "MD5 (base64)", "", catRaw, "<b64e:22>=="),
		r(noMode, "SHA-1 (base64)", "", catRaw, "<b64e:27>="),
		r(noMode, "SHA-256 (base64)", "", catRaw, "<b64e:43>="),
		r(noMode, "SHA-384 (base64)", "", catRaw, "<b64e:64>"),
		r(noMode, "SHA-512 (base64)", "", catRaw, "<b64e:86>=="),
		r(noMode, "Adler-32", "", catChecksum, "<hex:8>"),
		r(noMode, "FNV-1a-32", "", catChecksum, "<hex:8>"),
		r(noMode, "FNV-1-32", "", catChecksum, "<hex:8>"),
		r(noMode, "Jenkins one-at-a-time", "", catChecksum, "<hex:8>"),
		r(noMode, "FNV-1a-64", "", catChecksum, "<hex:16>"),
		r(noMode, "RIPEMD-128", "ripemd-128", catRaw, "<hex:32>"),
		r(noMode, "Haval-128", "haval-128-4", catRaw, "<hex:32>"),
		r(noMode, "Tiger-128", "", catRaw, "<hex:32>"),
		r(noMode, "MD2", "md2", catRaw, "<hex:32>"),
		r(noMode, "Snefru-128", "snefru-128", catRaw, "<hex:32>"),
		r(noMode, "Tiger-160", "", catRaw, "<hex:40>"),
		r(noMode, "Haval-160", "", catRaw, "<hex:40>"),
		r(noMode, "HAS-160", "has-160", catRaw, "<hex:40>"),
		r(noMode, "Tiger-192", "tiger", catRaw, "<hex:48>"),
		r(noMode, "Haval-192", "", catRaw, "<hex:48>"),
		r(noMode, "SHA-512/224", "", catRaw, "<hex:56>"),
		r(noMode, "Haval-224", "", catRaw, "<hex:56>"),
		r(noMode, "SHA-512/256", "", catRaw, "<hex:64>"),
		r(noMode, "RIPEMD-256", "", catRaw, "<hex:64>"),
		r(noMode, "Haval-256", "haval-256-3", catRaw, "<hex:64>"),
		r(noMode, "Snefru-256", "snefru-256", catRaw, "<hex:64>"),
		r(noMode, "Skein-256", "skein-256", catRaw, "<hex:64>"),
		r(noMode, "RIPEMD-320", "", catRaw, "<hex:80>"),
		r(noMode, "BLAKE2b-384", "", catRaw, "<hex:96>"),
		r(noMode, "Skein-512", "skein-512", catRaw, "<hex:128>"),
		r(noMode, "Cisco type 7 (reversible)", "", catOS, "<dec:2><uhex:4+>").vet(ciscoType7),
		r(noMode, "MySQL CRAM (SHA1, john)", "mysqlna", catDB, "$mysqlna$<hex:40=salt>$<hex:40>"),
		r(noMode, "Oracle O5LOGON", "o5logon", catDB, "$o5logon$<hex>*<hexs>"),
		r(noMode, "VNC challenge/response", "vnc", catNet, "$vnc$*<hex:32=challenge>*<hex:32>"),
		r(noMode, "WPA-PSK (john $WPAPSK$)", "wpapsk", catNet, "$WPAPSK$<any>"),
		r(noMode, "PKZIP (john $pkzip$)", "pkzip", catArchive, "$pkzip$<hexs>*$/pkzip$"),
		r(noMode, "Apple DMG", "dmg", catFDE, "$dmg$<any>"),
		r(noMode, "LUKS (john)", "LUKS", catFDE, "$luks$<dec>$<dec>$<any>"),
		r(noMode, "StarOffice (SXC)", "ODF", catDoc, "$sxc$*<any>"),
		r(noMode, "EncFS", "encfs", catFDE, "$encfs$<any>"),
		r(noMode, "GNOME Keyring", "keyring", catPM, "$keyring$<any>"),
		r(noMode, "KDE KWallet", "kwallet", catPM, "$kwallet$<any>"),
		r(noMode, "Password Safe v3", "pwsafe", catPM, "$pwsafe$*<any>"),
	}
}
