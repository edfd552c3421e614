// Package hashid guesses which algorithm produced a hash string and names the
// matching hashcat mode and John the Ripper format.
//
// Families covered: raw digests by length and alphabet (CRC32, MySQL323, MD5,
// NTLM, MD4, LM, SHA-1, RIPEMD, SHA-2, SHA-3, Keccak, BLAKE2, Whirlpool,
// Streebog, GOST, Tiger, Haval, SM3 and base64 digests); salted "hash:salt"
// schemes (md5/sha1/sha256/sha512 with salt, HMAC, vBulletin, IPB/MyBB,
// Joomla, osCommerce, PrestaShop, Redmine, PunBB, OpenCart, WBB3, SMF, DCC,
// Oracle 7-10g, Android PIN); Unix modular crypt (md5crypt, apr1, Sun MD5,
// sha256crypt, sha512crypt, bcrypt, yescrypt, scrypt, sha1crypt, DES and
// BSDi crypt); password-library formats (phpass, Drupal 7, MediaWiki, Django,
// passlib, Werkzeug, Argon2, PBKDF2, Atlassian, GRUB2, macOS); directories and
// databases (LDAP {SHA}/{SSHA}/..., AIX, MySQL, MSSQL, Oracle 11g/12c,
// PostgreSQL MD5 and SCRAM, Sybase, MongoDB, SAP CODVN B/F/H, Lotus Notes,
// RACF, QNX); network and Windows authentication (NetNTLMv1/v2, Kerberos 5
// etype 17/18/23 AS-REQ/TGS-REP/AS-REP, DCC2, DPAPI, WPA PMKID/EAPOL, SIP,
// SNMPv3, TACACS+, CRAM-MD5, JWT); network devices (Cisco types 4/5/7/8/9,
// PIX, ASA, Juniper, FortiGate, Citrix NetScaler); and cracking-tool
// extractions of files and wallets (7-Zip, RAR, ZIP, PDF, MS Office, KeePass,
// BitLocker, FileVault, Android FDE and backups, iTunes backups, Telegram,
// Ansible Vault, Apple keychain, 1Password, Bitwarden, bitcoin, Ethereum,
// Electrum, Blockchain, MetaMask, SSH keys, GPG, PEM, Radmin, Skype, ...).
//
// Identification is shape-only: a string can fit several formats, so
// Identify returns ranked candidates. A line that fits nothing as a whole but
// whose second colon-separated field does ("user:hash", /etc/shadow) is
// identified by that field, at slightly lower confidence. Work per input is bounded: inputs over
// MaxInputBytes match nothing, and dispatch on prefix, length and alphabet
// keeps the number of regular expressions evaluated per input small.
package hashid

import (
	"sort"
	"strings"
)

// MaxInputBytes bounds the input Identify examines; longer input matches
// nothing. Real hashes, even file-extraction blobs worth guessing, fit.
const MaxInputBytes = 4096

// Candidate is one possible format for a hash.
type Candidate struct {
	Name string `json:"name"`
	// HashcatMode is hashcat's -m number, nil when hashcat has none.
	HashcatMode *int `json:"hashcat_mode"`
	// JohnFormat is John the Ripper's --format name, empty when unknown.
	JohnFormat string `json:"john_format"`
	// Confidence is in (0,1]; higher is more likely.
	Confidence float64 `json:"confidence"`
}

// Identify returns the formats hash could be in, best first. Surrounding
// whitespace is ignored. The result is empty (non-nil) when nothing matches.
func Identify(hash string) []Candidate {
	out := []Candidate{}
	if len(hash) > MaxInputBytes {
		return out
	}
	s := strings.TrimSpace(hash)
	if s == "" {
		return out
	}
	out = match(s, 1, out)
	if len(out) == 0 {
		// A "user:hash" list entry or an /etc/shadow line: try the second
		// field, a little less sure since the field split is itself a guess.
		if _, field, ok := strings.Cut(s, ":"); ok {
			field, _, _ = strings.Cut(field, ":")
			if field != "" {
				out = match(field, userFieldDiscount, out)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}

// userFieldDiscount scales the confidence of candidates found in the second
// field of a colon-separated line.
const userFieldDiscount = 0.9

// match appends to out the formats s fits, confidences scaled by scale.
func match(s string, scale float64, out []Candidate) []Candidate {
	add := func(f *format) {
		for _, c := range out {
			if c.Name == f.name {
				return
			}
		}
		c := Candidate{Name: f.name, JohnFormat: f.john, Confidence: f.conf * scale}
		if f.mode != noMode {
			m := f.mode
			c.HashcatMode = &m
		}
		out = append(out, c)
	}

	for _, f := range byFirstByte[s[0]] {
		if len(s) > len(f.prefix) && strings.HasPrefix(s, f.prefix) && (f.re == nil || f.re.MatchString(s)) {
			add(f)
		}
	}
	hex := isHex(s)
	if hex {
		for _, f := range hexByLen[len(s)] {
			add(f)
		}
	}
	if i := strings.IndexByte(s, ':'); i > 0 && isHex(s[:i]) {
		salt := s[i+1:]
		for _, f := range saltedByLen[i] {
			if salt != "" && (f.re == nil || f.re.MatchString(salt)) {
				add(f)
			}
		}
	}
	for _, f := range structural {
		if len(s) < f.minLen || len(s) > f.maxLen || hex && f.notHex ||
			f.needs != 0 && strings.IndexByte(s, f.needs) < 0 {
			continue
		}
		if f.check != nil && f.check(s) || f.re != nil && f.re.MatchString(s) {
			add(f)
		}
	}
	for _, f := range base64ByLen[len(s)] {
		// A hex string is also valid base64, but is far likelier a hex digest.
		if !hex && f.re.MatchString(s) {
			add(f)
		}
	}

	return out
}

// Formats reports how many distinct formats the table knows.
func Formats() int { return len(allNames) }

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
