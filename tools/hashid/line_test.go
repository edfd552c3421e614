package hashid_test

import (
	"encoding/hex"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"secutil/tools/hashid"
)

const (
	ntPassword = "8846f7eaee8fb117ad06bdd830b7586c" // NT hash of "password"
	emptyLM    = "aad3b435b51404eeaad3b435b51404ee"
	emptyNT    = "31d6cfe0d16ae931b73c59d7e0c089c0"
	realLM     = "e52cac67419a9a224a3b108f3fa6cb6d" // LM hash of "password"
	sha512c    = "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/"
)

func mode(c hashid.Candidate) int {
	if c.HashcatMode == nil {
		return -1
	}
	return *c.HashcatMode
}

// TestIdentifyLine: every layout of a dump line is read as such, its hash
// part identified, with the user and the LM half named.
func TestIdentifyLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, layout, user, hash string
		first                    string
		mode                     int
		hashcat                  string
		lm                       string // the LM part's name, "" for none
	}{
		// The example: an empty LM, a colon, the NT hash of "password".
		{emptyLM + ":" + ntPassword, hashid.LayoutLMNT, "", ntPassword, "NTLM", 1000, "hashcat -m 1000 hash.txt wordlist.txt", "empty LM"},
		{strings.ToUpper(emptyLM + ":" + ntPassword), hashid.LayoutLMNT, "", strings.ToUpper(ntPassword), "NTLM", 1000, "hashcat -m 1000 hash.txt wordlist.txt", "empty LM"},
		{realLM + ":" + ntPassword, hashid.LayoutLMNT, "", ntPassword, "NTLM", 1000, "hashcat -m 1000 hash.txt wordlist.txt", "LM"},
		// pwdump and secretsdump lines, with a domain, a status, a machine account.
		{"Administrator:500:" + emptyLM + ":" + emptyNT + ":::", hashid.LayoutPwdump, "Administrator", emptyNT, "NTLM", 1000, "hashcat -m 1000 hash.txt wordlist.txt", "empty LM"},
		{`CORP\bob:1104:` + realLM + ":" + ntPassword + "::: (status=Enabled)", hashid.LayoutPwdump, `CORP\bob`, ntPassword, "NTLM", 1000, "hashcat -m 1000 hash.txt wordlist.txt", "LM"},
		{"corp.local\\DC01$:1000:" + emptyLM + ":" + ntPassword + "::: (status=N/A)\r\n", hashid.LayoutPwdump, "corp.local\\DC01$", ntPassword, "NTLM", 1000, "hashcat -m 1000 hash.txt wordlist.txt", "empty LM"},
		// user:hash, as hashcat's --username reads it.
		{"bob:" + ntPassword, hashid.LayoutUserHash, "bob", ntPassword, "MD5", 0, "hashcat -m 0 --username hash.txt wordlist.txt", ""},
		{"alice:5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", hashid.LayoutUserHash, "alice", "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", "SHA-1", 100, "hashcat -m 100 --username hash.txt wordlist.txt", ""},
		{"alice:$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.", hashid.LayoutUserHash, "alice", "$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.", "Apache $apr1$ MD5, md5apr1, MD5 (APR)", 1600, "hashcat -m 1600 --username hash.txt wordlist.txt", ""},
		// Shadow lines: the second field.
		{"root:" + sha512c + ":19000:0:99999:7:::", hashid.LayoutShadow, "root", sha512c, "sha512crypt", 1800, "hashcat -m 1800 --username hash.txt wordlist.txt", ""},
		{"  " + sha512c + "  ", hashid.LayoutHash, "", sha512c, "sha512crypt", 1800, "hashcat -m 1800 hash.txt wordlist.txt", ""},
		// A phrase is one input, not split into words.
		{"correct horse battery staple", hashid.LayoutHash, "", "correct horse battery staple", "", -2, "", ""},
	}
	for _, tt := range tests {
		got := hashid.IdentifyLine(tt.line)
		if got.Layout != tt.layout || got.User != tt.user || got.Hash != tt.hash {
			t.Errorf("%.40q: layout %q user %q hash %q, want %q %q %q", tt.line, got.Layout, got.User, got.Hash, tt.layout, tt.user, tt.hash)
		}
		if !strings.HasPrefix(tt.line[got.HashOffset:], got.Hash) {
			t.Errorf("%.40q: hash_offset %d does not point at %q", tt.line, got.HashOffset, got.Hash)
		}
		if len(got.Candidates) > hashid.LineCandidates {
			t.Errorf("%.40q: %d candidates", tt.line, len(got.Candidates))
		}
		if tt.mode == -2 {
			if got.Estimate != hashid.NotHash || got.Note != "text with spaces" {
				t.Errorf("%.40q: %+v, want text with spaces", tt.line, got.Result)
			}
			continue
		}
		if len(got.Candidates) == 0 {
			t.Fatalf("%.40q: no candidate", tt.line)
		}
		c := got.Candidates[0]
		if c.Name != tt.first || mode(c) != tt.mode || c.Hashcat != tt.hashcat || got.Estimate != tt.first {
			t.Errorf("%.40q: first %q mode %d %q, want %q %d %q", tt.line, c.Name, mode(c), c.Hashcat, tt.first, tt.mode, tt.hashcat)
		}
		switch {
		case tt.lm == "" && got.LM != nil:
			t.Errorf("%.40q: LM part %+v", tt.line, got.LM)
		case tt.lm != "" && (got.LM == nil || got.LM.Name != tt.lm || (got.LM.HashcatMode != nil) != (tt.lm == "LM")):
			t.Errorf("%.40q: LM part %+v, want %q", tt.line, got.LM, tt.lm)
		}
	}
}

