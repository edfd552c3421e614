package hashindex

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"

	"golang.org/x/crypto/md4"

	"secutil/tools/hashgen"
)

// Algorithms is the default set of unsalted digests the index holds.
// Import accepts any subset; sha256 is always indexed because the word table
// is keyed by it (see docs/HASHINDEX.md).
var Algorithms = []string{"md5", "sha1", "sha256", "sha512", "ntlm"}

// algorithm describes one digest the index can reverse.
type algorithm struct {
	name  string
	table string // entries table; empty for sha256, whose index is the words table itself
	size  int    // digest length in bytes
	sum   func(word []byte) []byte
}

var algorithmList = []*algorithm{
	{name: "md5", table: "md5", size: md5.Size, sum: func(w []byte) []byte { d := md5.Sum(w); return d[:] }},
	{name: "sha1", table: "sha1", size: sha1.Size, sum: func(w []byte) []byte { d := sha1.Sum(w); return d[:] }},
	{name: "sha256", size: sha256.Size, sum: func(w []byte) []byte { d := sha256.Sum256(w); return d[:] }},
	{name: "sha512", table: "sha512", size: sha512.Size, sum: func(w []byte) []byte { d := sha512.Sum512(w); return d[:] }},
	{name: "ntlm", table: "ntlm", size: md4.Size, sum: hashgen.NTLM},
}

var algorithmsByName = func() map[string]*algorithm {
	m := make(map[string]*algorithm, len(algorithmList))
	for _, a := range algorithmList {
		m[a.name] = a
	}
	return m
}()

// prefixKey is the index key of a digest: its first 8 bytes as a big-endian signed integer,
// which SQLite stores in at most 8 bytes and compares natively.
func prefixKey(digest []byte) int64 {
	return int64(binary.BigEndian.Uint64(digest[:8]))
}

// wordID is the key of a word in the words table: the prefix of its sha256 digest.
func wordID(word []byte) int64 {
	d := sha256.Sum256(word)
	return prefixKey(d[:])
}