// TestLMNTPair: an LM:NT pair is NTLM first, its command cracks the NT
// half, and a real LM half is offered to hashcat -m 3000 second; an empty
// LM half is never offered. Before, the pair was "AES-128-ECB NOKDF" with
// neither LM nor NTLM among 21 candidates.
func TestLMNTPair(t *testing.T) {
	t.Parallel()
	res := hashid.Identify(emptyLM + ":" + ntPassword)
	c := res.Candidates[0]
	if c.Name != "NTLM" || mode(c) != 1000 || c.Params["hashcat_hash"] != ntPassword || c.Confidence < 0.9 {
		t.Errorf("empty LM pair: first %+v", c)
	}
	for _, c := range res.Candidates {
		if c.Name == "LM" {
			t.Errorf("empty LM pair: LM offered: %+v", c)
		}
	}
	res = hashid.Identify(realLM + ":" + ntPassword)
	if got := names(res.Candidates); len(got) < 2 || got[0] != "NTLM" || got[1] != "LM" {
		t.Fatalf("LM:NT pair: %q", got)
	}
	if lm := res.Candidates[1]; mode(lm) != 3000 || lm.Params["hashcat_hash"] != realLM {
		t.Errorf("LM half: %+v", lm)
	}
	// A half of decimal digits is no digest: the AES known-plaintext
	// reading keeps its place.
	if got := hashid.Identify("e7a32f3210455cc044f26117c4612aab:86046627772965328523223752173724").Estimate; got != "AES-128-ECB NOKDF (PT = $salt, key = $pass)" {
		t.Errorf("decimal plaintext block: %q", got)
	}
	// The empty LM hash alone is LM's.
	if got := hashid.Identify(emptyLM).Estimate; got != "LM" {
		t.Errorf("the empty LM alone: %q", got)
	}
}

// TestPwdumpLine: a pwdump line has hashcat's mode 1000 and its command
// (hashcat and John read pwdump files as they are).
func TestPwdumpLine(t *testing.T) {
	t.Parallel()
	res := hashid.Identify("Guest:501:" + emptyLM + ":" + emptyNT + ":::")
	c := res.Candidates[0]
	if res.Estimate != "NTLM" || mode(c) != 1000 || c.Hashcat != "hashcat -m 1000 hash.txt wordlist.txt" ||
		c.John != "john --format=nt --wordlist=wordlist.txt hash.txt" || c.Params["user"] != "Guest" || c.Params["rid"] != int64(501) {
		t.Errorf("pwdump line: %+v", c)
	}
	c = hashid.Identify("bob:1104:" + realLM + ":" + ntPassword + "::: (status=Disabled)").Candidates[0]
	if c.Params["status"] != "Disabled" {
		t.Errorf("secretsdump status: %+v", c.Params)
	}
}

// TestLineIdentifier: a LineIdentifier answers as IdentifyLine does, line
// after line, in the storage it reuses.
func TestLineIdentifier(t *testing.T) {
	t.Parallel()
	var id hashid.LineIdentifier
	for _, line := range mixedLines(300) {
		got, want := id.Identify(line), hashid.IdentifyLine(line)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	}
}

// TestIdentifyBest: IdentifyBest answers as Identify does, less the
// candidates after the best and the best one's Params, on a mixed file and
// on the example of every hashcat mode and real tool.
func TestIdentifyBest(t *testing.T) {
	t.Parallel()
	lines := mixedLines(3000)
	for _, ex := range hashid.FixtureExamples(t) {
		lines = append(lines, ex, "user:"+ex, "  "+ex+"\r")
	}
	var full, best hashid.LineIdentifier
	for _, line := range lines {
		checkBest(t, line, full.Identify(line), best.IdentifyBest(line))
	}
}

// checkBest fails t unless got is want with its best candidate only,
// without Params.
func checkBest(t *testing.T, line string, want, got hashid.Line) {
	t.Helper()
	if len(want.Candidates) > 1 {
		want.Candidates = want.Candidates[:1]
	}
	if len(want.Candidates) == 1 {
		c := want.Candidates[0]
		c.Params = nil
		want.Candidates = []hashid.Candidate{c}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n IdentifyBest %+v\n Identify     %+v", line, got, want)
	}
}

func FuzzIdentifyLine(f *testing.F) {
	for _, s := range []string{emptyLM + ":" + ntPassword, "Administrator:500:" + emptyLM + ":" + emptyNT + ":::",
		"bob:1104:" + realLM + ":" + ntPassword + "::: (status=Enabled)", "root:" + sha512c + ":19000:0:99999:7:::",
		"bob:" + ntPassword, "a b c", "", ":", "::::::", "x:1:" + emptyLM + ":" + emptyNT + ":::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := hashid.IdentifyLine(line)
		if got.HashOffset < 0 || got.HashOffset > len(line) || !strings.HasPrefix(line[got.HashOffset:], got.Hash) {
			t.Fatalf("%q: hash %q at %d", line, got.Hash, got.HashOffset)
		}
		if got.User != "" && !strings.Contains(line, got.User+":") {
			t.Fatalf("%q: user %q", line, got.User)
		}
		if len(got.Candidates) > hashid.LineCandidates || got.Candidates == nil {
			t.Fatalf("%q: %d candidates", line, len(got.Candidates))
		}
		var best hashid.LineIdentifier
		checkBest(t, line, got, best.IdentifyBest(line))
		whole := hashid.Identify(line)
		if got.Estimate != whole.Estimate || got.Note != whole.Note {
			t.Fatalf("%q: line estimate %q, Identify %q", line, got.Estimate, whole.Estimate)
		}
		for i, c := range got.Candidates {
			if c.Name != whole.Candidates[i].Name || c.Confidence != whole.Candidates[i].Confidence {
				t.Fatalf("%q: candidate %d %q, Identify's %q", line, i, c.Name, whole.Candidates[i].Name)
			}
		}
	})
}

// mixedLines draws a file of hashes as incident responders and auditors
// meet them: raw digests, Windows dumps, user:hash and shadow lines, crypt
// and KDF strings, and a little that is no hash.
func mixedLines(n int) []string {
	rng := rand.New(rand.NewPCG(36, 1))
	hexOf := func(bytes int) string {
		b := make([]byte, bytes)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return hex.EncodeToString(b)
	}
	const c64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	crypt := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = c64[rng.IntN(64)]
		}
		return string(b)
	}
	user := func() string { return "user" + hexOf(3) }
	shadowTail := ":19876:0:99999:7:::"
	kinds := []struct {
		weight int
		line   func() string
	}{
		{20, func() string { return hexOf(16) }},
		{10, func() string { return hexOf(20) }},
		{5, func() string { return hexOf(32) }},
		{3, func() string { return hexOf(64) }},
		{15, func() string {
			return user() + ":" + strconv.Itoa(1000+rng.IntN(9000)) + ":" + emptyLM + ":" + hexOf(16) + ":::"
		}},
		{5, func() string { return `CORP\` + user() + ":1105:" + emptyLM + ":" + hexOf(16) + "::: (status=Enabled)" }},
		{10, func() string { return user() + ":" + hexOf(16) }},
		{3, func() string { return emptyLM + ":" + hexOf(16) }},
		{7, func() string { return user() + ":$6$" + crypt(16) + "$" + crypt(86) + shadowTail }},
		{3, func() string { return user() + ":$y$j9T$" + crypt(22) + "$" + crypt(43) + shadowTail }},
		{2, func() string { return user() + ":$1$" + crypt(8) + "$" + crypt(22) + shadowTail }},
		{1, func() string { return user() + ":" + crypt(13) + shadowTail }},
		{2, func() string { return user() + ":*" + shadowTail }},
		{5, func() string { return "$2b$12$" + crypt(53) }},
		{2, func() string { return "$argon2id$v=19$m=65536,t=3,p=4$" + crypt(22) + "$" + crypt(43) }},
		{1, func() string { return "pbkdf2_sha256$600000$" + crypt(22) + "$" + crypt(43) + "=" }},
		{1, func() string { return user() + "::CORP:" + hexOf(8) + ":" + hexOf(16) + ":" + hexOf(60) }},
		{2, func() string {
			return []string{"password", "Summer2024!", "correct horse battery staple", "hunter2"}[rng.IntN(4)]
		}},
		{2, func() string { return crypt(5 + rng.IntN(40)) }},
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	out := make([]string, n)
	for i := range out {
		r := rng.IntN(total)
		for _, k := range kinds {
			if r -= k.weight; r < 0 {
				out[i] = k.line()
				break
			}
		}
	}
	return out
}

// BenchmarkIdentifyLine measures a LineIdentifier, as a command reading a
// file uses one, over a mixed file of 10,000 lines (mixedLines), reporting
// the time per line and lines per second on one core: Identify (what JSON
// output shows) and IdentifyBest (text and CSV).
func BenchmarkIdentifyLine(b *testing.B) {
	lines := mixedLines(10000)
	for _, bb := range []struct {
		name     string
		identify func(*hashid.LineIdentifier, string) hashid.Line
	}{
		{"Identify", (*hashid.LineIdentifier).Identify},
		{"IdentifyBest", (*hashid.LineIdentifier).IdentifyBest},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var id hashid.LineIdentifier
			bb.identify(&id, lines[0]) // the tables are built on first use
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				bb.identify(&id, lines[i%len(lines)])
				i++
			}
			perLine := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perLine, "ns/line")
			b.ReportMetric(1e9/perLine, "lines/s")
		})
	}
}
